// Issue 24 through the real sidecar: session/fork with atTurn (turns as History counts them,
// tool pairs whole at the cut, the parent recorded in the meta line and in session/list), and
// session/restore after session/delete (listed and resumable again; refused when the place is
// taken, nothing lost). Real files in temp dirs, the real freedesktop trash under XDG_DATA_HOME.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { release } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fileOf, sessionWith, startSidecar, workspace } from '../helpers/sidecar.js';
import { RpcErrorCodes } from '../../server/rpc/errors.js';
import * as P from '../../server/rpc/protocol.js';
import { at } from '../helpers/items.js';

afterEach(cleanup);

const toolTurn = (n: number) => [
  { kind: 'user', content: `question ${n}` },
  { kind: 'assistant', content: [{ type: 'tool_use', id: `t${n}`, name: 'read', input: { n } }] },
  { kind: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: `result ${n}` }] },
  { kind: 'assistant', content: `answer ${n}` },
];

describe('initialize', () => {
  it('advertises fork.atTurn, relink, and restore where the trash can be searched (Linux here)', async () => {
    const { root } = workspace();
    const s = await startSidecar({ root, initialize: false });
    const init = await s.initialize();
    const caps = P.ServerCapability.parse(init.capabilities.experimental.levelcodeSessions);
    expect(caps.features).toEqual(expect.arrayContaining(['fork.atTurn', 'relink']));
    expect(caps.features.includes('restore')).toBe(process.platform === 'linux' && !release().toLowerCase().includes('microsoft'));
    await s.stop();
  });
});

describe('session/fork atTurn', () => {
  it('holds exactly turns 1-2 with their tool pairs, and records the parent', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, [...toolTurn(1), ...toolTurn(2), ...toolTurn(3)]);
    const f = await s.call(P.sessionFork, { id, atTurn: 2 });
    expect(f).toMatchObject({ forkedFrom: id, turn: 2, copied: 8, project });
    const orig = (await s.call(P.sessionRead, { id, from: 0 })).events;
    const copy = (await s.call(P.sessionRead, { id: f.id, from: 0 })).events;
    expect(copy.slice(0, 8)).toEqual(orig.slice(0, 8));
    expect(copy).toHaveLength(9);
    expect(at(copy, 8).event).toMatchObject({ kind: 'event', type: 'forked', from: id, throughSeq: 7, atTurn: 2 });
    // Every tool_use of the fork has its tool_result.
    const uses = JSON.stringify(copy).match(/"tool_use","id":"(t\d)"/g)?.length;
    const results = JSON.stringify(copy).match(/"tool_use_id":"t\d"/g)?.length;
    expect(uses).toBe(2);
    expect(results).toBe(2);
    const meta = JSON.parse(readFileSync(fileOf(root, f.id), 'utf8').split('\n')[0]!);
    expect(meta.forkedFrom).toEqual({ id, turn: 2 });
    const listed = (await s.call(P.sessionList, { project })).sessions;
    expect(listed.find((x) => x.id === f.id)).toMatchObject({ turns: 2, forkedFrom: { id, turn: 2 } });
    expect(listed.find((x) => x.id === id)?.forkedFrom).toBeUndefined();
    await s.stop();
  });

  it('starts a fork of an old, pinned, archived chat in the main list, unpinned, not auto-archived', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root, initializationOptions: { autoArchiveDays: 30 } });
    const long = new Date(Date.now() - 40 * 86_400_000).toISOString();
    const id = await sessionWith(s, project, [
      { kind: 'user', t: long, content: 'from long ago' },
      { kind: 'assistant', t: long, content: 'an old answer' },
    ]);
    await s.call(P.sessionPin, { id, pinned: true });
    await s.call(P.sessionArchive, { id, archived: true });
    const f = await s.call(P.sessionFork, { id, atTurn: 1 });
    const main = (await s.call(P.sessionList, { project })).sessions;
    expect(main.map((r) => r.id)).toEqual([f.id]);
    expect(main[0]).toMatchObject({ pinned: false, archived: false, forkedFrom: { id, turn: 1 } });
    expect((await s.call(P.sessionList, { project, archived: true })).sessions).toMatchObject([{ id, pinned: true }]);
    // Idle for 40 days by its copied messages, but made just now: the sweep leaves it.
    expect((await s.call(P.sessionRetention, { project, dryRun: true })).done).toEqual([]);
    await s.stop();
  });

  it('refuses a turn the session does not have, creating nothing', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, toolTurn(1));
    const e = await s.error('session/fork', { id, atTurn: 2 });
    expect(e.code).toBe(RpcErrorCodes.InvalidParams);
    expect(e.message).toContain('has 1 turn');
    expect((await s.error('session/fork', { id, atTurn: 0 })).code).toBe(RpcErrorCodes.InvalidParams);
    expect((await s.call(P.sessionList, { project })).sessions.map((x) => x.id)).toEqual([id]);
    await s.stop();
  });
});

