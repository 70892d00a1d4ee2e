// The `levelcode-sessions` command: History for people and scripts, on the same core as the
// sidecar. A thin layer: parse arguments, call the core, print. Data goes to stdout (text, or
// JSON with --json); errors go to stderr with a non-zero exit. Modules are loaded lazily per
// command so that a plain History listing starts fast.
// Depends on the core; `serve` hands over to server/rpc.

import { fileURLToPath } from 'node:url';
import { readRegularTextSync } from '../store/files.js';
import { printableText } from '../format/printable.js';
import { join, sep } from 'node:path';
import type { StoreError } from '../store/errors.js';
import type { SessionEntry } from '../listing/history.js';
import type { Problem } from '../store/reader.js';
import { EXIT, UsageError, isoOpt, parse, positiveInt } from './args.js';
import { HANDOFF_IDS } from '../import/tools.js';

const USAGE = `levelcode-sessions — chat sessions that survive New Chat, reloads and crashes

Usage:
  levelcode-sessions                         History of the current folder's project
  levelcode-sessions list [--project PATH | --all] [--archived] [--limit N] [--json]
  levelcode-sessions show ID [--json]        the transcript (Markdown), or its events as JSON
  levelcode-sessions new [--project PATH] [--model M] [--json]
  levelcode-sessions append ID [--json]      append events read as JSON lines on stdin
  levelcode-sessions rename ID TITLE [--json]
  levelcode-sessions delete ID [--json]      move a session to the OS trash
  levelcode-sessions restore ID [--json]     bring a deleted session back from the trash
  levelcode-sessions fork ID [--at TURN] [--project PATH] [--json]   turns 1 to TURN of ID, a new session
  levelcode-sessions relink OLD NEW [--dry-run] [--json]   folder OLD's sessions become NEW's
  levelcode-sessions pin ID | unpin ID [--json]          first in its project's History, or not
  levelcode-sessions archive ID | unarchive ID [--json]  out of History (still searched), or back
  levelcode-sessions retention [--dry-run] [--delete] [--idle-days N] [--keep N] [--max-age DAYS]
                                             [--project PATH | --all] [--json]
  levelcode-sessions export ID [--format markdown|json] [-o FILE [--force]]
  levelcode-sessions search QUERY [--project PATH | --all] [--since ISO] [--until ISO] [--limit N] [--json]
                                             ranked; QUERY takes "phrases", -word, tool: project: since: role:
  levelcode-sessions doctor [--fix] [--json]
  levelcode-sessions import [TOOL|all] [--from PATH] [--dry-run] [--json]
                                             other AI tools' sessions into History (import --help)
  levelcode-sessions sync init [--apply] | sync status   History on every device through Syncthing
  levelcode-sessions handoff ID --to ${HANDOFF_IDS.join('|')} [--dry-run] [--json]
                                             continue a session in an agent CLI (a new session of its own)
  levelcode-sessions serve --stdio | --socket=PORT
  levelcode-sessions mcp [--project PATH]       MCP server over stdio: past sessions as tools for agents
  levelcode-sessions acp [--name NAME] -- AGENT [ARGS…]
                                             an ACP agent behind a recording proxy (acp --help)
  levelcode-sessions --version | --help      COMMAND --help: that command's help

Every command takes --dir DIR (the store; default $LEVELCODE_SESSIONS_DIR or ~/.levelcode/sessions);
--project defaults to the current folder. Exit codes: 0 done, 1 failure (for search: no match),
2 usage (for search: also a file or folder it could not read), 3 unknown session, 4 locked by another window.
`;

