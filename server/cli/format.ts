// Text shaping for people: relative times and History rows. Pure functions; the CLI prints
// what they return. No fs, no JSON-RPC. Every field from a session (title, model, project,
// snippet) is made printable here (format/printable.ts) before it is padded, cut or coloured.

import { printable } from '../format/printable.js';

export function relativeTime(iso: string, now: Date = new Date()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return 'unknown time';
  const s = Math.round((now.getTime() - then) / 1000);
  if (s < 0) return 'just now';
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(s / 3600);
  if (h < 24) return `${h} h ago`;
  const d = Math.floor(s / 86400);
  if (d === 1) return 'yesterday';
  if (d < 7) return `${d} days ago`;
  if (d < 30) return `${Math.floor(d / 7)} wk ago`;
  return new Date(then).toISOString().slice(0, 10);
}

export interface Row {
  title: string;
  updatedAt: string;
  turns: number;
  model: string | null;
  id: string;
  project?: string;
  /** Shown after the id: "moved from OLD", "forked from ID at turn N". */
  movedFrom?: string;
  forkedFrom?: { id: string; turn: number; device?: string };
  pinned?: boolean;
}

function width(s: string): number {
  return Array.from(s).length;
}

function pad(s: string, n: number): string {
  return s + ' '.repeat(Math.max(0, n - width(s)));
}

function cut(s: string, n: number): string {
  const chars = Array.from(s);
  return chars.length <= n ? s : chars.slice(0, n - 1).join('') + '…';
}

/** One line a session: title, relative time, turns, model (and the id to act on it). */
export function historyLines(rows: Row[], opts: { now?: Date; showProject?: boolean; titleWidth?: number } = {}): string[] {
  const tw = opts.titleWidth ?? 50;
  const titles = rows.map((r) => cut(printable(r.title), tw));
  const times = rows.map((r) => relativeTime(r.updatedAt, opts.now));
  const turns = rows.map((r) => `${r.turns} turn${r.turns === 1 ? '' : 's'}`);
  const wT = Math.max(0, ...titles.map(width));
  const wR = Math.max(0, ...times.map(width));
  const wN = Math.max(0, ...turns.map(width));
  const models = rows.map((r) => printable(r.model ?? '-'));
  const wM = Math.max(0, ...models.map(width));
  return rows.map((r, i) => {
    const parts = [pad(titles[i]!, wT), pad(times[i]!, wR), pad(turns[i]!, wN), pad(models[i]!, wM), `  ${r.id}`];
    let line = parts.slice(0, 4).join('  ') + parts[4];
    if (opts.showProject && r.project) line += `  ${printable(r.project)}`;
    if (r.forkedFrom)
      line += r.forkedFrom.device
        ? `  (${printable(r.forkedFrom.id)} continued on ${printable(r.forkedFrom.device)} after turn ${r.forkedFrom.turn})`
        : `  (forked from ${printable(r.forkedFrom.id)} at turn ${r.forkedFrom.turn})`;
    if (r.movedFrom) line += `  (moved from ${printable(r.movedFrom)})`;
    if (r.pinned) line += '  (pinned)';
    return line.replace(/\s+$/, '');
  });
}

export interface HitRow {
  sessionId: string;
  project: string;
  title: string;
  seq: number;
  where: string;
  t: string;
  snippet: string;
  ranges: [number, number][];
}

/**
 * Search hits grouped by session, in the order of their first hit (newest first): a heading
 * (title, relative time, id; the project when several may show), then one indented line a hit
 * (where it is, its snippet). `color`: the matches in bold red and the headings bold, as
 * grep and rg show them on a terminal.
 */
export function searchLines(hits: HitRow[], opts: { color?: boolean; showProject?: boolean; now?: Date } = {}): string[] {
  const bold = (s: string) => (opts.color ? `\x1b[1m${s}\x1b[0m` : s);
  const groups = new Map<string, HitRow[]>();
  for (const h of hits) groups.set(h.sessionId, [...(groups.get(h.sessionId) ?? []), h]);
  const lines: string[] = [];
  for (const [id, group] of groups) {
    const h = group[0]!; // a group is made with its first hit
    if (lines.length) lines.push('');
    const title = printable(h.title || '(untitled)');
    lines.push(`${bold(title)}  ${relativeTime(h.t, opts.now)}  ${printable(id)}${opts.showProject ? `  ${printable(h.project)}` : ''}`);
    for (const g of group) lines.push(`  #${g.seq} ${printable(g.where)}: ${highlight(g.snippet, g.ranges, !!opts.color)}`);
  }
  return lines;
}

/** The snippet on one line, its matched ranges in bold red when `color`. */
function highlight(snippet: string, ranges: [number, number][], color: boolean): string {
  let text = '';
  let at = 0;
  // Whitespace runs become one space first (as before), then each piece is made printable on
  // its own, so that the colour codes around a match are the only escapes that reach the terminal.
  const plain = (s: string) => printable(s.replace(/\s+/g, ' '));
  for (const [a, b] of color ? [...ranges].sort((x, y) => x[0] - y[0]) : []) {
    if (a < at) continue;
    text += plain(snippet.slice(at, a)) + `\x1b[1;31m${plain(snippet.slice(a, b))}\x1b[0m`;
    at = b;
  }
  return text + plain(snippet.slice(at));
}

