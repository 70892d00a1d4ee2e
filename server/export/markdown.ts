// Makes arbitrary Markdown (a model's answer, a user's message) safe to embed in a larger
// document: whatever the text leaves open (a code fence, an HTML block, a raw HTML comment or
// element, a list or block quote) is closed before the document goes on, and its headings are
// demoted below the levels the document keeps for itself.
//
// It is a small line-based CommonMark 0.31 block scanner (containers: block quotes and list
// items; leaves: fenced and indented code, HTML blocks 1-7, ATX and setext headings, paragraphs,
// GFM tables as markdown-it reads them). It tracks only what the embedding needs; it does not
// render. Depends on nothing: no fs, no markdown library (markdown-it judges it in the tests).
//
// The rules (see `sanitizeMarkdown`):
// - Headings: an ATX heading of level n becomes level min(6, n + demote). A setext underline
//   gets a backslash before it, in place: every line of `=`, and a line of `-` under an open
//   paragraph (or after a line the two readings below disagree on). The text stays a paragraph
//   and no line moves (rewriting it as ATX would join lines across containers). With demote = 2
//   no message can make an h1 (the document title) or an h2 (a turn).
// - Where markdown-it (what VS Code renders with, and our tests' judge) departs from the
//   CommonMark spec, the scanner follows markdown-it and makes its closers fit both: a table is
//   tried before any other block; a line less indented than a list item's content ends its
//   paragraph when it would start a block; `>` continues a block quote at any indentation.
// - Fences: a top-level fenced code block left open is closed by a fence of the same character
//   and length, at column 0. A fence open inside a block quote or list item needs nothing: the
//   embedder's next line at column 0 closes the container and the fence with it.
// - HTML blocks of kinds 1-5 (<script>/<pre>/<style>/<textarea>, <!--, <?, <!X, <![CDATA[) left
//   open at top level end at the first line holding their end condition; the separator line
//   (`SEPARATOR`) holds all of them, so it ends any of them.
// - Raw HTML, seen by a browser: an unclosed comment or <script>/<style>/<textarea>/<title>/
//   <xmp>/<iframe>/<noembed>/<noframes>/<noscript> would swallow the rest of the page, and an
//   unclosed <details>/<div>/... would hide it. The separator line closes comments and those
//   raw-text elements; elements left open in the text's raw HTML are closed after it.
// - After the text the embedder writes a blank line (ends paragraphs, tables, HTML blocks 6-7,
//   block quotes) and, when the text did not end clean (a container, code or HTML block still
//   open, or any raw HTML seen), the separator and another blank line: the separator is an HTML
//   block at column 0, which closes any list item and keeps a following indented line from
//   joining an indented code block. It is `<!-- -->` when the text had no raw HTML.

/** Heading demotion the document uses: h1 is the title, h2 a turn. */
export const DEFAULT_DEMOTE = 2;

/**
 * An HTML comment (a type-2 HTML block that ends on its own line) holding every end condition
 * of HTML blocks 1-5 and the end tags of the raw-text elements a browser would otherwise never
 * leave. Stray end tags are ignored by browsers.
 */
export const SEPARATOR = '<!-- ?> ]]> --></script></style></textarea></title></xmp></iframe></noembed></noframes></noscript></pre>';

/** The separator when the text had no raw HTML: an empty comment, an HTML block of its own. */
export const PLAIN_SEPARATOR = '<!-- -->';

export interface SanitizedMarkdown {
  /** The text, headings demoted, with closers appended (no trailing newline). */
  text: string;
  /** True when the text needs `separator` (and a blank line) after it before anything else. */
  needsSeparator: boolean;
  /** The separator line to write after a blank line when `needsSeparator` (SEPARATOR plus end tags). */
  separator: string;
}

// ---------------------------------------------------------------------------------------------
// The scanner's state.

type Container = { kind: 'quote' } | { kind: 'item'; width: number; blankStart: boolean; hasContent: boolean; marker: string };

interface ParaLine {
  idx: number; // index into the output lines
  contentStart: number; // index in the original line where its text starts
}

type Leaf =
  | { kind: 'none' }
  | { kind: 'para'; lines: ParaLine[] }
  | { kind: 'table' }
  | { kind: 'fence'; ch: string; len: number }
  | { kind: 'icode' }
  | { kind: 'html'; type: number };