/** Each command's help: `levelcode-sessions COMMAND --help`. */
const HELP: Record<string, string> = {
  list: `Usage: levelcode-sessions list [--project PATH | --all] [--archived] [--limit N] [--json]

The History: one line a session, pinned first, then newest first (title, relative time, turns,
model, id). Archived sessions are left out.
  --project PATH   that project's sessions (default: the current folder's)
  --all            every project's, each line naming its project
  --archived       the archived sessions instead
  --limit N        the newest N only
  --json           {"sessions": [...], "problems": [...]} for scripts
A file or folder of the store that cannot be read is reported with its path on stderr, and the
exit code is 1 (what could be read is still listed).`,
  show: `Usage: levelcode-sessions show ID [--json]

The transcript of session ID as Markdown; --json: its meta line, events and problems.`,
  new: `Usage: levelcode-sessions new [--project PATH] [--model M] [--json]

Creates a session and prints its id.
  --project PATH   the project it belongs to (default: the current folder)
  --model M        the model it talks to
  --json           {"id", "project"}`,
  append: `Usage: levelcode-sessions append ID [--json] < events.jsonl

Appends the events read on stdin, one JSON object a line, e.g.
  {"kind":"user","content":"hello"}
All or nothing: an invalid line is reported by its line number and nothing is appended.
  --json           {"appended", "lines"}`,
  rename: `Usage: levelcode-sessions rename ID TITLE [--json]

Gives session ID a title (the words after the id, joined by spaces).`,
  delete: `Usage: levelcode-sessions delete ID [--json]

Moves session ID's file to the OS trash (it is never unlinked).`,
  restore: `Usage: levelcode-sessions restore ID [--json]

Brings session ID back from the OS trash (where delete moved it) to its place in the store,
listed and resumable as before. Linux: the freedesktop trash ($XDG_DATA_HOME/Trash, and the
store's file system's .Trash-UID); refused, changing nothing, when a file is at its place now.
macOS and Windows: their trash cannot be searched; restore says so.
  --json           {"id", "project", "path", "trashed"}`,
  fork: `Usage: levelcode-sessions fork ID [--at TURN] [--project PATH] [--json]

A new session holding session ID's turns 1 to TURN (turns as History counts them), with the
tool results of turn TURN; without --at, every event (a copy). It records its parent and TURN.
  --project PATH   the folder it belongs to (default: ID's; needed when ID's folder moved)
  --json           {"id", "project", "forkedFrom", "turn", "copied"}`,
  relink: `Usage: levelcode-sessions relink OLD NEW [--dry-run] [--json]

The sessions recorded for folder OLD (moved or renamed to NEW) become NEW's: their files move,
unchanged, to NEW's folder of the store, listed there "moved from OLD". Refused while one of
them is open in another window.
  --dry-run        say which sessions would move; move nothing
  --json           {"from", "to", "dryRun", "sessions": [{"id", "title", "project"}]}`,
  pin: `Usage: levelcode-sessions pin ID [--json]

Pins session ID: it is listed first in its project's History (a pin event is appended).
  --json           {"id", "pinned", "changed"} (changed: false when it was pinned already)`,
  unpin: `Usage: levelcode-sessions unpin ID [--json]

Unpins session ID (an unpin event is appended).`,
  archive: `Usage: levelcode-sessions archive ID [--json]

Archives session ID: out of History, still found by search, listed by 'list --archived'
(an archive event is appended; nothing is deleted).
  --json           {"id", "archived", "changed"}`,
  unarchive: `Usage: levelcode-sessions unarchive ID [--json]

Brings archived session ID back to History (an unarchive event is appended).`,
  retention: `Usage: levelcode-sessions retention [--dry-run] [--delete] [--idle-days N|off] [--keep N] [--max-age DAYS]
                                [--project PATH | --all] [--json]

Applies the retention rules to every project's sessions (or one project's), counting from each
session's last message (or its last unarchive). Pinned sessions never fall out.
  --idle-days N    archive sessions idle N days (default 30, or $LEVELCODE_SESSIONS_AUTO_ARCHIVE_DAYS;
                   off or 0: never)
  --keep N         keep the newest N sessions per project (default $LEVELCODE_SESSIONS_KEEP, else all)
  --max-age DAYS   keep sessions active within DAYS (default $LEVELCODE_SESSIONS_MAX_AGE_DAYS, else all)
  --delete         move what --keep and --max-age let go to the OS trash instead of archiving it
  --dry-run        print what would be done, and do nothing
  --json           {"dryRun", "settings", "done", "skipped"}
What falls out is archived (an archive event with auto: true; 'unarchive' brings it back).
Prints each session it archived or deleted; a session live in another window is skipped, and said so.`,
  export: `Usage: levelcode-sessions export ID [--format markdown|json] [-o FILE [--force]]

Writes session ID as Markdown (the default) or JSON, to stdout or to FILE.
  -o, --output FILE   write there; an existing FILE is kept unless --force
  --force             overwrite FILE
  --json              the same as --format json`,
  search: `Usage: levelcode-sessions search QUERY [--project PATH | --all] [--since ISO] [--until ISO] [--limit N] [--cursor C] [--json]

Finds the sessions that hold every word of QUERY, in any order, in any of their messages, best
first (BM25, a title and a recency boost), each with its best matches cited as ID#TURN.
  redis refund       every word, as whole words, case and accents ignored
  idempot*           a word's prefix
  "exact phrase"     words next to each other, in this order
  -word              leave out the sessions holding it
  tool:NAME          sessions imported from that tool (levelcode: our own)
  project:PATH       a project (its path, or the last parts of it)
  since:DATE until:DATE   only messages of that time span
  role:user|assistant|tool|title|compact   only those messages
  --project PATH   that project's sessions (default: the current folder's)
  --all            every project's
  --since, --until ISO   as since: and until:
  --limit N        at most N sessions (default 20); --cursor C the next ones
  --json           {"sessions", "hits", "total", "files", "cursor", "ranked", "problems"}
The first search of a store builds its search cache (a progress bar on a terminal).
Exit codes: 0 a match, 1 none, 2 a bad query or a file or folder that could not be read.`,
  doctor: `Usage: levelcode-sessions doctor [--fix] [--json]

Checks the store: unreadable files and folders, torn or unreadable lines, caches, stale locks,
modes, schema versions and leftovers. --fix mends what the owner can (caches, locks, leftovers,
modes), never a session's content, and says what it could not mend. Exit code 1 while a problem
remains.`,
  serve: `Usage: levelcode-sessions serve --stdio | --socket=PORT [--dir DIR]

The sidecar: JSON-RPC with LSP framing, over stdio or a socket to 127.0.0.1:PORT (protocol.md).`,
  mcp: `Usage: levelcode-sessions mcp [--project PATH] [--dir DIR]

A Model Context Protocol server over stdio: past sessions as read-only tools for agents
(search_sessions, recall, read_session, list_sessions, list_projects; server/mcp/README.md).
  --project PATH   the project a call without \`project\` covers (default: all)
Set LEVELCODE_CURRENT_SESSION to the agent's own session id to leave it out of results.`,
};

