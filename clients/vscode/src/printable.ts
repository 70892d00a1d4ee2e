// Printing is a boundary (STYLE.md 11d; the sidecar's server/format/printable.ts has the same
// rule): a title, model, folder or preview from a session reaches a label, a description or a
// tooltip with its control characters (C0, DEL, C1) and the characters that reorder or hide text
// (bidi embeddings, overrides, isolates, marks, line and paragraph separators) as visible escapes.
// Pure: no `vscode` import.

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\x1b': '\\e' };

/** One line safe to show: every control, bidi or separator character escaped (\n, \e, \u202e). */
export function printable(s: string): string {
  return s.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return NAMED[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}
