// The Aider importer: Aider appends every chat of a repository to one Markdown file at its root,
// .aider.chat.history.md, each chat opening with "# aider chat started at YYYY-MM-DD HH:MM:SS"
// (local time), the user's input as "#### " lines, Aider's own output (commands, applied edits,
// lint runs) as "> " lines, and the model's answers as plain text. One file, many sessions: each
// chat is a session whose id is derived from the file and its start line (Aider has no ids).
// Each block of lines becomes one event with the block's text verbatim as its raw record.
// `import all` looks for the file in the project folders other tools and our store know.
// Field notes in ./aider.md. Pure reading: no store, no writes.

import { createHash } from 'node:crypto';
import { lstat, readdir } from 'node:fs/promises';
import { cachePaths, ensureCacheFolder } from '../store/cache-dir.js';
import { openRegular, readRegularText, replaceFileSync, SYNC_TOOL_NAMES } from '../store/files.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vscodeUserData } from './vscode-chat.js';
import type { ImporterModule, MappedEvent, MappedSession, SourceFile } from './types.js';
import { EPOCH, isFolder, keptRaw, readText, statFile } from './jsonl.js';

export const HISTORY_FILE = '.aider.chat.history.md';

export const aider: ImporterModule = {
  async defaultRoots(env, home) {
    const files = (await knownProjects(env, home)).map((p) => join(p, HISTORY_FILE));
    // lstat: a name planted there (a FIFO, a link) is still a root, and read() reports it.
    const there = await Promise.all(
      files.map((f) =>
        lstat(f).then(
          () => true,
          () => false,
        ),
      ),
    );
    return files.filter((_, i) => there[i]);
  },
  discover,
  read,
  // The history is Markdown: every line is read as one of these blocks (blocksOf), so no record
  // is of a kind never seen; the `-*- … -*-` editor mode line is the one kept hidden.
  kinds: { mapped: ['user', 'text', 'tool'], hidden: ['mode'] },
  kindOf: (raw) => (typeof raw === 'string' ? (/^-\*- .* -\*-/.test(raw) ? 'mode' : 'text') : undefined),
};

async function discover(root: string): Promise<SourceFile[]> {
  if (!(await isFolder(root))) return [await statFile(root)];
  const f = join(root, HISTORY_FILE);
  return [
    await statFile(f).catch(() => {
      throw new Error(`no ${HISTORY_FILE} in ${root} (Aider writes it at the root of the repository it ran in)`);
    }),
  ];
}

// ---- where the files are: project folders other tools and our store recorded -------------------

/**
 * Project folders this machine's tools know, without reading their sessions (a few small files).
 * Every file is read asynchronously through the store's no-follow, non-blocking, regular-file
 * helper: a FIFO planted as ~/.claude.json or a workspace.json is refused, never waited on.
 */
