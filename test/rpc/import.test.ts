// session/import and initializationOptions.followImports through the real sidecar over stdio:
// a request imports a Claude Code folder written by the real CLI; with following on, a session
// file that Claude Code is still writing (lines appended here as the CLI appends them) appears
// in History and grows, announced by session/didChange, in poll mode and with fs.watch.

import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, startSidecar, tempDir, workspace, type Sidecar } from '../helpers/sidecar.js';
import { RpcErrorCodes } from '../../server/rpc/errors.js';
import * as P from '../../server/rpc/protocol.js';
import { FIXTURES } from '../import/layout.js';

afterEach(cleanup);

const REAL = join(FIXTURES, 'claude-code', 'real-1.0.128');
const UUID = '81de8f02-0841-48b1-9a80-29d83a4a2fd3';
const SESSION = join(REAL, 'projects', '-tmp-levelcode-fixture-demo', `${UUID}.jsonl`);

describe('session/import', () => {
  it('imports a Claude Code folder, then finds nothing new; History lists the sessions with their source', async () => {
    const { root, base } = workspace();
    const s = await startSidecar({ root, env: { XDG_CACHE_HOME: join(base, 'cache') } });
    const dry = await s.call(P.sessionImport, { tool: 'claude-code', from: REAL, dryRun: true });
    expect(dry.imported).toBe(3);
    // What an editor's Import command lists: the tool by its name, with its counts.
    expect(dry.tools).toEqual([expect.objectContaining({ tool: 'claude-code', label: 'Claude Code', imported: 3 })]);
    expect((await s.call(P.sessionList, { all: true })).sessions).toEqual([]);

    const r = await s.call(P.sessionImport, { tool: 'claude-code', from: REAL });
    expect(r).toMatchObject({ imported: 3, updated: 0, problems: [] });
    expect(r.sessions.map((x) => x.source.tool)).toEqual(['claude-code', 'claude-code', 'claude-code']);
    const listed = (await s.call(P.sessionList, { all: true })).sessions;
    expect(listed.map((e) => e.id).sort()).toEqual(r.sessions.map((x) => x.id).sort());
    const one = listed.find((e) => e.source?.id === UUID)!;
    expect(one.source).toMatchObject({
      tool: 'claude-code',
      id: UUID,
      path: SESSION,
      project: '/tmp/levelcode-fixture/demo',
      version: '1.0.128',
    });
    expect(one.sourceLabel).toBe('Claude Code');
    expect(one.continueIn).toEqual({ argv: ['claude', '--resume', UUID], cwd: '/tmp/levelcode-fixture/demo' });

    const again = await s.call(P.sessionImport, { tool: 'claude-code', from: REAL });
    expect(again).toMatchObject({ imported: 0, updated: 0, unchanged: 3, sessions: [] });
    await s.stop();
  });

  it('refuses an unknown tool, `from` without a tool, a relative or unreadable `from`', async () => {
    const { root, base } = workspace();
    const s = await startSidecar({ root, env: { XDG_CACHE_HOME: join(base, 'cache') } });
    const unknown = await s.error('session/import', { tool: 'windsurf' });
    expect(unknown.code).toBe(RpcErrorCodes.InvalidParams);
    expect(unknown.message).toMatch(/unknown tool "windsurf"; known tools: claude-code, codex/);
    expect((await s.error('session/import', { from: REAL })).message).toMatch(/say which tool/);
    expect((await s.error('session/import', { tool: 'codex', from: 'rel/dir' })).message).toMatch(/absolute path/);
    expect((await s.error('session/import', { tool: 3 })).code).toBe(RpcErrorCodes.InvalidParams);
    const missing = await s.error('session/import', { tool: 'claude-code', from: join(base, 'nope') });
    expect(missing.code).toBe(RpcErrorCodes.InvalidParams);
    expect(missing.message).toMatch(/cannot read/);
    expect((await s.call(P.sessionList, { all: true })).sessions).toEqual([]);
    await s.stop();
  });
});

describe('initializationOptions.followImports', () => {
  for (const mode of ['poll', 'watch'] as const) {
    it(`a session Claude Code is writing appears in History and grows, with didChange (${mode})`, async () => {
      const { root, base } = workspace();
      const claude = join(tempDir('lcs-claude-'), '.claude');
      const folder = join(claude, 'projects', '-tmp-levelcode-fixture-demo');
      mkdirSync(folder, { recursive: true });
      const s = await startSidecar({
        root,
        trace: 'messages',
        env: {
          XDG_CACHE_HOME: join(base, 'cache'),
          LEVELCODE_SESSIONS_POLL: mode === 'poll' ? '1' : '0',
          // With fs.watch the poll is only a safety net: made too slow to be what sees the change.
          LEVELCODE_SESSIONS_IMPORT_POLL_MS: mode === 'poll' ? '100' : '600000',
        },
        initializationOptions: { followImports: { tools: ['claude-code'], roots: { 'claude-code': [claude] } } },
      });
      await s.editor.logs.waitFor((l) => l.message.includes(`following claude-code (${claude}) (${mode})`));
      const lines = readFileSync(SESSION, 'utf8').split(/(?<=\n)/);
      const file = join(folder, `${UUID}.jsonl`);
      writeFileSync(file, lines.slice(0, 3).join(''));
      const created = await s.editor.didChange.waitFor((c) => c.change === 'created');
      expect(created.project).toBe('/tmp/levelcode-fixture/demo');
      // `created` comes with the meta line; the import's events follow it in the same run (in
      // the same announcement, or in an `appended` one).
      const entry = await onChanges(s, created.id, async () =>
        (await s.call(P.sessionList, { all: true })).sessions.find((e) => e.id === created.id),
      );
      expect(entry.source).toMatchObject({ tool: 'claude-code', id: UUID, path: file });
      const first = await onChanges(
        s,
        created.id,
        async () => (await s.call(P.sessionRead, { id: created.id })).events.length || undefined,
      );
      expect(first).toBeGreaterThan(0);

      appendFileSync(file, lines.slice(3).join(''));
      // The session grows to what the whole file gives: a dry run then finds nothing left.
      await onChanges(s, created.id, async () => {
        const r = await s.call(P.sessionImport, { tool: 'claude-code', from: claude, dryRun: true });
        return r.imported + r.updated === 0 ? r : undefined;
      });
      // The growth was announced (whenever the announcement lands, before or after the dry run).
      await s.editor.didChange.waitFor((c) => c.id === created.id && c.change === 'appended');
      const grown = (await s.call(P.sessionRead, { id: created.id })).events.length;
      expect(grown).toBeGreaterThan(first);
      expect((await s.call(P.sessionList, { all: true })).sessions.map((e) => e.id)).toEqual([created.id]);
      await s.stop();
    });
  }
});

/**
 * `probe`'s first defined answer: asked now, then again after each session/didChange of `id`.
 * The next change is listened for before `probe` asks, so none is missed in between.
 */
async function onChanges<T>(s: Sidecar, id: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const changed = s.editor.didChange.next((c) => c.id === id);
    const v = await probe();
    if (v !== undefined) return v;
    await changed;
  }
}