// Printing is a boundary (format/printable.ts): whatever reaches the terminal has its control and
// bidi characters escaped; JSON stays valid JSON (they become \uXXXX escapes).
const out = (s: string) => outRaw(printableText(s));
/** For lines already made printable field by field (search's, with their own colour codes). */
const outRaw = (s: string) => process.stdout.write(s.endsWith('\n') ? s : s + '\n');
const err = (s: string) => process.stderr.write(`levelcode-sessions: ${printableText(s)}\n`);

async function openStore(dir: string | undefined) {
  const [{ SessionStore }, { resolveStoreRoot }] = await Promise.all([import('../store/store.js'), import('../store/files.js')]);
  return new SessionStore({ root: resolveStoreRoot(dir), agent: 'cli' });
}

/** Output piped into `head` or a pager that quits: end quietly, as a Unix filter does. */
function quietOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
      throw e;
    });
}

/** `COMMAND --help` (or -h) before any `--`: that command's help, whatever else is given. */
function wantsHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd !== 'serve') quietOnClosedPipe(); // the sidecar handles its own pipes (rpc/server.ts)
  if (cmd && HELP[cmd] && wantsHelp(rest)) return (out(HELP[cmd]), EXIT.ok);
  try {
    if (SETTLES.has(cmd) && !wantsHelp(rest)) await settleFirst(cmd === undefined || cmd.startsWith('--') ? argv : rest);
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
      case 'restore':
        return await cmdRestore(rest);
      case 'fork':
        return await cmdFork(rest);
      case 'relink':
        return await cmdRelink(rest);
      case 'pin':
      case 'unpin':
      case 'archive':
      case 'unarchive':
        return await cmdLifecycle(cmd, rest);
      case 'retention':
        return await cmdRetention(rest);
      case 'export':
        return await cmdExport(rest);
      case 'search':
        return await cmdSearch(rest);
      case 'doctor':
        return await cmdDoctor(rest);
      case 'import':
        return await (await import('./import.js')).cmdImport(rest);
      case 'sync':
        return await (await import('./sync.js')).cmdSync(rest);
      case 'handoff':
        return await (await import('./handoff.js')).cmdHandoff(rest);
      case 'serve':
        return await cmdServe(rest);
      case 'mcp':
        return await cmdMcp(rest);
      case 'acp':
        return await (await import('./acp.js')).cmdAcp(rest);
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
        // The first issue is the message itself (store.ts validateBatch): each said once.
        for (const iss of data.issues.slice(1, 10)) process.stderr.write(`  at ${iss.path.join('.')}: ${iss.message}\n`);
      if (se.code === 'unknown-session' || se.code === 'bad-id') return EXIT.notFound;
      if (se.code === 'locked') return EXIT.locked;
      return EXIT.failure;
    }
    throw e;
  }
}

/** The commands that read or write sessions: a synced store's conflict copies are resolved first. */
const SETTLES = new Set<string | undefined>([
  undefined,
  'list',
  'new',
  'append',
  'show',
  'rename',
  'delete',
  'restore',
  'fork',
  'pin',
  'unpin',
  'archive',
  'unarchive',
  'export',
  'search',
]);

/**
 * Resolves a synced store's Syncthing conflict copies (cli/sync.ts) before the command reads
 * it: a `.stignore` in the store says it is synced; without one this is a single stat.
 */