describe('session/restore', () => {
  it('brings a deleted session back, listed and resumable as before', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, toolTurn(1));
    const file = fileOf(root, id);
    const bytes = readFileSync(file);
    await s.call(P.sessionDelete, { id });
    expect(existsSync(file)).toBe(false);
    const r = await s.call(P.sessionRestore, { id });
    expect(r).toMatchObject({ id, project, path: file });
    expect(await s.editor.didChange.waitFor((c) => c.id === id && c.change === 'created')).toEqual({ id, project, change: 'created' });
    expect(readFileSync(file)).toEqual(bytes);
    expect(existsSync(r.trashed)).toBe(false);
    expect((await s.call(P.sessionList, { project })).sessions.map((x) => x.id)).toEqual([id]);
    const resumed = await s.call(P.sessionResume, { id, contextWindow: 100_000 });
    expect(resumed).toMatchObject({ id, readOnly: false, tier: 1 });
    await s.call(P.sessionAppend, { id, events: [{ kind: 'user', content: 'after restore' }] });
    expect((await s.call(P.sessionList, { project })).sessions[0]).toMatchObject({ id, turns: 2 });
    expect((await s.error('session/restore', { id: '2020-01-01T00-00-00-zzzz' })).code).toBe(RpcErrorCodes.UnknownSession);
    await s.stop();
  });

  it('refuses when the place is taken, and loses nothing', async () => {
    const { root, project, base } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, toolTurn(1));
    const file = fileOf(root, id);
    const bytes = readFileSync(file);
    await s.call(P.sessionDelete, { id });
    writeFileSync(file, 'something else\n');
    const e = await s.error('session/restore', { id });
    expect(e.code).toBe(RpcErrorCodes.StoreIo);
    expect(e.message).toContain('nothing was changed');
    expect(readFileSync(file, 'utf8')).toBe('something else\n');
    const files = join(base, 'xdg-data', 'Trash', 'files');
    const kept = readdirSync(files).map((n) => readFileSync(join(files, n)));
    expect(kept).toContainEqual(bytes);
    await s.stop();
  });
});

describe('session/relink', () => {
  it('dry run moves nothing; then the sessions are listed under the new folder, moved from the old', async () => {
    const { root, project, base } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, toolTurn(1));
    await s.call(P.sessionSeal, { id }); // released: relink refuses a session a window holds
    const file = fileOf(root, id);
    const next = join(base, 'renamed');
    renameSync(project, next);
    expect((await s.call(P.sessionList, { project: next })).sessions).toEqual([]);
    const dry = await s.call(P.sessionRelink, { from: project, to: next, dryRun: true });
    expect(dry).toMatchObject({ from: project, to: next, dryRun: true, sessions: [{ id, project }] });
    expect(existsSync(file)).toBe(true);
    const real = await s.call(P.sessionRelink, { from: project, to: next });
    expect(real.dryRun).toBe(false);
    expect(existsSync(file)).toBe(false);
    const rows = (await s.call(P.sessionList, { project: next })).sessions;
    expect(rows).toMatchObject([{ id, project: next, movedFrom: project, turns: 1 }]);
    // The new folder's search covers what its History lists.
    const found = await s.call(P.sessionSearch, { query: 'question', project: next });
    expect([...new Set(found.hits.map((h) => h.sessionId))]).toEqual([id]);
    const f = await s.call(P.sessionFork, { id, atTurn: 1 });
    expect(f.project).toBe(next);
    await s.stop();
  });

  it('refuses while another process holds a session, moving nothing', async () => {
    const { root, project, base } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, toolTurn(1)); // held by this sidecar
    const next = join(base, 'elsewhere');
    mkdirSync(next);
    const b = await startSidecar({ root });
    const e = await b.error('session/relink', { from: project, to: next });
    expect(e.code).toBe(RpcErrorCodes.SessionLocked);
    expect(existsSync(fileOf(root, id))).toBe(true);
    expect((await b.call(P.sessionList, { project })).sessions.map((x) => x.id)).toEqual([id]);
    await b.stop();
    await s.stop();
  });
});
