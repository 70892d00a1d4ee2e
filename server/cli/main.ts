// The `levelcode-sessions` command: History for people and scripts, on the same core as the
// sidecar. A thin layer: parse arguments, call the core, print. Data goes to stdout (text, or
// JSON with --json); errors go to stderr with a non-zero exit. Modules are loaded lazily per
// command so that a plain History listing starts fast.
// Depends on the core; `serve` hands over to server/rpc.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { readFileSync } from 'node:fs';
import type { StoreError } from '../core/errors.js';
import type { SessionEntry } from '../core/history.js';
import type { Problem } from '../core/reader.js';

export const EXIT = { ok: 0, failure: 1, usage: 2, notFound: 3, locked: 4 } as const;

const USAGE = `levelcode-sessions — chat sessions that survive New Chat, reloads and crashes

Usage:
  levelcode-sessions                         History of the current folder's project
  levelcode-sessions list [--project PATH | --all] [--limit N] [--json]
  levelcode-sessions show ID [--json]        the transcript (Markdown), or its events as JSON
  levelcode-sessions new --project PATH [--model M] [--json]
  levelcode-sessions append ID               append events read as JSON lines on stdin
  levelcode-sessions rename ID TITLE
  levelcode-sessions delete ID               move a session to the OS trash
  levelcode-sessions export ID [--format markdown|json] [-o FILE]
  levelcode-sessions search QUERY [--project PATH | --all] [--since ISO] [--until ISO] [--limit N] [--json]
  levelcode-sessions doctor [--fix] [--json]
  levelcode-sessions import [TOOL|all] [--from PATH] [--dry-run] [--json]
                                             other AI tools' sessions into History (import --help)
  levelcode-sessions serve --stdio | --socket=PORT

Every command takes --dir DIR (the store; default $LEVELCODE_SESSIONS_DIR or ~/.levelcode/sessions).
`;

type Opts = ParseArgsConfig['options'];
const common: Opts = { dir: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } };

export class UsageError extends Error {}

