// Hand-off (server/handoff/): every importer's fixture sessions handed off to Claude Code and
// Codex in a temp home, and the files read back by our own importers of those tools: the same
// conversation must come back (texts in order, every tool call with its result). Then the doors:
// the CLI (dry run, the printed command, a tool version we do not know, a folder that cannot be
// written, a file of the tool's never touched) and session/handoff through the real sidecar.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SessionStore } from '../../server/store/store.js';
import { listSessions } from '../../server/listing/history.js';
import { runImport } from '../../server/import/engine.js';
import { importerOf } from '../../server/import/registry.js';
import { contextConversation } from '../../server/resume/context.js';
import { BRIEFING_HEADER } from '../../server/resume/resume.js';
import { render, toolName } from '../../server/resume/targets.js';
import { handOff, HANDOFF_IDS } from '../../server/handoff/handoff.js';
import * as P from '../../server/rpc/protocol.js';
import { RpcErrorCodes } from '../../server/rpc/errors.js';
import { cleanup, startSidecar, type ResponseError } from '../helpers/sidecar.js';
import type { ContractCase } from '../import/case.js';

const casesDir = fileURLToPath(new URL('../import/cases/', import.meta.url));
const all: ContractCase[] = [];
for (const f of (await readdir(casesDir)).filter((n) => n.endsWith('.ts')).sort())
  all.push(...((await import(join(casesDir, f))) as { cases: ContractCase[] }).cases);
const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-handoff-'));
});
afterAll(async () => {
  await cleanup();
  await rm(tmp, { recursive: true, force: true });
});

let n = 0;
async function imported(c: ContractCase): Promise<{ store: SessionStore; ids: string[] }> {
  const base = join(tmp, `w${++n}`);
  const store = new SessionStore({ root: join(base, 'store'), agent: 'test' });
  await runImport(store, [{ importer: importerOf(c.tool)!, roots: [await c.setup(join(base, 'src'))] }], { ledger: join(base, 'l.json') });
  return { store, ids: (await listSessions(store.root, {})).sessions.map((e) => e.id) };
}

/** A conversation as comparable steps: each text, each call (name and arguments), each result, in order. */
async function stepsOf(store: SessionStore, id: string): Promise<string[]> {
  const r = render(contextConversation((await store.read(id)).events), 'neutral');
  const out: string[] = [];
  for (const m of r.messages as { role: string; parts: Record<string, unknown>[] }[])
    for (const p of m.parts) {
      if (p.type === 'text' || p.type === 'summary') {
        // Texts of one turn in a row are one text (a target may join them).
        const who = `${m.role === 'assistant' ? 'assistant' : 'user'}: `;
        if (p.type === 'text' && /^\[image \(.*\) left out/.test(p.text as string)) continue;
        const text = (p.text as string).replace(`${BRIEFING_HEADER}\n\n`, '');
        const last = out.length - 1;
        if (last >= 0 && out[last]!.startsWith(who)) out[last] = `${out[last]}\n\n${text}`;
        else out.push(`${who}${text}`);
      } else if (p.type === 'tool-call') out.push(`call ${toolName(p.name as string)} ${JSON.stringify(p.arguments)}`);
      else if (p.type === 'tool-result') {
        // The Responses API has no error flag: Codex's results carry it as "[error] " (targets.ts).
        const content = p.content as { type: string; text?: string }[];
        const text = content.map((c) => c.text ?? '').join('\n');
        const failed = p.isError === true || text.startsWith('[error] ');
        out.push(`result ${text.replace(/^\[error\] /, '')} ${failed}`);
      }
    }
  return out;
}

const envFor = (home: string) => ({ PATH: '/nonexistent', HOME: home });

describe('hand-off round trip: every fixture, written for each tool and read back by our importer of it', () => {
  describe.each(all.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    it.each(HANDOFF_IDS.map((t) => [t]))('to %s', async (to) => {
      const { store, ids } = await imported(c);
      for (const id of ids) {
        const before = await stepsOf(store, id);
        if (before.length === 0) continue;
        const home = join(tmp, `home${++n}`);
        const h = await handOff(store, id, { to, env: envFor(home), home, version: null });
        expect(h.installed).toBeNull();
        // Read back by our own importer of that tool, into a second store.
        const back = new SessionStore({ root: join(tmp, `back${n}`), agent: 'test' });
        const tool = to === 'claude-code' ? join(home, '.claude') : join(home, '.codex');
        const rep = await runImport(back, [{ importer: importerOf(to)!, roots: [tool] }], { ledger: join(tmp, `bl${n}.json`) });
        expect(rep.imported, `${id} read back`).toBe(1);
        const [again] = (await listSessions(back.root, {})).sessions;
        expect(await stepsOf(back, again!.id), `${c.tool} ${id} -> ${to}`).toEqual(before);
      }
    });
  });
});

