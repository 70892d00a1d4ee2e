// Conformance: several processes on one store. Two sidecars on one project (each owns its own
// session, both see both, each hears the other), a session held by another sidecar (read-only
// resume, locked writes, "open a copy"), locks let go when a sidecar dies, and didChange for
// files written by a process that is not a sidecar at all, in polling and in fs.watch mode.

import { appendFileSync, mkdirSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, startSidecar, workspace, type Sidecar, fileOf, sessionWith as newSession } from '../helpers/sidecar.js';
import { RpcErrorCodes } from '../../server/rpc/errors.js';
import * as P from '../../server/rpc/protocol.js';

afterEach(cleanup);

const USER = (text: string) => ({ kind: 'user', content: text });
const ASSISTANT = (text: string) => ({ kind: 'assistant', content: text });

const sessionWith = (s: Sidecar, project: string, events: unknown[]) => newSession(s, project, events);

describe('two sidecars on one project', () => {
  it('each owns its live session, both list both, each hears the other', async () => {
    const { root, project } = workspace();
    const [a, b] = await Promise.all([startSidecar({ root }), startSidecar({ root })]);
    const ida = await sessionWith(a, project, [USER('window A')]);
    const idb = await sessionWith(b, project, [USER('window B')]);
    for (const s of [a, b]) expect((await s.call(P.sessionList, { project })).sessions.map((x) => x.id).sort()).toEqual([ida, idb].sort());
    expect(await a.editor.didChange.waitFor((c) => c.id === idb)).toMatchObject({ project, change: 'created' });
    expect(await b.editor.didChange.waitFor((c) => c.id === ida)).toMatchObject({ project, change: 'created' });

    await b.call(P.sessionAppend, { id: idb, events: [ASSISTANT('more')] });
    await a.editor.didChange.waitFor((c) => c.id === idb && c.change === 'appended');
    await b.call(P.sessionRename, { id: idb, title: 'From B' });
    await a.editor.didChange.waitFor((c) => c.id === idb && c.change === 'renamed');
    await b.call(P.sessionDelete, { id: idb });
    await a.editor.didChange.waitFor((c) => c.id === idb && c.change === 'deleted');
    await Promise.all([a.stop(), b.stop()]);
  });
});

describe('a session held by another sidecar', () => {
  it('resumes read-only with heldBy, refuses writes, and opens a copy', async () => {
    const { root, project } = workspace();
    const a = await startSidecar({ root });
    const b = await startSidecar({ root });
    const id = await sessionWith(a, project, [USER('question'), ASSISTANT('answer')]);

    const ro = await b.call(P.sessionResume, { id, contextWindow: 100_000 });
    expect(ro).toMatchObject({ id, readOnly: true, heldBy: { pid: a.child.pid }, tier: 1 });
    expect(ro.conversation).toEqual([
      { role: 'user', content: 'question' },
      { role: 'assistant', content: 'answer' },
    ]);
    const locked = await b.error('session/append', { id, events: [USER('from B')] });
    expect(locked.code).toBe(RpcErrorCodes.SessionLocked);
    expect(locked.data).toMatchObject({ reason: 'locked', heldBy: { pid: a.child.pid } });
    expect((await b.error('session/seal', { id })).code).toBe(RpcErrorCodes.SessionLocked);
    expect((await b.error('session/rename', { id, title: 'mine now' })).code).toBe(RpcErrorCodes.SessionLocked);
    expect((await b.error('session/delete', { id })).code).toBe(RpcErrorCodes.SessionLocked);

    const copy = await b.call(P.sessionResume, { id, contextWindow: 100_000, copy: true });
    expect(copy).toMatchObject({ readOnly: false, forkedFrom: id, tier: 1 });
    expect(copy.id).not.toBe(id);
    expect(copy.conversation).toEqual(ro.conversation);
    await b.call(P.sessionAppend, { id: copy.id, events: [USER('continuing in B')] });
    expect((await a.error('session/append', { id: copy.id, events: [USER('A?')] })).code).toBe(RpcErrorCodes.SessionLocked);

    // Once A seals its session, B may take it over.
    await a.call(P.sessionSeal, { id });
    const rw = await b.call(P.sessionResume, { id, contextWindow: 100_000 });
    expect(rw.readOnly).toBe(false);
    expect(rw.heldBy).toBeUndefined();
    await b.call(P.sessionAppend, { id, events: [USER('B owns it now')] });
    await Promise.all([a.stop(), b.stop()]);
  });

  it('is free again once its owner exits, even without shutdown', async () => {
    const { root, project } = workspace();
    const a = await startSidecar({ root });
    const id = await sessionWith(a, project, [USER('mine')]);
    a.child.stdin!.end();
    expect((await a.exited).code).toBe(1);
    const b = await startSidecar({ root });
    expect(await b.call(P.sessionAppend, { id, events: [USER('now mine')] })).toMatchObject({ appended: 1 });
    await b.stop();
  });

  it('lets go of its sessions on shutdown', async () => {
    const { root, project } = workspace();
    const a = await startSidecar({ root });
    const id = await sessionWith(a, project, [USER('mine')]);
    await a.conn.sendRequest('shutdown');
    expect(existsSync(fileOf(root, id) + '.lock')).toBe(false);
    await a.conn.sendNotification('exit');
    expect((await a.exited).code).toBe(0);
  });
});

describe('didChange for files written by another process', () => {
  for (const poll of ['1', '0']) {
    it(`reports created, appended, renamed, deleted (${poll === '1' ? 'polling' : 'fs.watch'})`, async () => {
      const { root, project } = workspace();
      const s = await startSidecar({ root, env: { LEVELCODE_SESSIONS_POLL: poll } });
      expect(s.initializeResult.capabilities.experimental.levelcodeSessions.didChange).toBe(poll === '1' ? 'poll' : 'watch');
      // A session file made by hand, in a project folder the sidecar has never seen.
      const id = '2026-01-02T03-04-05-abcd';
      const dir = join(root, '-somewhere-else');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${id}.jsonl`);
      writeFileSync(
        file,
        JSON.stringify({ kind: 'meta', v: 1, id, project: '/somewhere/else', createdAt: '2026-01-02T03:04:05.000Z', title: null }) + '\n',
      );
      expect(await s.editor.didChange.waitFor((c) => c.id === id)).toEqual({ id, project: '/somewhere/else', change: 'created' });
      appendFileSync(file, JSON.stringify({ kind: 'user', t: '2026-01-02T03:04:06.000Z', content: 'by hand' }) + '\n');
      await s.editor.didChange.waitFor((c) => c.id === id && c.change === 'appended');
      appendFileSync(file, JSON.stringify({ kind: 'title', t: '2026-01-02T03:04:07.000Z', title: 'Hand made' }) + '\n');
      await s.editor.didChange.waitFor((c) => c.id === id && c.change === 'renamed');
      rmSync(file);
      expect(await s.editor.didChange.waitFor((c) => c.id === id && c.change === 'deleted')).toEqual({
        id,
        project: '/somewhere/else',
        change: 'deleted',
      });
      // And one made by the sidecar itself, in an existing project folder.
      const own = await sessionWith(s, project, [USER('x')]);
      await s.editor.didChange.waitFor((c) => c.id === own && c.change === 'created');
      await s.stop();
    });
  }
});