export function parse(args: string[], options: Opts) {
  try {
    return parseArgs({ args, options: { ...common, ...options }, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

const out = (s: string) => process.stdout.write(s.endsWith('\n') ? s : s + '\n');
const err = (s: string) => process.stderr.write(`levelcode-sessions: ${s}\n`);

async function openStore(dir: string | undefined) {
  const { SessionStore, resolveStoreRoot } = await import('../core/store.js');
  return new SessionStore({ root: resolveStoreRoot(dir), agent: 'cli' });
}

function positiveInt(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`--${name} takes a positive whole number, not ${JSON.stringify(v)}`);
  return Number(v);
}

function isoOpt(v: string | undefined, name: string): string | undefined {
  if (v === undefined) return undefined;
  if (Number.isNaN(Date.parse(v))) throw new UsageError(`--${name} takes an ISO date or time, not ${JSON.stringify(v)}`);
  return new Date(Date.parse(v)).toISOString();
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case undefined:
        return await history(rest, true);
      case 'list':
        return await history(rest, false);
      case 'new':
        return await cmdNew(rest);
      case 'append':
        return await cmdAppend(rest);
      case 'show':
        return await cmdShow(rest);
      case 'rename':
        return await cmdRename(rest);
      case 'delete':
        return await cmdDelete(rest);
      case 'export':
        return await cmdExport(rest);
      case 'search':
        return await cmdSearch(rest);
      case 'doctor':
        return await cmdDoctor(rest);
      case 'import':
        return await (await import('./import.js')).cmdImport(rest);
      case 'serve':
        return await cmdServe(rest);
      case 'help':
      case '--help':
      case '-h':
        out(USAGE);
        return EXIT.ok;
      case '--version':
      case 'version':
        out(version());
        return EXIT.ok;
      default:
        if (cmd.startsWith('--')) return await history(argv, true);
        err(`unknown command ${JSON.stringify(cmd)}`);
        process.stderr.write(USAGE);
        return EXIT.usage;
    }
  } catch (e) {
    if (e instanceof UsageError) {
      err(e.message);
      process.stderr.write(`Run 'levelcode-sessions help' for usage.\n`);
      return EXIT.usage;
    }
    const se = e as StoreError;
    if (se && se.name === 'StoreError') {
      err(se.message);
      const data = se.data as { issues?: { path: unknown[]; message: string }[] } | undefined;
      if (se.code === 'invalid-events' && data?.issues)
        for (const iss of data.issues.slice(0, 10)) process.stderr.write(`  at ${iss.path.join('.')}: ${iss.message}\n`);
      if (se.code === 'unknown-session' || se.code === 'bad-id') return EXIT.notFound;
      if (se.code === 'locked') return EXIT.locked;
      return EXIT.failure;
    }
    throw e;
  }
}

/**
 * The version: from the nearest package.json above this file that has one (dist/cli/ is two
 * folders below the repository's; the VS Code extension's bundled sidecar carries its own in
 * dist/sidecar/, one folder up, written by clients/vscode/build.mjs).
 */
export function version(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { version?: unknown };
      if (typeof pkg.version === 'string') return pkg.version;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  throw new Error('no package.json with a version next to the CLI');
}

async function history(args: string[], here: boolean): Promise<number> {
  const { values, positionals } = parse(args, { project: { type: 'string' }, all: { type: 'boolean' }, limit: { type: 'string' } });
  if (values.help) return out(USAGE), EXIT.ok;
  if (positionals.length) throw new UsageError(`list takes no arguments (got ${positionals.join(' ')})`);
  if (values.project && values.all) throw new UsageError('--project and --all exclude each other');
  const limit = positiveInt(values.limit as string | undefined, 'limit');
  const root = (await import('../core/plain.js')).resolveStoreRoot(values.dir as string | undefined);
  const all = !!values.all;
  // `npm start` runs in the package folder; INIT_CWD is where the user typed it.
  const cwd = here && process.env.npm_lifecycle_event === 'start' && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd();
  const project = all ? undefined : ((values.project as string | undefined) ?? cwd);
  let shown: SessionEntry[];
  let problems: Problem[] = [];
  /** Writes history.cache after a listing of the whole store, once its output is printed. */
  let keep: (() => Promise<boolean>) | undefined;
  // The whole store's History, unchanged since it was last listed, is printed from
  // history.cache (core/history-cache.ts): no index is read and no row is made.
  const cache = all ? await import('../core/history-cache.js') : undefined;
  const cached = cache?.readHistoryCache(root);
  if (cached && values.json) {
    process.stdout.write(cached.json(limit));
    return EXIT.ok;
  }
  const rows = cached?.sessions(limit);
  if (rows) shown = rows;
  else {
    // history.js, not store.js: the listing needs no zod and no lock library, and loading them
    // was a third of a warm listing (bench/PERFORMANCE.md). Nor does a cache hit need it.
    // threads: a one-shot process may read with blocking calls, and on two threads (history.ts).
    const listed: { sessions: SessionEntry[]; problems: Problem[]; keep?: () => Promise<boolean> } = cache
      ? await cache.listAndCache(root)
      : await (await import('../core/history.js')).listSessions(root, { project: project && (await absolute(project)) }, undefined, { threads: true });
    ({ problems, keep } = listed);
    shown = limit ? listed.sessions.slice(0, limit) : listed.sessions;
  }
  if (values.json) out(JSON.stringify({ sessions: shown, problems }, null, 2));
  else await printHistory(shown, problems, { root, project, all, here });
  await keep?.();
  return EXIT.ok;
}

async function printHistory(shown: SessionEntry[], problems: Problem[], o: { root: string; project?: string; all: boolean; here: boolean }): Promise<void> {
  for (const p of problems) err(`warning: ${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}`);
  if (shown.length === 0) {
    out(
      o.all
        ? `No sessions in ${o.root} yet.`
        : `No sessions for ${o.project} yet.${o.here ? ' Chats an editor saves for this folder appear here; see all projects with --all.' : ''}`,
    );
    return;
  }
  const { historyLines } = await import('./format.js');
  if (!o.all && o.here) out(`History of ${o.project}`);
  for (const l of historyLines(shown, { showProject: o.all })) out(l);
}

async function absolute(p: string): Promise<string> {
  const { resolve } = await import('node:path');
  return resolve(p);
}

async function cmdNew(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { project: { type: 'string' }, model: { type: 'string' } });
  if (positionals.length) throw new UsageError(`new takes no arguments (got ${positionals.join(' ')})`);
  if (!values.project) throw new UsageError('new needs --project PATH');
  const store = await openStore(values.dir as string | undefined);
  try {
    const meta = await store.create({ project: await absolute(values.project as string), model: values.model as string | undefined });
    out(values.json ? JSON.stringify({ id: meta.id, project: meta.project }) : meta.id);
  } finally {
    await store.releaseAll();
  }
  return EXIT.ok;
}