describe('the doors: levelcode-sessions handoff and session/handoff', () => {
  /** A store holding one session with a tool pair, made through the CLI. */
  async function oneSession(): Promise<{ root: string; project: string; id: string; home: string }> {
    const base = join(tmp, `door${++n}`);
    const root = join(base, 'store');
    const project = join(base, 'app');
    const home = join(base, 'home');
    await mkdir(project, { recursive: true });
    await mkdir(home, { recursive: true });
    const id = cli(['new', '--project', project], { root, home, cwd: project }).out.trim();
    const lines = [
      { kind: 'user', content: 'List the files' },
      {
        kind: 'agent',
        messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }] }],
      },
      { kind: 'agent', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' }] }] },
      { kind: 'assistant', content: [{ type: 'text', text: 'One file: a.txt' }] },
    ];
    expect(cli(['append', id], { root, home, cwd: project, input: lines.map((l) => JSON.stringify(l)).join('\n') }).code).toBe(0);
    return { root, project, id, home };
  }

  function cli(args: string[], o: { root: string; home: string; cwd: string; input?: string; path?: string }) {
    const r = spawnSync(process.execPath, [bin, ...args], {
      input: o.input ?? '',
      cwd: o.cwd,
      env: {
        PATH: o.path ?? `/nonexistent:${dirname(process.execPath)}`,
        HOME: o.home,
        LEVELCODE_SESSIONS_DIR: o.root,
        XDG_CACHE_HOME: join(o.home, '.cache'),
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  }

  it('--dry-run says where and what, and writes nothing; then the real run writes a new file and prints the command', async () => {
    const s = await oneSession();
    const dry = cli(['handoff', s.id, '--to', 'claude-code', '--dry-run', '--json'], { ...s, cwd: s.project });
    expect(dry.code, dry.err).toBe(0);
    const plan = JSON.parse(dry.out);
    expect(plan).toMatchObject({
      tool: 'claude-code',
      installed: null,
      dryRun: true,
      messages: 4,
      tier: 1,
      argv: ['claude', '--resume', plan.id],
    });
    expect(plan.path).toBe(join(s.home, '.claude', 'projects', s.project.replace(/[^a-zA-Z0-9]/g, '-'), `${plan.id}.jsonl`));
    await expect(readFile(plan.path)).rejects.toThrow(/ENOENT/);
    const real = cli(['handoff', s.id, '--to', 'codex'], { ...s, cwd: s.project });
    expect(real.code, real.err).toBe(0);
    expect(real.out).toMatch(/^Wrote a Codex session \(4 messages\): .*\/\.codex\/sessions\/\d{4}\/\d{2}\/\d{2}\/rollout-.*\.jsonl$/m);
    expect(real.out).toContain('codex is not on PATH (npm install -g @openai/codex)');
    expect(real.out).toMatch(new RegExp(`Continue it with:\\n  cd ${s.project.replace(/[.]/g, '\\.')} && codex resume [0-9a-f-]{36}\\n$`));
  });

  it('refuses a tool version whose format it does not know, and a --to it does not know', async () => {
    const s = await oneSession();
    const fake = join(s.home, 'bin');
    await mkdir(fake, { recursive: true });
    await writeFile(join(fake, 'claude'), '#!/bin/sh\necho "9.0.1 (Claude Code)"\n');
    await chmod(join(fake, 'claude'), 0o755);
    const r = cli(['handoff', s.id, '--to', 'claude-code'], { ...s, cwd: s.project, path: `${fake}:/usr/bin:/bin` });
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      'Claude Code 9.0.1 is installed here, and its session format is not one this version of levelcode-sessions knows how to write',
    );
    await expect(readdir(join(s.home, '.claude'))).rejects.toThrow(/ENOENT/);
    const bad = cli(['handoff', s.id, '--to', 'cursor'], { ...s, cwd: s.project });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('handoff needs --to claude-code|codex (not "cursor")');
  });

  it('a folder it cannot write is an error naming the path; a file of the tool never changes', async () => {
    const s = await oneSession();
    // ~/.claude/projects is a file here: nothing can be created under it (root ignores modes).
    await mkdir(join(s.home, '.claude'), { recursive: true });
    await writeFile(join(s.home, '.claude', 'projects'), 'not a folder');
    const r = cli(['handoff', s.id, '--to', 'claude-code'], { ...s, cwd: s.project });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/cannot write .*\/\.claude\/projects\/.*\.jsonl: (ENOTDIR|EEXIST)/);
    expect(await readFile(join(s.home, '.claude', 'projects'), 'utf8')).toBe('not a folder');
  });

  it('session/handoff through the sidecar: the same result, and -33012 naming the path it cannot write', async () => {
    const s = await oneSession();
    const side = await startSidecar({ root: s.root });
    const r = await side.call(P.sessionHandoff, { id: s.id, to: 'codex', dryRun: true });
    expect(r).toMatchObject({ tool: 'codex', dryRun: true, messages: 4, cwd: s.project, argv: ['codex', 'resume', r.id] });
    const bad = await side.call(P.sessionHandoff, { id: s.id, to: 'nope' as never }).catch((e) => e);
    expect((bad as ResponseError<unknown>).code).toBe(RpcErrorCodes.InvalidParams);
    await side.stop();
    // A CODEX_HOME that is a file: the sidecar's environment decides where Codex's folder is.
    const codexHome = join(s.home, 'codex-file');
    await writeFile(codexHome, '');
    const side2 = await startSidecar({ root: s.root, env: { CODEX_HOME: codexHome } });
    const err = await side2.call(P.sessionHandoff, { id: s.id, to: 'codex' }).catch((e) => e);
    expect((err as ResponseError<unknown>).code).toBe(RpcErrorCodes.HandoffFailed);
    expect((err as ResponseError<{ path: string }>).data?.path.startsWith(join(codexHome, 'sessions'))).toBe(true);
    expect((err as Error).message).toContain(`cannot write ${codexHome}/sessions/`);
    await side2.stop();
  });
});