export async function knownProjects(env: NodeJS.ProcessEnv, home: string): Promise<string[]> {
  const out = new Set<string>();
  const add = (p: unknown) => typeof p === 'string' && p.startsWith('/') && out.add(p.replace(/\/+$/, '') || '/');
  const json = async (path: string): Promise<unknown> => {
    try {
      return JSON.parse(await readRegularText(path));
    } catch {
      return undefined; // a tool not installed, or a file it is writing: nothing to learn from it
    }
  };
  // Claude Code's ~/.claude.json lists every folder it ran in.
  const claude = (await json(join(env.CLAUDE_CONFIG_DIR || home, '.claude.json'))) as { projects?: Record<string, unknown> } | undefined;
  for (const p of Object.keys(claude?.projects ?? {})) add(p);
  // Codex's config.toml has a [projects."<folder>"] table for each trusted folder.
  try {
    const toml = await readRegularText(join(env.CODEX_HOME || join(home, '.codex'), 'config.toml'));
    for (const m of toml.matchAll(/^\[projects\.(?:"([^"]+)"|'([^']+)')\]/gm)) add(m[1] ?? m[2]);
  } catch {
    /* no Codex here */
  }
  // VS Code's workspace folders.
  for (const userData of vscodeUserData(env, home)) {
    const ws = join(userData, 'User', 'workspaceStorage');
    for (const name of await list(ws)) {
      const folder = ((await json(join(ws, name, 'workspace.json'))) as { folder?: unknown } | undefined)?.folder;
      if (typeof folder === 'string' && folder.startsWith('file://')) add(safe(() => fileURLToPath(folder)));
    }
  }
  // Our own store: the project of one session of each project folder.
  for (const p of await storeProjects(env.LEVELCODE_SESSIONS_DIR || join(home, '.levelcode', 'sessions'), env)) add(p);
  return [...out].sort();
}

/**
 * The project of each of our store's project folders. A folder's name is its project's slug, so
 * what its meta line said stays true: kept in a cache (store-projects.json in the store's cache
 * folder), a folder's meta line is read once, not on every import (bench/PERFORMANCE.md).
 */
async function storeProjects(store: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const cacheFile = join(cachePaths(store, env).dir, 'store-projects.json');
  const cached = Object.create(null) as Record<string, unknown>;
  try {
    Object.assign(cached, JSON.parse(await readRegularText(cacheFile)));
  } catch {
    /* no cache yet, or a damaged one: the meta lines are read again */
  }
  const out: string[] = [];
  let added = false;
  for (const slug of (await list(store)).filter((n) => !SYNC_TOOL_NAMES.has(n))) {
    let project = typeof cached[slug] === 'string' ? (cached[slug] as string) : undefined;
    if (project === undefined) {
      const file = (await list(join(store, slug))).find((n) => n.endsWith('.jsonl'));
      project = file && (await metaProject(join(store, slug, file)));
      if (typeof project === 'string') {
        cached[slug] = project;
        added = true;
      }
    }
    if (project) out.push(project);
  }
  if (added)
    try {
      ensureCacheFolder(cacheFile);
      replaceFileSync(cacheFile, JSON.stringify(cached) + '\n', { mode: 0o600, fsync: false });
    } catch {
      /* a cache: the next run reads the meta lines again */
    }
  return out;
}

async function list(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return []; // not there, or not a folder (a file planted in its place is no folder to list)
  }
}

function safe<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/** The project folder a session file of ours names in its meta line (its first line). */
async function metaProject(path: string): Promise<string | undefined> {
  try {
    const fh = await openRegular(path);
    try {
      const buf = Buffer.alloc(16384);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      return (JSON.parse(buf.toString('utf8', 0, bytesRead).split('\n')[0]!) as { project?: string }).project;
    } finally {
      await fh.close();
    }
  } catch {
    return undefined;
  }
}

// ---- reading -------------------------------------------------------------------------------------

const HEADER = /^# aider chat started at (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})\s*$/;
type Kind = 'user' | 'tool' | 'text' | 'mode';

interface Block {
  kind: Kind;
  lines: string[];
}

async function read(file: SourceFile): Promise<MappedSession[]> {
  const lines = (await readText(file.path)).split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const starts: number[] = [];
  lines.forEach((l, i) => HEADER.test(l) && starts.push(i));
  const chats: { from: number; to: number; header?: RegExpExecArray }[] = [];
  if ((starts[0] ?? lines.length) > 0) chats.push({ from: 0, to: starts[0] ?? lines.length }); // a file that begins mid-chat
  starts.forEach((s, k) => chats.push({ from: s + 1, to: starts[k + 1] ?? lines.length, header: HEADER.exec(lines[s]!)! }));
  const firstStart = starts.length ? startTime(HEADER.exec(lines[starts[0]!]!)!) : EPOCH;
  const out: MappedSession[] = [];
  for (const c of chats) {
    const t = c.header ? startTime(c.header) : firstStart;
    const blocks = blocksOf(lines.slice(c.from, c.to));
    const events = blocks.map((b) => mapBlock(b, t));
    if (!events.some((e) => e.kind === 'user' || e.kind === 'assistant')) continue; // an empty chat (started, then quit)
    const text = lines.slice(c.from, c.to).join('\n');
    const version = /^> Aider v(\S+)/m.exec(text)?.[1];
    const model = /^> (?:Main )?[Mm]odel: (\S+)/m.exec(text)?.[1];
    const line = c.header ? c.from : 1; // the 1-based number of the header line, or 1 for a headless start
    out.push({
      source: {
        tool: 'aider',
        ...(version ? { version } : {}),
        path: file.path,
        id: aiderSessionId(file.path, line),
        project: dirname(file.path),
      },
      createdAt: t,
      ...(model ? { model } : {}),
      events,
      problems: [],
    });
  }
  return out;
}

/** A chat's id: Aider has none, so the file's path (hashed) and the line its header is on (the file only grows). */
export function aiderSessionId(path: string, line: number): string {
  return `${createHash('sha1').update(path).digest('hex').slice(0, 12)}-L${line}`;
}

/** The header's local time (Aider writes it without a zone). */
function startTime(m: RegExpExecArray): string {
  const d = new Date(`${m[1]}T${m[2]}`);
  return Number.isNaN(d.getTime()) ? EPOCH : d.toISOString();
}

/**
 * Lines into blocks of one kind. A "#### " line is the user's, unless it sits in the model's text
 * (a Markdown heading of the answer): Aider ends each input line with two spaces, a heading of
 * the answer has none.
 */
function blocksOf(lines: string[]): Block[] {
  const blocks: Block[] = [];
  for (const l of lines) {
    const cur = blocks[blocks.length - 1];
    if (l.trim() === '') {
      if (cur) cur.lines.push(l);
      continue;
    }
    let kind: Kind = /^>( |$)/.test(l) ? 'tool' : /^-\*- .* -\*-\s*$/.test(l) ? 'mode' : 'text';
    if (l.startsWith('####')) {
      const inAnswer = cur?.kind === 'text' && !l.endsWith('  ');
      kind = inAnswer ? 'text' : 'user';
    }
    if (cur && cur.kind === kind) cur.lines.push(l);
    else blocks.push({ kind, lines: [l] });
  }
  return blocks;
}

function mapBlock(b: Block, t: string): MappedEvent {
  while (b.lines.length && b.lines[b.lines.length - 1]!.trim() === '') b.lines.pop();
  const raw = b.lines.join('\n');
  switch (b.kind) {
    case 'user':
      return {
        kind: 'user',
        t,
        content: b.lines
          .map((l) => l.replace(/^####\s?/, '').replace(/\s+$/, ''))
          .join('\n')
          .trim(),
        raw,
      };
    case 'text':
      return { kind: 'assistant', t, content: raw.trim(), raw };
    case 'tool':
      return {
        kind: 'agent',
        t,
        messages: [{ role: 'tool', content: b.lines.map((l) => l.replace(/^> ?/, '').replace(/\s+$/, '')).join('\n') }],
        raw,
      };
    default:
      return keptRaw(t, raw);
  }
}