async function settleFirst(args: string[]): Promise<void> {
  let dir: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') break;
    if (args[i] === '--dir') dir = args[i + 1];
    else if (args[i]!.startsWith('--dir=')) dir = args[i]!.slice(6);
  }
  const { resolveStoreRoot } = await import('../store/files.js');
  const root = resolveStoreRoot(dir);
  const { existsSync } = await import('node:fs');
  if (!existsSync(join(root, '.stignore'))) return;
  await (await import('./sync.js')).settleConflicts(root);
}

/**
 * The version: from the nearest package.json above this file that has one (dist/cli/ is two
 * folders below the repository's; the VS Code extension's bundled sidecar carries its own in
 * dist/sidecar/, one folder up, written by clients/vscode/build.mjs).
 */
export function version(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readRegularTextSync(fileURLToPath(new URL(rel, import.meta.url)))) as { version?: unknown };
      if (typeof pkg.version === 'string') return pkg.version;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  throw new Error('no package.json with a version next to the CLI');
}

async function history(args: string[], here: boolean): Promise<number> {
  const { values, positionals } = parse(args, {
    project: { type: 'string' },
    all: { type: 'boolean' },
    limit: { type: 'string' },
    archived: { type: 'boolean' },
  });
  if (values.help) return (out(here ? USAGE : HELP.list!), EXIT.ok);
  if (positionals.length) throw new UsageError(`list takes no arguments (got ${positionals.join(' ')})`);
  if (values.project && values.all) throw new UsageError('--project and --all exclude each other');
  const limit = positiveInt(values.limit as string | undefined, 'limit');
  const root = (await import('../store/files.js')).resolveStoreRoot(values.dir as string | undefined);
  const all = !!values.all;
  // `npm start` runs in the package folder; INIT_CWD is where the user typed it.
  const cwd = here && process.env.npm_lifecycle_event === 'start' && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd();
  const project = all ? undefined : ((values.project as string | undefined) ?? cwd);
  // The whole History as JSON, the text of the last one when nothing changed since (history-cache.ts).
  const cache = all && values.json && !limit && !values.archived ? await import('../listing/history-cache.js') : undefined;
  const format = cache ? cache.cacheFormat(version()) : '';
  const hit = cache?.cachedHistory(root, format);
  if (hit) return (process.stdout.write(hit), EXIT.ok);
  const snap = cache?.snapshot(root);
  // A cold `--all --limit N` as text shows its page before reading the rest (first-page.ts);
  // --json is always the complete listing (scripts read it).
  const now = new Date();
  const early = all && limit && !values.json ? await earlyPage(limit, !!values.archived, now) : undefined;
  // history.js, not store.js: the listing needs no zod and no lock library (bench/PERFORMANCE.md).
  // threads: a one-shot process may read with blocking calls, and on two threads (history.ts).
  const listed = await (await import('../listing/history.js')).listSessions(
    root,
    { project: project && (await absolute(project)) },
    undefined,
    { threads: true, ...(early ? { firstPage: early.ask } : {}) },
  );
  const problems: Problem[] = listed.problems;
  // Pinned first; archived sessions only with --archived (lifecycle.ts, no zod either).
  const rows = (await import('../listing/lifecycle.js')).arrange(listed.sessions, { archived: !!values.archived });
  const shown: SessionEntry[] = limit ? rows.slice(0, limit) : rows;
  const unreadable = shownProblems(problems).filter(cannotRead);
  if (values.json) {
    const text = printableText(`${JSON.stringify({ sessions: shown, problems }, null, 2)}\n`);
    out(text);
    if (snap && problems.length === 0) cache!.keepHistory(snap, format, text);
  } else if (early?.printed) await early.settle(shown, problems);
  else await printHistory(shown, problems, { root, project, all, here, now });
  if (unreadable.length === 0) return EXIT.ok;
  if (!values.json)
    err(
      `${unreadable.length} file${unreadable.length === 1 ? '' : 's'} or folder${unreadable.length === 1 ? '' : 's'} of the store could not be read: this History is incomplete ('levelcode-sessions doctor' says what can be mended)`,
    );
  return EXIT.failure;
}

/**
 * A problem that is a file or folder of the store that could not be read (not bad content in a
 * file that was read): the listing is then incomplete, and the command fails.
 */
function cannotRead(p: Problem): boolean {
  return /\b(EACCES|EPERM|EIO|ELOOP|ENOTDIR|EMFILE|ENFILE)\b|permission denied/i.test(p.message);
}

/**
 * The problems as a person reads them: a folder that could not be read once, not again for
 * each cache inside it.
 */
function shownProblems(problems: Problem[]): Problem[] {
  const shut = problems.filter((p) => /cannot read folder/.test(p.message)).map((p) => p.file + sep);
  return problems.filter((p) => !shut.some((d) => p.file.startsWith(d)));
}

