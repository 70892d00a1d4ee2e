// Hand-off: a saved session continued in an agent CLI (Claude Code, Codex). It writes a NEW
// native session of that tool, in the tool's own folder and format (writers.ts), from the
// neutral conversation of our session (or, when the session does not fit the tool's model,
// from its last briefing and what follows it), and answers the command that continues it
// (`claude --resume <uuid>`, `codex resume <uuid>`). It never opens an existing file of the
// tool's for writing (the new file is created exclusively), and refuses when the tool
// installed here is a version whose format we do not know.
// The CLI's `handoff` and the sidecar's `session/handoff` both call `handOff`. The tools it hands
// off to are the descriptors of server/import/tools.ts that have `handoff` (bin, window, writer).

import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { contextConversation, contextRange } from '../resume/context.js';
import { loadAndPlan } from '../resume/workflow.js';
import { openRegular } from '../store/files.js';
import type { SessionStore } from '../store/store.js';
import { HANDOFF_IDS, type HandoffInfo, type HandoffTool, toolOf } from '../import/tools.js';

export { HANDOFF_IDS, type HandoffTool } from '../import/tools.js';

/** What a hand-off needs of a tool: its descriptor's label and hand-off fields (import/tools.ts). */
export interface ToolInfo extends HandoffInfo {
  label: string;
}

/** The tools a session can be handed off to, by id. */
export const TOOLS = Object.fromEntries(
  HANDOFF_IDS.map((id) => {
    const t = toolOf(id)!;
    return [id, { label: t.label, ...t.handoff! }];
  }),
) as Record<HandoffTool, ToolInfo>;

export class HandoffError extends Error {
  constructor(
    readonly code: 'unknown-format' | 'too-large' | 'unwritable' | 'empty',
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'HandoffError';
  }
}

/** The version of a tool on PATH (`claude --version`: "2.1.3 (Claude Code)"), or null when it is not there. */
export function installedVersion(tool: HandoffTool, env: NodeJS.ProcessEnv = process.env): string | null {
  const r = spawnSync(TOOLS[tool].bin, ['--version'], { env, encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error || r.status !== 0) return null;
  return /(\d+\.\d+\.\d+)/.exec(`${r.stdout}`)?.[1] ?? null;
}

export interface HandoffOptions {
  to: HandoffTool;
  dryRun?: boolean;
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** The tool's version (tests); default: asked of the installed tool. */
  version?: string | null;
}

export interface HandoffResult {
  tool: HandoffTool;
  /** The installed version, or null when the tool is not on PATH (the newest format we know is written). */
  installed: string | null;
  id: string;
  path: string;
  argv: string[];
  cwd: string;
  /** `cd <cwd> && <argv>`, quoted for a POSIX shell. */
  command: string;
  messages: number;
  /** 1: the whole conversation; 2: the last briefing and what follows it. */
  tier: 1 | 2;
  note: string | null;
  dryRun: boolean;
}

const shq = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** Writes a new native session of `o.to` continuing session `id`; with dryRun, only says where and what. */
export async function handOff(store: SessionStore, id: string, o: HandoffOptions): Promise<HandoffResult> {
  const tool = TOOLS[o.to];
  const env = o.env ?? process.env;
  const installed = o.version !== undefined ? o.version : installedVersion(o.to, env);
  if (installed !== null) {
    const v = installed.split('.').map(Number) as [number, number, number];
    if (!tool.known(v))
      throw new HandoffError(
        'unknown-format',
        `${tool.label} ${installed} is installed here, and its session format is not one this version of levelcode-sessions knows how to write`,
        { installed },
      );
  }
  // Planned as a resume is (a long session is read from its last compact event on).
  const { loaded, plan } = await loadAndPlan(store, id, { contextWindow: tool.window, budgetRatio: 0.8 });
  const events = loaded.events;
  // Read from its last compact event on, the session's size is known from below only.
  const size = `${loaded.earlier ? 'at least' : 'about'} ${plan.transcriptTokens} tokens`;
  if (plan.tier === 3)
    throw new HandoffError(
      'too-large',
      `session ${id} (${size}) does not fit ${tool.label}'s model even from its last summary: resume it once in an editor (which summarises its head), then hand it off`,
      { tokens: plan.transcriptTokens },
    );
  const conv = contextConversation(events, contextRange(plan, events));
  if (conv.messages.length === 0) throw new HandoffError('empty', `session ${id} holds no message to hand off`);
  const write = await tool.writer();
  const native = write({
    conv,
    project: loaded.meta.project,
    title: await titleOf(loaded),
    home: tool.home(env, o.home ?? homedir()),
    version: installed ?? tool.newest,
    id: randomUUID(),
    uuid: randomUUID,
    now: new Date(),
  });
  if (!o.dryRun) await createNew(native.path, native.text);
  return {
    tool: o.to,
    installed,
    id: native.id,
    path: native.path,
    argv: native.argv,
    cwd: native.cwd,
    command: `cd ${shq(native.cwd)} && ${native.argv.map(shq).join(' ')}`,
    messages: native.messages,
    tier: plan.tier,
    note: native.note,
    dryRun: !!o.dryRun,
  };
}

/** The latest title: in the events loaded, else among the lines before them (title lines only read). */
async function titleOf(loaded: Awaited<ReturnType<typeof loadAndPlan>>['loaded']): Promise<string | null> {
  const titleIn = (e: { kind: string } | undefined) => {
    const t = e?.kind === 'title' ? (e as { title?: unknown }).title : undefined;
    return typeof t === 'string' ? t : null;
  };
  for (let i = loaded.events.length - 1; i >= 0; i--) {
    const t = titleIn(loaded.events[i]!.event);
    if (t !== null) return t;
  }
  let title: string | null = null;
  await loaded.earlier?.(
    (line) => {
      title = titleIn(line.event);
      return title === null;
    },
    { want: (kind) => kind === 'title' },
  );
  return title;
}

/** Creates `path` (and its folders) and writes `text`, failing if it exists; an error names the path. */
async function createNew(path: string, text: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const fh = await openRegular(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const at = err.path && err.path !== path ? ` (at ${err.path})` : '';
    throw new HandoffError('unwritable', `cannot write ${path}: ${err.code ?? err.message}${at}`, { path, errno: err.code });
  }
}