export interface Progress {
  /** Files (or items) done of all; with bytes, the bar and an ETA follow the bytes. */
  update(done: number, total: number, bytes?: number, totalBytes?: number): void;
  /** Erases the line, if one was drawn. */
  end(): void;
}

/**
 * A progress line for a command that can take a while (the first search of a store builds its
 * indexes: seconds), for a terminal: nothing for the first `after` ms, so that a quick command
 * prints nothing, then `label done/total` drawn over itself at most every `every` ms.
 */
function megabytes(n: number): string {
  return n >= 1 << 30 ? `${(n / (1 << 30)).toFixed(1)} GB` : `${Math.round(n / (1 << 20))} MB`;
}

export function progressLine(
  write: (s: string) => void,
  label: string,
  opts: { now?: () => number; after?: number; every?: number; bar?: number } = {},
): Progress {
  const now = opts.now ?? (() => performance.now());
  const after = opts.after ?? 500;
  const every = opts.every ?? 100;
  const start = now();
  let drawn = -Infinity;
  return {
    update(done, total, bytes, totalBytes) {
      const t = now();
      if (t - start < after || (t - drawn < every && done < total)) return;
      drawn = t;
      // With bytes, the bar and the ETA follow them (one huge file is most of the work).
      const [d, all] = totalBytes ? [bytes ?? 0, totalBytes] : [done, total];
      const bar = opts.bar && all > 0 ? ` [${'#'.repeat(Math.round((opts.bar * d) / all)).padEnd(opts.bar, '.')}]` : '';
      const size = totalBytes ? ` ${megabytes(bytes ?? 0)}/${megabytes(totalBytes)}` : '';
      const left = d > 0 && d < all ? ((t - start) / d) * (all - d) : undefined;
      const eta = left !== undefined ? `, ${Math.ceil(left / 1000)} s left` : '';
      write(`\r${label}${bar} ${done}/${total}${size}${eta}\x1b[K`);
    },
    end() {
      if (drawn !== -Infinity) write('\r\x1b[K');
    },
  };
}

/** What `retention` did (or, in a dry run, would do): one line a session, then what was left alone. */
export function retentionLines(r: {
  dryRun: boolean;
  done: { id: string; title: string; action: string; reason: string; lastActive: string }[];
  skipped: { id: string; title: string; action: string; skipped?: string }[];
}): string[] {
  const why: Record<string, string> = { idle: 'idle', 'max-age': 'older than --max-age', keep: 'beyond --keep' };
  const past: Record<string, string> = { archive: 'archived', delete: 'moved to the trash' };
  const lines = r.done.map(
    (i) =>
      `${r.dryRun ? `would ${i.action === 'delete' ? 'move to the trash' : 'archive'}` : past[i.action]}  ${i.id}  ${cut(i.title, 50)}  (${why[i.reason] ?? i.reason}, last active ${relativeTime(i.lastActive)})`,
  );
  for (const i of r.skipped) lines.push(`left alone  ${i.id}  ${cut(i.title, 50)}: ${i.skipped ?? 'skipped'}`);
  if (lines.length === 0) lines.push('Nothing falls out under these rules.');
  else if (r.dryRun) lines.push('(dry run: nothing was changed)');
  return lines;
}

/** What `import` did: one line per tool, the files skipped (the first `shown`), the record kinds never seen. */
export function importLines(
  r: {
    tools: { tool: string; found: number; imported: number; updated: number; unchanged: number; skipped: number; problems: number }[];
    skippedFiles: { path: string; reason: string }[];
    unknownKinds: { tool: string; version: string; kind: string; count: number }[];
    failed: number;
  },
  o: { labels: Map<string, string>; dryRun: boolean; shown: number },
): string[] {
  const lines = r.tools.map(
    (t) =>
      `${o.labels.get(t.tool) ?? t.tool}: found ${t.found}, ${o.dryRun ? 'would import' : 'imported'} ${t.imported}, updated ${t.updated}, ` +
      `unchanged ${t.unchanged}, skipped ${t.skipped}, problems ${t.problems}`,
  );
  if (r.skippedFiles.length) {
    lines.push(`Skipped ${r.skippedFiles.length}:`);
    for (const f of r.skippedFiles.slice(0, o.shown)) lines.push(`  ${f.path}: ${f.reason}`);
    if (r.skippedFiles.length > o.shown) lines.push(`  … and ${r.skippedFiles.length - o.shown} more (--verbose lists them all)`);
  }
  if (r.unknownKinds.length) {
    lines.push('Record kinds the importer has never seen (kept in the store, hidden; a format change of the tool?):');
    for (const u of r.unknownKinds) lines.push(`  ${o.labels.get(u.tool) ?? u.tool} ${u.version || '(no version)'}: ${u.kind} ×${u.count}`);
  }
  if (r.failed) lines.push(`${r.failed} session${r.failed === 1 ? '' : 's'} could not be written (see the warnings above).`);
  return lines;
}