function oneId(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`${what} takes one session id`);
  return positionals[0];
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function cmdAppend(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {});
  const id = oneId(positionals, 'append');
  const text = await readStdin();
  const events: unknown[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].trim();
    if (!l) continue;
    try {
      events.push(JSON.parse(l));
    } catch (e) {
      err(`stdin line ${i + 1} is not JSON (${(e as Error).message}); nothing was appended`);
      return EXIT.usage;
    }
  }
  if (events.length === 0) {
    err('no events on stdin (expected one JSON object a line); nothing was appended');
    return EXIT.usage;
  }
  const store = await openStore(values.dir as string | undefined);
  try {
    const r = await store.append(id, events);
    if (values.json) out(JSON.stringify(r));
    else out(`appended ${r.appended} event${r.appended === 1 ? '' : 's'} to ${id}`);
  } finally {
    await store.releaseAll();
  }
  return EXIT.ok;
}

async function cmdShow(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {});
  const id = oneId(positionals, 'show');
  const store = await openStore(values.dir as string | undefined);
  const r = await store.read(id);
  for (const p of r.problems) err(`warning: ${p.file}:${p.line}: ${p.message}`);
  if (values.json) {
    const { exportJson } = await import('../core/export.js');
    out(JSON.stringify(exportJson(r.meta, r.events, r.problems), null, 2));
    return EXIT.ok;
  }
  const { renderMarkdown } = await import('../core/export.js');
  out(renderMarkdown(r.meta, r.events));
  return EXIT.ok;
}

async function cmdRename(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {});
  if (positionals.length < 2) throw new UsageError('rename takes a session id and a title');
  const [id, ...words] = positionals;
  const store = await openStore(values.dir as string | undefined);
  try {
    await store.rename(id, words.join(' '));
  } finally {
    await store.releaseAll();
  }
  if (!values.json) out(`renamed ${id}`);
  return EXIT.ok;
}

async function cmdDelete(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {});
  const id = oneId(positionals, 'delete');
  const store = await openStore(values.dir as string | undefined);
  try {
    await store.delete(id);
  } finally {
    await store.releaseAll();
  }
  out(`moved ${id} to the trash`);
  return EXIT.ok;
}

async function cmdExport(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { format: { type: 'string' }, output: { type: 'string', short: 'o' } });
  const id = oneId(positionals, 'export');
  const format = (values.format as string | undefined) ?? 'markdown';
  if (format !== 'markdown' && format !== 'json') throw new UsageError(`--format is markdown or json, not ${JSON.stringify(format)}`);
  const store = await openStore(values.dir as string | undefined);
  const r = await store.read(id);
  for (const p of r.problems) err(`warning: ${p.file}:${p.line}: ${p.message}`);
  const { renderMarkdown, exportJson } = await import('../core/export.js');
  const text = format === 'markdown' ? renderMarkdown(r.meta, r.events) : JSON.stringify(exportJson(r.meta, r.events, r.problems), null, 2) + '\n';
  if (values.output) {
    const { writeFile } = await import('node:fs/promises');
    try {
      await writeFile(values.output as string, text, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      err(code === 'EEXIST' ? `${values.output} exists; not overwritten` : `cannot write ${values.output} (${code ?? (e as Error).message})`);
      return EXIT.failure;
    }
    out(`wrote ${values.output}`);
  } else out(text);
  return EXIT.ok;
}

