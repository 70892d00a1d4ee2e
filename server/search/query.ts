// The query language, one for the CLI, session/search, the clients and MCP: words (every one,
// in any event of a session, whole words, case and diacritics ignored), `word*`, `"phrases"`,
// `-excluded`, `tool:`, `project:`, `since:`/`until:`, `role:` (protocol.md, "Search queries",
// says what each means). A term with characters that are not letters or digits (util.py) is the
// phrase of its words, as FTS5 would read it. parseQuery never throws: what it cannot read is a
// word. Depends on texts.ts only.

import { ROLES, fold, tokens, type Role } from './texts.js';

/** A term: its folded words, in order; `prefix`: the last one is a prefix. */
export interface Term {
  words: string[];
  prefix: boolean;
  /** As the user wrote it (for messages). */
  text: string;
}

export interface Query {
  terms: Term[];
  excluded: Term[];
  tool?: string;
  project?: string;
  since?: string;
  until?: string;
  role?: Role;
  /** Filters that did not read (a bad date, an unknown role), in words. */
  errors: string[];
}

const FILTER = /^(tool|project|since|until|role):(.*)$/;

function termOf(raw: string, quoted: boolean): Term | null {
  const prefix = !quoted && raw.endsWith('*');
  const words = tokens(prefix ? raw.slice(0, -1) : raw).map((t) => t.word);
  return words.length ? { words, prefix, text: quoted ? `"${raw}"` : raw } : null;
}

/** Reads a query; an unbalanced quote runs to the end. */
export function parseQuery(query: string): Query {
  const q: Query = { terms: [], excluded: [], errors: [] };
  for (const m of query.matchAll(/(-?)"([^"]*)"?|(\S+)/g)) {
    const neg = m[1] === '-';
    if (m[2] !== undefined) {
      const t = termOf(m[2], true);
      if (t) (neg ? q.excluded : q.terms).push(t);
      continue;
    }
    const raw = m[3]!;
    const f = FILTER.exec(raw);
    if (f?.[2]) {
      const [, key, value] = f as unknown as [string, keyof Query, string];
      if (key === 'since' || key === 'until') {
        const t = Date.parse(value);
        if (Number.isNaN(t)) q.errors.push(`${key}: takes a date or an ISO time, not ${JSON.stringify(value)}`);
        else q[key] = new Date(t).toISOString();
      } else if (key === 'role') {
        if ((ROLES as string[]).includes(value)) q.role = value as Role;
        else q.errors.push(`role: is one of ${ROLES.join(', ')}, not ${JSON.stringify(value)}`);
      } else (q as unknown as Record<string, string>)[key] = value;
      continue;
    }
    const neg2 = raw.startsWith('-') && raw.length > 1;
    const t = termOf(neg2 ? raw.slice(1) : raw, false);
    if (t) (neg2 ? q.excluded : q.terms).push(t);
  }
  return q;
}

/** A term as an FTS5 query: a quoted phrase of its words (quotes doubled), `*` for a prefix. */
export const ftsTerm = (t: Term): string => `"${t.words.join(' ').replace(/"/g, '""')}"${t.prefix ? '*' : ''}`;

/** Where in `text` the term is: [start, end) of each occurrence, in UTF-16 units. */
export function find(text: string, t: Term, toks = tokens(text)): [number, number][] {
  const out: [number, number][] = [];
  const n = t.words.length;
  for (let i = 0; i + n <= toks.length; i++) {
    let ok = true;
    for (let j = 0; j < n && ok; j++) {
      const w = toks[i + j]!.word;
      ok = j === n - 1 && t.prefix ? w.startsWith(t.words[j]!) : w === t.words[j];
    }
    if (ok) out.push([toks[i]!.start, toks[i + n - 1]!.end]);
  }
  return out;
}

/** Whether a folded project path is the filter's project: the whole path, or its last parts. */
export function projectMatches(project: string, filter: string): boolean {
  const p = project.replace(/[\\/]+$/, '');
  const f = filter.replace(/[\\/]+$/, '');
  return p === f || p.endsWith(`/${f}`) || p.endsWith(`\\${f}`) || fold(p) === fold(f);
}