/**
 * `list --all --limit N` on a cold store: the page is printed as soon as it is known (listing/
 * first-page.ts, from a first look at the newest files: store/entries.ts firstLookReader), then
 * the listing completes (every file read and checked, every index written) and `settle`
 * compares, row by row as printed: rows only the whole store could place (a pinned session
 * further back, a file whose mtime is older than its last message), or a row the checked read
 * gives otherwise (a line the first look took for valid), are named on stderr in one line with
 * the command that shows the exact page.
 */
async function earlyPage(limit: number, archived: boolean, now: Date) {
  const { historyLines } = await import('./format.js');
  const lines = (rows: SessionEntry[]) => historyLines(rows, { showProject: true, now });
  /** A row as printed, alone (no column padding from the other rows), after its id. */
  const rowKey = (r: SessionEntry): string => `${r.id} ${lines([r])[0]}`;
  const early = {
    printed: undefined as string[] | undefined,
    keys: [] as string[],
    ask: {
      limit,
      archived,
      show: (rows: SessionEntry[]) => {
        if (rows.length === 0) return; // nothing to show early: the complete listing says what there is
        early.printed = lines(rows);
        early.keys = rows.map(rowKey);
        for (const l of early.printed) out(l);
      },
    },
    settle: async (shown: SessionEntry[], problems: Problem[]) => {
      printProblems(problems);
      const keys = shown.map(rowKey);
      if (keys.join('\n') === early.keys.join('\n')) return;
      const late = shown.filter((r) => !early.keys.some((k) => k.startsWith(`${r.id} `))).length;
      const changed = keys.filter((k, i) => !early.keys.includes(k) && early.keys.some((p) => p.startsWith(`${shown[i]!.id} `))).length;
      const rows = (n: number, was: string) =>
        n === 1 ? `1 row of this page ${was}` : `${n || 'Some'} rows of this page ${was.replace('was', 'were')}`;
      err(
        `${
          late || !changed
            ? rows(late, 'was found only after it was printed (a pinned session, or a file dated before its last message)')
            : rows(changed, 'was read otherwise once every file was checked (a line the first look could not judge)')
        }; run 'levelcode-sessions ${process.argv.slice(2).map(shellWord).join(' ')}' again for the exact page`,
      );
    },
  };
  return early;
}

/** An argument as a POSIX shell reads it back. */
const shellWord = (a: string): string => (/^[\w./=:@%+-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);

function printProblems(problems: Problem[]): void {
  for (const p of shownProblems(problems))
    err(`${cannotRead(p) ? 'error' : 'warning'}: ${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}`);
}

async function printHistory(
  shown: SessionEntry[],
  problems: Problem[],
  o: { root: string; project?: string; all: boolean; here: boolean; now?: Date },
): Promise<void> {
  printProblems(problems);
  if (shown.length === 0) {
    if (problems.some(cannotRead)) return; // not "no sessions": they could not be read
    out(
      o.all
        ? `No sessions in ${o.root} yet.`
        : `No sessions for ${o.project} yet.${o.here ? ' Chats an editor saves for this folder appear here; see all projects with --all.' : ''}`,
    );
    return;
  }
  const { historyLines } = await import('./format.js');
  if (!o.all && o.here) out(`History of ${o.project}`);
  for (const l of historyLines(shown, { showProject: o.all, now: o.now })) out(l);
}

async function absolute(p: string): Promise<string> {
  const { resolve } = await import('node:path');
  return resolve(p);
}

async function cmdNew(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { project: { type: 'string' }, model: { type: 'string' } });
  if (positionals.length) throw new UsageError(`new takes no arguments (got ${positionals.join(' ')})`);
  const store = await openStore(values.dir as string | undefined);
  try {
    // The current folder's project by default, as every other command has it.
    const meta = await store.create({
      project: await absolute((values.project as string | undefined) ?? process.cwd()),
      model: values.model as string | undefined,
    });
    out(values.json ? JSON.stringify({ id: meta.id, project: meta.project }) : meta.id);
  } finally {
    await store.releaseAll();
  }
  return EXIT.ok;
}