async function cmdSearch(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    project: { type: 'string' },
    all: { type: 'boolean' },
    since: { type: 'string' },
    until: { type: 'string' },
    limit: { type: 'string' },
  });
  if (positionals.length === 0) throw new UsageError('search needs a query');
  if (values.project && values.all) throw new UsageError('--project and --all exclude each other');
  const query = positionals.join(' ');
  const limit = positiveInt(values.limit as string | undefined, 'limit') ?? 50;
  const since = isoOpt(values.since as string | undefined, 'since');
  const until = isoOpt(values.until as string | undefined, 'until');
  // history.js, not store.js, as for list: search needs no zod and no lock library.
  const { realProjectPath, resolveStoreRoot } = await import('../core/history.js');
  const root = resolveStoreRoot(values.dir as string | undefined);
  const project = values.all ? undefined : await realProjectPath(await absolute((values.project as string | undefined) ?? process.cwd()), false);
  const { searchSessions } = await import('../core/search.js');
  // On a terminal, a line on stderr while it takes long (the first search builds the indexes).
  const progress = process.stderr.isTTY ? (await import('./format.js')).progressLine((s) => process.stderr.write(s), 'searching sessions') : undefined;
  let r;
  try {
    r = await searchSessions(root, query, { project, since, until, limit, onProgress: progress?.update });
  } finally {
    progress?.end();
  }
  if (values.json) {
    out(JSON.stringify(r, null, 2));
    return EXIT.ok;
  }
  if (r.hits.length === 0) {
    out(`No matches for ${query}${project ? ` in ${project}` : ''}.`);
    return EXIT.ok;
  }
  for (const h of r.hits) out(`${h.sessionId}  #${h.seq} ${h.where}  ${h.title}\n    ${h.snippet.replace(/\s+/g, ' ')}`);
  return EXIT.ok;
}

async function cmdDoctor(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { fix: { type: 'boolean' } });
  if (positionals.length) throw new UsageError('doctor takes no arguments');
  const { resolveStoreRoot } = await import('../core/store.js');
  const { doctor, severity } = await import('../core/doctor.js');
  const report = await doctor(resolveStoreRoot(values.dir as string | undefined), { fix: !!values.fix });
  if (values.json) out(JSON.stringify(report, null, 2));
  else {
    out(`Store ${report.root}: ${report.projects} project${report.projects === 1 ? '' : 's'}, ${report.sessions} session${report.sessions === 1 ? '' : 's'}`);
    for (const f of report.findings)
      out(`${severity(f)}: ${f.kind}: ${f.path}${f.line ? `:${f.line}` : ''}: ${f.message}${f.fixed ? ` (fixed: ${f.fixed})` : ''}`);
    if (report.findings.length === 0) out('No problems found.');
    else if (!report.ok && !values.fix) out(`Run 'levelcode-sessions doctor --fix' to repair caches, locks and permissions (session content is never changed).`);
  }
  return report.ok ? EXIT.ok : EXIT.failure;
}

async function cmdServe(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    stdio: { type: 'boolean' },
    socket: { type: 'string' },
    // Accepted for LSP client compatibility (vscode-languageclient passes --clientProcessId).
    clientProcessId: { type: 'string' },
    'node-ipc': { type: 'boolean' },
  });
  if (positionals.length) throw new UsageError(`serve takes no arguments (got ${positionals.join(' ')})`);
  if (values['node-ipc']) throw new UsageError('--node-ipc is not supported; use --stdio or --socket=PORT');
  const socket = values.socket === undefined ? undefined : Number(values.socket);
  if (socket !== undefined && !(Number.isInteger(socket) && socket > 0 && socket < 65536))
    throw new UsageError(`--socket takes a port number, not ${JSON.stringify(values.socket)}`);
  if (!values.stdio && socket === undefined) throw new UsageError('serve needs --stdio or --socket=PORT');
  const { serve } = await import('../rpc/server.js');
  const clientPid = values.clientProcessId === undefined ? undefined : Number(values.clientProcessId);
  if (clientPid !== undefined && !(Number.isInteger(clientPid) && clientPid > 0))
    throw new UsageError(`--clientProcessId takes a process id, not ${JSON.stringify(values.clientProcessId)}`);
  return serve({ stdio: !!values.stdio, socket, dir: values.dir as string | undefined, clientProcessId: clientPid });
}
