// Conformance: a session held only while it is written (session/release, session/append with
// `release`). After a release the real CLI (`levelcode-sessions append`) or a second sidecar
// can append; the first client's next append takes the lock again and still lands. A release
// of a session not held answers released: false; an unknown id is UnknownSession. A title made
// in the background after a releasing append borrows the lock for its one write.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, fileOf, startSidecar, workspace, sessionWith } from '../helpers/sidecar.js';
import { RpcErrorCodes } from '../../server/rpc/errors.js';
import * as P from '../../server/rpc/protocol.js';

afterEach(cleanup);

const USER = (text: string) => ({ kind: 'user', content: text });
const ASSISTANT = (text: string) => ({ kind: 'assistant', content: text });

/** The real CLI's `append ID` with events on stdin: its exit code and stderr. */
function cliAppend(root: string, id: string, events: unknown[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'append', id, '--json', '--dir', root], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
    child.stdin.end(events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  });
}

/** The contents of the session's user and assistant events, in file order. */
function said(root: string, id: string): unknown[] {
  return readFileSync(fileOf(root, id), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind: string; content?: unknown })
    .filter((e) => e.kind === 'user' || e.kind === 'assistant')
    .map((e) => e.content);
}

describe('session/release', () => {
  it('lets the CLI append between two appends of the client, which still land', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, [USER('first')]);
    expect((await cliAppend(root, id, [USER('cli while held')])).code).toBe(4); // held: locked

    expect(await s.call(P.sessionRelease, { id })).toEqual({ id, released: true });
    expect(existsSync(fileOf(root, id) + '.lock')).toBe(false);
    const cli = await cliAppend(root, id, [USER('from the CLI')]);
    expect(cli).toMatchObject({ code: 0 });

    // The next append takes the lock again, for as long as the client keeps it.
    expect(await s.call(P.sessionAppend, { id, events: [ASSISTANT('back in the editor')] })).toMatchObject({ appended: 1 });
    expect((await cliAppend(root, id, [USER('cli again')])).code).toBe(4);

    // An append with `release` gives it back as soon as it is written.
    await s.call(P.sessionAppend, { id, events: [USER('last turn')], release: true });
    expect(existsSync(fileOf(root, id) + '.lock')).toBe(false);
    expect((await cliAppend(root, id, [ASSISTANT('cli after release')])).code).toBe(0);
    await s.call(P.sessionAppend, { id, events: [USER('and once more')], release: true });

    expect(said(root, id)).toEqual(['first', 'from the CLI', 'back in the editor', 'last turn', 'cli after release', 'and once more']);
    await s.stop();
  });

  it('after resume, a second sidecar can write, and the first one writes on', async () => {
    const { root, project } = workspace();
    const a = await startSidecar({ root });
    const b = await startSidecar({ root });
    const id = await sessionWith(a, project, [USER('question'), ASSISTANT('answer')]);
    await a.call(P.sessionSeal, { id });

    const r = await a.call(P.sessionResume, { id, contextWindow: 100_000 });
    expect(r.readOnly).toBe(false);
    expect((await b.call(P.sessionResume, { id, contextWindow: 100_000 })).readOnly).toBe(true);
    expect((await b.error('session/append', { id, events: [USER('B?')] })).code).toBe(RpcErrorCodes.SessionLocked);

    expect(await a.call(P.sessionRelease, { id })).toEqual({ id, released: true });
    await b.call(P.sessionAppend, { id, events: [USER('from B')], release: true });
    await a.call(P.sessionAppend, { id, events: [USER('from A')], release: true });
    expect(said(root, id)).toEqual(['question', 'answer', 'from B', 'from A']);
    await Promise.all([a.stop(), b.stop()]);
  });

  it('a release sent while appends are in flight waits for them: every turn lands, in order', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root, trace: 'messages' });
    const id = await sessionWith(s, project, [USER('first')]);
    const turns = Array.from({ length: 20 }, (_, i) => `turn ${i}`);
    const answers = turns.flatMap((t) => [s.call(P.sessionAppend, { id, events: [USER(t)] }), s.call(P.sessionRelease, { id })]);
    await Promise.all(answers);
    expect(said(root, id)).toEqual(['first', ...turns]);
    // The second user turn's title is written in the background, borrowing the lock for its
    // write and letting it go before the sidecar logs it: once it is in, nothing holds the session.
    await s.titleSettled(id);
    expect(readFileSync(fileOf(root, id), 'utf8')).toContain('"kind":"title"');
    expect(existsSync(fileOf(root, id) + '.lock')).toBe(false);
    await s.stop();
  });

  it('answers released: false for a session not held, UnknownSession for no session, -32602 for a bad id', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, [USER('x')]);
    await s.call(P.sessionRelease, { id });
    expect(await s.call(P.sessionRelease, { id })).toEqual({ id, released: false });
    const unknown = await s.error('session/release', { id: '2026-01-02T03-04-05-zzzz' });
    expect(unknown.code).toBe(RpcErrorCodes.UnknownSession);
    expect((await s.error('session/release', { id: 'nope' })).code).toBe(RpcErrorCodes.InvalidParams);
    // A session another process holds is not ours to give back: answered false, its lock kept.
    const other = await startSidecar({ root });
    await other.call(P.sessionAppend, { id, events: [USER('other owns it')] });
    expect(await s.call(P.sessionRelease, { id })).toEqual({ id, released: false });
    expect((await s.error('session/append', { id, events: [USER('still theirs')] })).code).toBe(RpcErrorCodes.SessionLocked);
    await Promise.all([s.stop(), other.stop()]);
  });

  it('titles a session after its second user turn though each append gave the lock back', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root, trace: 'messages' });
    const { id } = await s.call(P.sessionNew, { project });
    await s.call(P.sessionAppend, { id, events: [USER('Plan the ledger migration'), ASSISTANT('ok')], release: true });
    await s.call(P.sessionAppend, { id, events: [USER('And the rollback?'), ASSISTANT('ok')], release: true });
    expect(await s.titleSettled(id)).toBe('fallback');
    const titles = readFileSync(fileOf(root, id), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string; title?: string })
      .filter((e) => e.kind === 'title');
    expect(titles).toMatchObject([{ title: 'Plan the ledger migration' }]);
    expect(existsSync(fileOf(root, id) + '.lock')).toBe(false);
    expect((await cliAppend(root, id, [USER('cli')])).code).toBe(0);
    await s.stop();
  });
});