function oneId(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`${what} takes one session id`);
  return positionals[0]!;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function cmdAppend(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {});
  const id = oneId(positionals, 'append');
  if (process.stdin.isTTY)
    process.stderr.write('Reading events from stdin, one JSON object a line; end with Ctrl-D (Ctrl-C: nothing is appended).\n');
  const text = await readStdin();
  const events: unknown[] = [];
  /** The stdin line of each event (1-based), to report an invalid one where the user sees it. */
  const lineOf: number[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.trim();
    if (!l) continue;
    try {
      events.push(JSON.parse(l));
      lineOf.push(i + 1);
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
  } catch (e) {
    const se = e as StoreError;
    const issues =
      (se?.name === 'StoreError' &&
        se.code === 'invalid-events' &&
        (se.data as { issues?: { path: (string | number)[]; message: string }[] } | undefined)?.issues) ||
      undefined;
    if (!issues?.length) throw e;
    // Each invalid line once, by its stdin line number, with what is wrong in it.
    const byLine = new Map<number, string[]>();
    for (const iss of issues) {
      const [at, ...path] = iss.path;
      const line = typeof at === 'number' ? (lineOf[at] ?? at + 1) : 0;
      byLine.set(line, [...(byLine.get(line) ?? []), `${path.length ? `${path.join('.')}: ` : ''}${iss.message}`]);
    }
    for (const [line, what] of [...byLine].slice(0, 10)) err(`stdin line ${line}: ${what.join('; ')}`);
    err(`nothing was appended (${byLine.size} invalid line${byLine.size === 1 ? '' : 's'})`);
    return EXIT.usage;
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
    const { exportJson } = await import('../export/export.js');
    out(JSON.stringify(exportJson(r.meta, r.events, r.problems), null, 2));
    return EXIT.ok;
  }
  const { renderMarkdown } = await import('../export/export.js');
  out(renderMarkdown(r.meta, r.events));
  return EXIT.ok;
}

async function cmdRename(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {});
  if (positionals.length < 2) throw new UsageError('rename takes a session id and a title');
  const [id, ...words] = positionals;
  const store = await openStore(values.dir as string | undefined);
  try {
    await store.rename(id!, words.join(' '));
  } finally {
    await store.releaseAll();
  }
  out(values.json ? JSON.stringify({ id, title: words.join(' ').replace(/\s+/g, ' ').trim() }) : `renamed ${id}`);
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
  out(values.json ? JSON.stringify({ id, trashed: true }) : `moved ${id} to the trash`);
  return EXIT.ok;
}

// ---- restore, fork, relink ------------------------------------------------------------------

async function cmdRestore(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {});
  const id = oneId(positionals, 'restore');
  const store = await openStore(values.dir as string | undefined);
  const r = await store.restore(id);
  out(values.json ? JSON.stringify({ id, ...r }) : `restored ${id} to ${r.path}`);
  return EXIT.ok;
}

async function cmdFork(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { at: { type: 'string' }, project: { type: 'string' } });
  const id = oneId(positionals, 'fork');
  const atTurn = positiveInt(values.at as string | undefined, 'at');
  const store = await openStore(values.dir as string | undefined);
  try {
    const { forkSession } = await import('../store/fork.js');
    const project = values.project === undefined ? undefined : await store.realProject(await absolute(values.project as string), true);
    const f = await forkSession(store, id, { atTurn, project });
    for (const p of f.problems) err(`warning: ${p.file}:${p.line}: ${p.message}`);
    out(
      values.json
        ? JSON.stringify({ id: f.meta.id, project: f.meta.project, forkedFrom: f.forkedFrom, turn: f.turn, copied: f.copied })
        : f.meta.id,
    );
  } finally {
    await store.releaseAll();
  }
  return EXIT.ok;
}

async function cmdRelink(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { 'dry-run': { type: 'boolean' } });
  if (positionals.length !== 2) throw new UsageError('relink takes two folders: OLD NEW');
  const store = await openStore(values.dir as string | undefined);
  const { relinkProject } = await import('../maintenance/relink.js');
  const r = await relinkProject(store, await absolute(positionals[0]!), await absolute(positionals[1]!), { dryRun: !!values['dry-run'] });
  if (values.json) out(JSON.stringify(r, null, 2));
  else {
    const n = `${r.sessions.length} session${r.sessions.length === 1 ? '' : 's'}`;
    out(r.dryRun ? `would move ${n} of ${r.from} to ${r.to}:` : `moved ${n} of ${r.from} to ${r.to}`);
    if (r.dryRun) for (const x of r.sessions) out(`  ${x.id}  ${x.title}`);
  }
  return EXIT.ok;
}

// ---- Pins, archive, retention (lifecycle.ts, retention.ts) ------------------------------------

/** pin, unpin, archive, unarchive: one event appended (none when the session is so already). */
async function cmdLifecycle(cmd: 'pin' | 'unpin' | 'archive' | 'unarchive', args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {});
  const id = oneId(positionals, cmd);
  const on = cmd === 'pin' || cmd === 'archive';
  const store = await openStore(values.dir as string | undefined);
  let changed;
  try {
    const { setPinned, setArchived } = await import('../listing/lifecycle.js');
    changed = cmd === 'pin' || cmd === 'unpin' ? await setPinned(store, id, on) : await setArchived(store, id, on);
  } finally {
    await store.releaseAll();
  }
  const field = cmd === 'pin' || cmd === 'unpin' ? 'pinned' : 'archived';
  if (values.json) out(JSON.stringify({ id, [field]: on, changed }));
  else
    out(
      changed
        ? `${cmd === 'unpin' ? 'unpinned' : cmd === 'pin' ? 'pinned' : `${cmd}d`} ${id}`
        : `${id} is ${on ? '' : 'not '}${field} already`,
    );
  return EXIT.ok;
}