const TYPE1_OPEN = /^<(?:script|pre|style|textarea)(?:[ \t>]|$)/i;
const TYPE1_END = /<\/(?:script|pre|style|textarea)>/i;
const TYPE6_NAMES = new Set(
  (
    'address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt ' +
    'fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li ' +
    'link main menu menuitem nav noframes ol optgroup option p param search section summary table tbody td tfoot ' +
    'th thead title tr track ul'
  ).split(' '),
);
const TYPE6_OPEN = /^<\/?([A-Za-z][A-Za-z0-9-]*)(?:[ \t>]|\/>|$)/;
// Type 7: a complete open or closing tag alone on the line (CommonMark's tag grammar).
const ATTR = String.raw`(?:[ \t]+[A-Za-z_:][A-Za-z0-9_.:-]*(?:[ \t]*=[ \t]*(?:[^"'=<>\x60\s]+|'[^']*'|"[^"]*"))?)`;
const TYPE7 = new RegExp(String.raw`^(?:<[A-Za-z][A-Za-z0-9-]*${ATTR}*[ \t]*\/?>|<\/[A-Za-z][A-Za-z0-9-]*[ \t]*>)[ \t]*$`);

function htmlBlockStart(rest: string): number {
  if (rest[0] !== '<') return 0;
  if (TYPE1_OPEN.test(rest)) return 1;
  if (rest.startsWith('<!--')) return 2;
  if (rest.startsWith('<?')) return 3;
  if (/^<![A-Za-z]/.test(rest)) return 4;
  if (rest.startsWith('<![CDATA[')) return 5;
  const m = TYPE6_OPEN.exec(rest);
  if (m && TYPE6_NAMES.has(m[1]!.toLowerCase())) return 6;
  if (TYPE7.test(rest)) return 7;
  return 0;
}

function htmlBlockEnds(type: number, line: string): boolean {
  switch (type) {
    case 1:
      return TYPE1_END.test(line);
    case 2:
      return line.includes('-->');
    case 3:
      return line.includes('?>');
    case 4:
      return line.includes('>');
    case 5:
      return line.includes(']]>');
    default:
      return false;
  }
}

/**
 * Expands tabs (stops every 4 columns) so that string index == column; keeps a map back
 * (`orig(i)`: the index in the original line of column i).
 *
 * The map is a function, not an array of one number per character, so that a very long line
 * costs no more than itself: the identity for a line without tabs (no allocation, and the text
 * is the line itself), and a binary search over the tabs otherwise.
 */
function expandTabs(line: string): { text: string; orig: (i: number) => number } {
  if (!line.includes('\t')) return { text: line, orig: identity };
  const parts = line.split('\t');
  // For each tab: the column where its spaces start, how many, and its index in the line.
  const col: number[] = [];
  const width: number[] = [];
  const at: number[] = [];
  const pieces: string[] = [];
  let len = 0;
  let src = 0;
  for (let k = 0; k < parts.length; k++) {
    const part = parts[k]!;
    pieces.push(part);
    len += part.length;
    src += part.length;
    if (k === parts.length - 1) break;
    const n = 4 - (len % 4);
    col.push(len);
    width.push(n);
    at.push(src);
    pieces.push(' '.repeat(n));
    len += n;
    src += 1;
  }
  const orig = (i: number): number => {
    // The last tab whose spaces start at or before column i.
    let lo = 0;
    let hi = col.length - 1;
    let t = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (col[mid]! <= i) {
        t = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (t === -1) return i;
    if (i < col[t]! + width[t]!) return at[t]!;
    return at[t]! + 1 + (i - col[t]! - width[t]!);
  };
  return { text: pieces.join(''), orig };
}

const identity = (i: number): number => i;

function spacesAt(s: string, p: number): number {
  let n = 0;
  while (s.charCodeAt(p + n) === 32) n++;
  return n;
}

function isBlankFrom(s: string, p: number): boolean {
  return p + spacesAt(s, p) >= s.length;
}

/** markdown-it's pipe split: unescaped `|`, outer empties dropped. */
function tableCells(line: string): number {
  const cells: string[] = [];
  let cur = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\' && line[i + 1] === '|') {
      cur += '\\|';
      i++;
    } else if (c === '|') {
      cells.push(cur);
      cur = '';
    } else cur += c;
  }
  cells.push(cur);
  if (cells.length && cells[0]!.trim() === '') cells.shift();
  if (cells.length && cells[cells.length - 1]!.trim() === '') cells.pop();
  return cells.length;
}