describe('a long session handed off from its last briefing', () => {
  /** A session of a ~180k-token head (past Claude Code's 160k budget), with a compact event after it when `briefed`. */
  async function long(o: { briefed: boolean; tail?: string }): Promise<{ store: SessionStore; id: string; home: string }> {
    const base = join(tmp, `long${++n}`);
    const project = join(base, 'app');
    await mkdir(project, { recursive: true });
    const store = new SessionStore({ root: join(base, 'store'), agent: 'test' });
    const { id } = await store.create({ project });
    const head = Array.from({ length: 72 }, (_, i) => ({ kind: 'user', content: `HEAD-${i} ${'x'.repeat(10_000)}` }));
    const r = await store.append(id, [{ kind: 'title', title: 'Migrate the billing tables', source: 'user' }, ...head]);
    const briefing = { kind: 'compact', briefing: 'BRIEFING: billing tables moved to pg-stage-7, two left.', coversThrough: r.lastSeq };
    await store.append(id, [
      ...(o.briefed ? [briefing] : []),
      { kind: 'user', content: o.tail ?? 'TAIL: move the invoices table' },
      { kind: 'assistant', content: [{ type: 'text', text: 'TAIL: done, invoices moved.' }] },
    ]);
    await store.release(id);
    return { store, id, home: join(base, 'home') };
  }

  it('too large even from its last briefing: refused with the size, "at least" when only the tail was read', async () => {
    const whole = await long({ briefed: false });
    const e1 = await handOff(whole.store, whole.id, { to: 'claude-code', dryRun: true, version: '2.1.3', home: whole.home }).catch(
      (e: unknown) => e,
    );
    expect(e1).toMatchObject({ code: 'too-large' });
    expect((e1 as Error).message).toMatch(
      new RegExp(`^session ${whole.id} \\(about \\d+ tokens\\) does not fit Claude Code's model even from its last summary`),
    );
    const tail = await long({ briefed: true, tail: `TAIL ${'y'.repeat(700_000)}` });
    const e2 = await handOff(tail.store, tail.id, { to: 'claude-code', dryRun: true, version: '2.1.3', home: tail.home }).catch(
      (e: unknown) => e,
    );
    expect(e2).toMatchObject({ code: 'too-large' });
    expect((e2 as Error).message).toMatch(new RegExp(`^session ${tail.id} \\(at least \\d+ tokens\\) does not fit`));
  });

  it('tier 2: the briefing and what follows, planned without reading the head whole; the title from before the briefing', async () => {
    const { store, id, home } = await long({ briefed: true });
    const out = await handOff(store, id, { to: 'claude-code', dryRun: true, version: '2.1.3', home });
    expect(out).toMatchObject({ tool: 'claude-code', tier: 2, messages: 2, dryRun: true }); // the briefing joins the user's turn
    const real = await handOff(store, id, { to: 'claude-code', version: '2.1.3', home });
    const written = await readFile(real.path, 'utf8');
    expect(written).toContain('BRIEFING: billing tables moved');
    expect(written).toContain('TAIL: done, invoices moved.');
    expect(written).not.toContain('HEAD-');
    expect(written).toContain('Migrate the billing tables');
  });
});