/** A number of days (or a count) from a flag or its environment variable; `off` is 0. */
function ruleOpt(v: string | undefined, env: string, name: string): number | undefined {
  const raw = v ?? process.env[env];
  if (raw === undefined || raw === '') return undefined;
  if (raw !== 'off' && !/^\d+$/.test(raw))
    throw new UsageError(`--${name} (or ${env}) takes a whole number or off, not ${JSON.stringify(raw)}`);
  return raw === 'off' ? 0 : Number(raw);
}

async function cmdRetention(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    'dry-run': { type: 'boolean' },
    delete: { type: 'boolean' },
    'idle-days': { type: 'string' },
    keep: { type: 'string' },
    'max-age': { type: 'string' },
    project: { type: 'string' },
    all: { type: 'boolean' },
  });
  if (positionals.length) throw new UsageError(`retention takes no arguments (got ${positionals.join(' ')})`);
  if (values.project && values.all) throw new UsageError('--project and --all exclude each other');
  const { runRetention, ruleValue, DEFAULT_IDLE_DAYS } = await import('../listing/retention.js');
  const settings = {
    idleDays: ruleValue(
      ruleOpt(values['idle-days'] as string | undefined, 'LEVELCODE_SESSIONS_AUTO_ARCHIVE_DAYS', 'idle-days'),
      DEFAULT_IDLE_DAYS,
    ),
    keep: ruleValue(ruleOpt(values.keep as string | undefined, 'LEVELCODE_SESSIONS_KEEP', 'keep'), null),
    maxAgeDays: ruleValue(ruleOpt(values['max-age'] as string | undefined, 'LEVELCODE_SESSIONS_MAX_AGE_DAYS', 'max-age'), null),
    delete: !!values.delete,
  };
  const store = await openStore(values.dir as string | undefined);
  const scope = values.project ? { project: await store.realProject(await absolute(values.project as string), false) } : { all: true };
  let r;
  try {
    const { History } = await import('../listing/history.js');
    r = await runRetention(new History(store), { scope, settings, dryRun: !!values['dry-run'] });
  } finally {
    await store.releaseAll();
  }
  if (values.json) out(JSON.stringify(r, null, 2));
  else {
    const { retentionLines } = await import('./format.js');
    for (const l of retentionLines(r)) out(l);
  }
  return r.skipped.some((i) => !/window|newer schema/.test(i.skipped ?? '')) ? EXIT.failure : EXIT.ok;
}