/** Column count of a GFM delimiter row as markdown-it reads it, or 0. */
function delimiterColumns(rest: string): number {
  const t = rest.trimEnd();
  if (!/^[|:-][|:\- ]*$/.test(t) || t.length < 2) return 0;
  if (t[0] === '-' && t[1] === ' ') return 0;
  const cols = t.split('|');
  let n = 0;
  for (let i = 0; i < cols.length; i++) {
    const c = cols[i]!.trim();
    if (!c) {
      if (i === 0 || i === cols.length - 1) continue;
      return 0;
    }
    if (!/^:?-+:?$/.test(c)) return 0;
    n++;
  }
  return n;
}

/** A link reference definition that fits on its line: `[label]: destination "title"`. */
const REF_DEF = /^\[(?:[^\]\\[]|\\.){1,999}\]:[ ]*(?:<[^<>\n]*>|[^\s<][^\s]*)(?:[ ]+(?:"[^"]*"|'[^']*'|\([^()]*\)))?[ ]*$/;

// Raw HTML tag balance, for what a browser sees.
const VOID = new Set('area base br col embed hr img input link meta param source track wbr'.split(' '));
const TAG_RE = /<(\/?)([A-Za-z][A-Za-z0-9-]*)(?:\s(?:[^>"']|"[^"]*"|'[^']*')*)?(\/?)>/g;

const NOT_A_TAG = /<\/?[A-Za-z][A-Za-z0-9-]*(?=[^\sA-Za-z0-9/>-])/g;

class TagStack {
  readonly open: string[] = [];
  sawRaw = false;
  feed(html: string): void {
    if (/<!--|<\?|<!\[|<![A-Za-z]/.test(html)) this.sawRaw = true;
    for (const m of html.matchAll(TAG_RE)) {
      this.sawRaw = true;
      const name = m[2]!.toLowerCase();
      if (m[1]) {
        const at = this.open.lastIndexOf(name);
        if (at >= 0) this.open.length = at;
      } else if (!m[3] && !VOID.has(name) && name !== 'p') {
        this.open.push(name);
      }
    }
    // A `<name` followed by a character no tag allows after its name (`<state_snapshot>`) is
    // text to CommonMark and markdown-it, escaped when rendered: no raw HTML.
    if (/<[A-Za-z/!?]/.test(html.replace(TAG_RE, '').replace(NOT_A_TAG, ''))) this.sawRaw = true;
  }
}

/** Strips code spans (roughly, per line) so `<details>` in backticks is not taken as raw HTML. */
function withoutCodeSpans(s: string): string {
  return s.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, '');
}

const LIST_MARKER = /^(?:([-+*])|(\d{1,9})([.)]))(?=[ ]|$)/;

/** Whether a line (indent < 4 stripped) starts a block that ends a lazy paragraph continuation. */
function interrupts(rest: string): boolean {
  if (/^(?:>|#{1,6}(?:[ ]|$)|`{3,}[^`]*$|~{3,}|[-+*](?:[ ]|$)|\d{1,9}[.)](?:[ ]|$))/.test(rest)) return true;
  if (/^([-*_])(?:[ ]*\1){2,}[ ]*$/.test(rest)) return true;
  const h = htmlBlockStart(rest);
  return h > 0 && h < 7;
}

/** Matches a line against open containers: how many continue, and the column after them. */
function matchContainers(L: string, stack: readonly Container[]): { matched: number; p: number; overIndented: boolean } {
  let p = 0;
  let overIndented = false;
  let matched = 0;
  for (const c of stack) {
    if (c.kind === 'quote') {
      // markdown-it continues a block quote at any indentation (CommonMark: at most 3 spaces,
      // else the line is lazy text); `overIndented` tells the caller the two readings differ.
      const ind = spacesAt(L, p);
      if (L[p + ind] === '>') {
        if (ind > 3) overIndented = true;
        p += ind + 1;
        if (L[p] === ' ') p++;
      } else break;
    } else {
      if (isBlankFrom(L, p)) {
        if (c.blankStart && !c.hasContent) break; // an item may begin with at most one blank line
      } else if (spacesAt(L, p) >= c.width) {
        p += c.width;
      } else break;
    }
    matched++;
  }
  return { matched, p, overIndented };
}

// ---------------------------------------------------------------------------------------------

/**
 * Sanitises one message's Markdown for embedding (see the rules at the top of this file).
 * The result's text keeps the message's content; only heading markers change, and closers are
 * appended. Line endings become '\n' and NUL becomes U+FFFD, as CommonMark reads them.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one block scanner whose states share the open-container stack; split, they would pass it around
export function sanitizeMarkdown(src: string, opts: { demote?: number } = {}): SanitizedMarkdown {
  const demote = opts.demote ?? DEFAULT_DEMOTE;
  const lines = src.replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD').split('\n');
  const out: (string | null)[] = lines.slice();
  const tags = new TagStack();

  let stack: Container[] = [];
  let leaf: Leaf = { kind: 'none' };
  let skipLine = -1;
  let ambiguous = false; // the previous line reads differently in CommonMark and markdown-it
  const expanded = lines.map((l) => expandTabs(l).text);

  /** markdown-it tries a table before any other block: this line's cells over a delimiter row. */
  const tableStarts = (li: number, rest: string, containers: Container[]): boolean => {
    if (!rest.includes('|') || li + 1 >= lines.length) return false;
    const next = expanded[li + 1]!;
    const m = matchContainers(next, containers);
    if (m.matched !== containers.length) return false;
    const ind = spacesAt(next, m.p);
    if (ind >= 4) return false;
    const cols = delimiterColumns(next.slice(m.p + ind));
    return cols > 0 && tableCells(rest.trim()) === cols;
  };

  const closeTo = (n: number): void => {
    if (stack.length > n) {
      stack = stack.slice(0, n);
      leaf = { kind: 'none' };
    }
  };

  for (let li = 0; li < lines.length; li++) {
    const original = lines[li]!;
    const { text: L, orig } = expandTabs(original);

    // 1. Continue the open containers.
    const m0 = matchContainers(L, stack);
    const matched = m0.matched;
    let p = m0.p;
    const afterAmbiguous = ambiguous;
    const lineStack = stack.slice(); // the containers open before this line, for look-ups
    ambiguous = m0.overIndented;
    if (li === skipLine) {
      // The delimiter row of a table found by look-ahead: part of the table.
      skipLine = -1;
      continue;
    }
    const allMatched = matched === stack.length;
    const blank = isBlankFrom(L, p);

    // 2. Leaves that take lines verbatim.
    if (leaf.kind === 'fence') {
      if (allMatched) {
        const ind = spacesAt(L, p);
        const rest = L.slice(p + ind);
        const run = /^(`+|~+)/.exec(rest)?.[1] ?? '';
        if (ind <= 3 && run[0] === leaf.ch && run.length >= leaf.len && isBlankFrom(rest, run.length)) leaf = { kind: 'none' };
        continue;
      }
      closeTo(matched);
      leaf = { kind: 'none' };
    } else if (leaf.kind === 'html') {
      if (allMatched) {
        tags.feed(L.slice(p));
        if (leaf.type <= 5) {
          if (htmlBlockEnds(leaf.type, L.slice(p))) leaf = { kind: 'none' };
        } else if (blank) leaf = { kind: 'none' };
        continue;
      }
      closeTo(matched);
      leaf = { kind: 'none' };
    } else if (leaf.kind === 'icode') {
      if (allMatched && (blank || spacesAt(L, p) >= 4)) continue;
      if (!allMatched) closeTo(matched);
      leaf = { kind: 'none' };
    }

    // markdown-it checks a line that is less indented than the list item holding an open
    // paragraph against the item's content column, not column 0: whatever would start a block
    // there ends the paragraph and the item, even at 4+ spaces (CommonMark would call it lazy).
    // Follow markdown-it here: the closers then fit both readings.
    // (Only when every unmatched container is a list item: a block quote checks column 0.)
    const onlyItemsUnmatched = stack.slice(matched).every((c) => c.kind === 'item');
    const trimmed = L.slice(p).trimStart();
    if (leaf.kind === 'para' && !allMatched && onlyItemsUnmatched && (interrupts(trimmed) || tableStarts(li, trimmed, lineStack))) {
      closeTo(matched);
    }

    // 3. New block starts.
    const paraOpen = (): boolean => leaf.kind === 'para';
    let cur = matched; // containers in force for this line
    let opened = false; // a new container opened on this line
    const startBlock = (): void => {
      // A block start closes the unmatched containers and the open leaf.
      if (stack.length > cur) stack = stack.slice(0, cur);
      leaf = { kind: 'none' };
    };
    const markContent = (): void => {
      const last = stack[cur - 1];
      if (last && last.kind === 'item' && !blank) last.hasContent = true;
    };
    let done = false;
    while (!done) {
      const ind = spacesAt(L, p);
      const at = p + ind;
      const rest = L.slice(at);
      const lineBlank = at >= L.length;
      const exact = cur === stack.length && !opened; // the open leaf is in the containers in force
      if (lineBlank) break;
      const lazyText = leaf.kind === 'para' && !exact && !interrupts(rest);
      // Inside an open list, a sibling item's marker wins over a table (markdown-it's list rule
      // takes the next item before any other rule sees the line).
      const open = !opened ? lineStack[cur] : undefined;
      const marker = LIST_MARKER.exec(rest);
      const siblingItem = open?.kind === 'item' && marker !== null && open.marker === (marker[1] ?? marker[3]);
      if (ind < 4 && !(leaf.kind === 'table' && exact) && !lazyText && !siblingItem && tableStarts(li, rest, stack.slice(0, cur))) {
        startBlock();
        leaf = { kind: 'table' };
        skipLine = li + 1;
        done = true;
        break;
      }
      if (ind >= 4) {
        if (paraOpen()) break; // cannot interrupt a paragraph
        startBlock();
        leaf = { kind: 'icode' };
        done = true;
        break;
      }
      const c0 = rest[0]!;
      // Block quote.
      if (c0 === '>') {
        startBlock();
        stack.push({ kind: 'quote' });
        cur = stack.length;
        opened = true;
        p = at + 1;
        if (L[p] === ' ') p++;
        continue;
      }
      // ATX heading.
      const atx = /^(#{1,6})(?=[ ]|$)/.exec(rest);
      if (atx) {
        startBlock();
        const n = atx[1]!.length;
        const to = Math.min(6, n + demote);
        if (to !== n) {
          const oi = orig(at);
          out[li] = original.slice(0, oi) + '#'.repeat(to) + original.slice(oi + n);
        }
        done = true;
        break;
      }
      // Fenced code.
      const fm = /^(`{3,}|~{3,})(.*)$/.exec(rest);
      if (fm && !(fm[1]![0] === '`' && fm[2]!.includes('`'))) {
        startBlock();
        leaf = { kind: 'fence', ch: fm[1]![0]!, len: fm[1]!.length };
        done = true;
        break;
      }
      // HTML block.
      const ht = htmlBlockStart(rest);
      if (ht && !(ht === 7 && (paraOpen() || leaf.kind === 'table'))) {
        startBlock();
        tags.feed(rest);
        leaf = htmlBlockEnds(ht, rest) ? { kind: 'none' } : { kind: 'html', type: ht };
        done = true;
        break;
      }
      // Setext underline: escaped in place (`\===`, `\---`), so it stays a line of the paragraph
      // and nothing around it moves. Done under any open paragraph, lazy or not: where CommonMark
      // and markdown-it disagree on laziness, the escaped line is paragraph text in both.
      // A line of = is escaped wherever it is (it is text or an underline, never anything
      // else); a line of - under an open paragraph, or after a line the two readings disagree on.
      if (!opened && (/^=+[ ]*$/.test(rest) || ((leaf.kind === 'para' || afterAmbiguous) && /^-+[ ]*$/.test(rest)))) {
        const oi = orig(at);
        out[li] = original.slice(0, oi) + '\\' + original.slice(oi);
        break; // now paragraph text: continues the paragraph (lazily, maybe) or starts one
      }
      // Thematic break.
      if (/^([-*_])(?:[ ]*\1){2,}[ ]*$/.test(rest)) {
        startBlock();
        done = true;
        break;
      }
      // List item.
      const lm = LIST_MARKER.exec(rest);
      if (lm) {
        const markerLen = lm[0].length;
        const after = at + markerLen;
        const restBlank = isBlankFrom(L, after);
        const interrupting = leaf.kind === 'para' && exact;
        if (!(interrupting && (restBlank || (lm[2] !== undefined && Number(lm[2]) !== 1)))) {
          startBlock();
          let width: number;
          let blankStart = false;
          if (restBlank) {
            width = ind + markerLen + 1;
            blankStart = true;
            p = L.length;
          } else {
            const sp = spacesAt(L, after);
            if (sp >= 5) {
              width = ind + markerLen + 1;
              p = after + 1;
            } else {
              width = ind + markerLen + sp;
              p = after + sp;
            }
          }
          const item: Container = { kind: 'item', width, blankStart, hasContent: false, marker: lm[1] ?? lm[3]! };
          stack.push(item);
          cur = stack.length;
          opened = true;
          continue;
        }
      }
      break;
    }
    if (done) {
      markContent();
      continue;
    }

    // 4. What is left is blank or text.
    const restBlank = isBlankFrom(L, p);
    if (restBlank) {
      if (!opened) {
        // A blank line: closes unmatched containers, paragraphs and tables.
        closeTo(matched);
        if (leaf.kind === 'para' || leaf.kind === 'table') leaf = { kind: 'none' };
      }
      continue;
    }
    const textStart = p + spacesAt(L, p);
    if (leaf.kind === 'para' && !opened) {
      // Paragraph continuation, lazy when not all containers matched.
      leaf.lines.push({ idx: li, contentStart: orig(textStart) });
      tags.feed(withoutCodeSpans(L.slice(textStart)));
      continue;
    }
    if (leaf.kind === 'table' && !opened && cur === stack.length) {
      tags.feed(withoutCodeSpans(L.slice(textStart)));
      continue;
    }
    startBlock();
    if (REF_DEF.test(L.slice(textStart))) {
      // A one-line link reference definition is not a paragraph (markdown-it): nothing stays
      // open for a lazy line or a setext underline to attach to.
      markContent();
      continue;
    }
    leaf = { kind: 'para', lines: [{ idx: li, contentStart: orig(textStart) }] };
    tags.feed(withoutCodeSpans(L.slice(textStart)));
    markContent();
  }

  // Closers for what is still open at top level.
  const tail: string[] = [];
  let needsSeparator = stack.length > 0 || tags.sawRaw;
  if (stack.length === 0) {
    if (leaf.kind === 'fence') {
      tail.push(leaf.ch.repeat(leaf.len));
      needsSeparator = true;
    } else if (leaf.kind === 'html' || leaf.kind === 'icode') {
      needsSeparator = true; // html 1-5: the separator line ends it; 6-7 and code: the blank line
    }
  }
  const kept = out.filter((l): l is string => l !== null);
  while (kept.length && kept[kept.length - 1]!.trim() === '' && !(stack.length === 0 && leaf.kind === 'fence')) kept.pop();
  const closeTags = tags.open
    .slice()
    .reverse()
    .map((t) => `</${t}>`)
    .join('');
  // The plain comment suffices when no raw HTML is involved (it still closes lists and keeps
  // indented code apart); the full one when the text had raw HTML or left an HTML block open.
  const rawInvolved = tags.sawRaw || (stack.length === 0 && leaf.kind === 'html');
  return {
    text: kept.concat(tail).join('\n'),
    needsSeparator,
    separator: rawInvolved ? SEPARATOR + closeTags : PLAIN_SEPARATOR,
  };
}

/**
 * Escapes text for use as inline Markdown (a heading's text, a list line after its marker):
 * whitespace runs become one space, and every character with an inline meaning (emphasis,
 * code, links, raw HTML, entities, a heading's closing #) is backslash-escaped.
 */
export function escapeInline(s: string): string {
  return s
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_[\]<>!&~#|]/g, '\\$&');
}

/** Escapes text for HTML element content or attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A fenced code block whose fence is longer than any backtick run in the body. */
export function fencedCode(body: string, info = ''): string {
  let longest = 0;
  for (const m of body.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const text = body.replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD');
  return `${fence}${info}\n${text}${text.endsWith('\n') || text === '' ? '' : '\n'}${fence}`;
}
