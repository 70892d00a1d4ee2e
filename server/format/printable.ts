// Printing is a boundary (an invariant of ARCHITECTURE.md): text from a session or another tool
// (titles, models, paths, snippets) reaches a terminal or an editor's UI only with its control
// characters made visible, the way git quotes odd paths. C0 and C1 controls, DEL, and the
// characters that reorder or hide text (bidi embeddings, overrides and isolates, the marks, line
// and paragraph separators) become escapes a person can read (\n, \t, \e, \x7f, \u202e); everything
// else is kept. `--json` output does not go through here: JSON.stringify escapes what JSON must.
// Pure functions, no dependencies. The clients carry the same rule (clients/*: printable).

/** Characters escaped: C0, DEL, C1, and the bidi and separator characters. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, but keeping line feeds and tabs: for text printed as several lines (a transcript). */
const UNSAFE_IN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\x1b': '\\e' };

function escapeChar(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One line of text safe to print: every control, bidi or separator character escaped (a `\n` too). */
export function printable(s: string): string {
  return s.replace(UNSAFE, escapeChar);
}

/**
 * Text safe to print over several lines: line feeds and tabs kept, every other such character
 * as a \uXXXX escape. The CLI's one door to stdout and stderr: in JSON text (where JSON.stringify
 * already escaped C0 inside strings) this leaves valid JSON, the C1 and bidi characters escaped.
 */
export function printableText(s: string): string {
  return s.replace(UNSAFE_IN_TEXT, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