async function cmdExport(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    format: { type: 'string' },
    output: { type: 'string', short: 'o' },
    force: { type: 'boolean' },
  });
  const id = oneId(positionals, 'export');
  if (values.json && values.format !== undefined && values.format !== 'json')
    throw new UsageError(`--json is --format json; it excludes --format ${values.format}`);
  if (values.force && !values.output) throw new UsageError('--force goes with -o FILE');
  const format = (values.format as string | undefined) ?? (values.json ? 'json' : 'markdown');
  if (format !== 'markdown' && format !== 'json') throw new UsageError(`--format is markdown or json, not ${JSON.stringify(format)}`);
  const store = await openStore(values.dir as string | undefined);
  const r = await store.read(id);
  for (const p of r.problems) err(`warning: ${p.file}:${p.line}: ${p.message}`);
  const { renderMarkdown, exportJson } = await import('../export/export.js');
  const text =
    format === 'markdown' ? renderMarkdown(r.meta, r.events) : JSON.stringify(exportJson(r.meta, r.events, r.problems), null, 2) + '\n';
  if (values.output) {
    const { writeFile } = await import('node:fs/promises');
    try {
      await writeFile(values.output as string, text, { mode: 0o600, flag: values.force ? 'w' : 'wx' });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      err(
        code === 'EEXIST'
          ? `${values.output} exists; not overwritten (add --force to overwrite it)`
          : `cannot write ${values.output} (${code ?? (e as Error).message})`,
      );
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
    cursor: { type: 'string' },
  });
  if (positionals.length === 0) throw new UsageError('search needs a query');
  if (values.project && values.all) throw new UsageError('--project and --all exclude each other');
  const query = positionals.join(' ');
  const limit = positiveInt(values.limit as string | undefined, 'limit') ?? 20;
  const since = isoOpt(values.since as string | undefined, 'since');
  const until = isoOpt(values.until as string | undefined, 'until');
  // history.js, not store.js, as for list: search needs no zod and no lock library.
  const { realProjectPath, resolveStoreRoot } = await import('../store/files.js');
  const { projectSessionFiles } = await import('../listing/history.js');
  const root = resolveStoreRoot(values.dir as string | undefined);
  const project = values.all
    ? undefined
    : await realProjectPath(await absolute((values.project as string | undefined) ?? process.cwd()), false);
  const { searchSessions, QueryError } = await import('../search/search.js');
  // On a terminal, a progress bar on stderr while the first search builds the search cache.
  const progress = process.stderr.isTTY
    ? (await import('./format.js')).progressLine((s) => process.stderr.write(s), 'indexing sessions for search', { bar: 30 })
    : undefined;
  let r;
  try {
    // A project's search covers its History: its own sessions and those moved or relinked into it.
    const sessions = project === undefined ? undefined : (await projectSessionFiles(root, project)).files;
    r = await searchSessions(root, query, {
      sessions,
      since,
      until,
      limit,
      cursor: values.cursor as string | undefined,
      onProgress: progress?.update,
    });
  } catch (e) {
    if (e instanceof QueryError) throw new UsageError(`search: ${e.message}`);
    throw e;
  } finally {
    progress?.end();
  }
  // A project's search reads its own folder: another project's unreadable folder is not its problem.
  const mine = project === undefined ? undefined : join(root, (await import('../store/slug.js')).projectSlug(project));
  r.problems = r.problems.filter((p) => !mine || p.file === root || p.file === mine || p.file.startsWith(mine + sep));
  const unreadable = shownProblems(r.problems).filter(cannotRead);
  // grep's and rg's exit codes: 0 a match, 1 none, 2 trouble (a path that could not be read), with or without matches.
  const code = unreadable.length ? EXIT.usage : r.sessions.length === 0 ? EXIT.failure : EXIT.ok;
  if (values.json) {
    out(JSON.stringify(r, null, 2));
    return code;
  }
  for (const p of unreadable) err(`error: ${p.file}: ${p.message}`);
  if (r.sessions.length === 0) {
    out(`No matches for ${query}${project ? ` in ${project}` : ''}${unreadable.length ? ' in what could be read' : ''}.`);
    return code;
  }
  const { searchLines } = await import('./format.js');
  for (const l of searchLines(r.hits, { color: !!process.stdout.isTTY && !process.env.NO_COLOR, showProject: !project })) outRaw(l);
  if (r.cursor) out(`(${r.sessions.length} of ${r.total} sessions shown; --cursor ${r.cursor} for the next ones, --limit N for more)`);
  if (unreadable.length)
    err(
      `${unreadable.length} file${unreadable.length === 1 ? '' : 's'} or folder${unreadable.length === 1 ? '' : 's'} could not be searched ('levelcode-sessions doctor' says what can be mended)`,
    );
  return code;
}

async function cmdDoctor(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { fix: { type: 'boolean' } });
  if (positionals.length) throw new UsageError('doctor takes no arguments');
  const { resolveStoreRoot } = await import('../store/files.js');
  const { doctor, severity } = await import('../maintenance/doctor.js');
  const root = resolveStoreRoot(values.dir as string | undefined);
  const report = await doctor(root, { fix: !!values.fix });
  // Format drift of the tools imported from (engine.ts): kinds their importers have never seen.
  const unknownKinds = await (await import('../import/engine.js')).ledgerUnknownKinds(root).catch(() => []);
  if (values.json) out(JSON.stringify({ ...report, unknownKinds }, null, 2));
  else {
    out(
      `Store ${report.root}: ${report.projects} project${report.projects === 1 ? '' : 's'}, ${report.sessions} session${report.sessions === 1 ? '' : 's'}`,
    );
    for (const f of report.findings)
      out(`${severity(f)}: ${f.kind}: ${f.path}${f.line ? `:${f.line}` : ''}: ${f.message}${f.fixed ? ` (fixed: ${f.fixed})` : ''}`);
    if (unknownKinds.length) {
      out('note: imported records of kinds their importer has never seen (kept in the store, hidden; a format change of the tool?):');
      for (const u of unknownKinds) out(`  ${u.tool} ${u.version || '(no version)'}: ${u.kind} ×${u.count}`);
    }
    if (report.findings.length === 0) out('No problems found.');
    else if (!report.ok && !values.fix)
      out(`Run 'levelcode-sessions doctor --fix' to repair caches, locks and permissions (session content is never changed).`);
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
  if (values.json) throw new UsageError('serve speaks JSON-RPC; --json does not apply to it');
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

async function cmdMcp(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { project: { type: 'string' } });
  if (positionals.length) throw new UsageError(`mcp takes no arguments (got ${positionals.join(' ')})`);
  const project = values.project === undefined ? undefined : await absolute(values.project as string);
  const { serveMcp } = await import('../mcp/server.js');
  return serveMcp({ dir: values.dir as string | undefined, project, version: version() });
}
