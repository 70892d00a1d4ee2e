// The state session/list gives each History row beyond pins and archive: `interrupted` (the last
// run stopped part way) and `heldBy` (another live process owns it now), through real sidecar
// processes on real files, and kept through the listing cache.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, startSidecar, workspace, sessionWith } from '../helpers/sidecar.js';
import * as P from '../../server/rpc/protocol.js';

afterEach(cleanup);

const USER = (text: string) => ({ kind: 'user', content: text });
const row = async (s: Awaited<ReturnType<typeof startSidecar>>, project: string, id: string) =>
  (await s.call(P.sessionList, { project })).sessions.find((r) => r.id === id)!;

describe('session/list state', () => {
  it('says interrupted while an interrupted or reaped event is after the last message', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, [USER('start the migration'), { kind: 'event', type: 'interrupted', reason: 'new chat' }]);
    const plain = await sessionWith(s, project, [USER('just a question'), { kind: 'event', type: 'checkpoint' }]);
    expect((await row(s, project, id)).interrupted).toBe(true);
    expect(await row(s, project, plain)).not.toHaveProperty('interrupted');

    // A new sidecar reads the cached index, then the file again once it grows.
    await s.stop();
    const again = await startSidecar({ root });
    expect((await row(again, project, id)).interrupted).toBe(true);
    await again.call(P.sessionAppend, { id, events: [USER('go on')] });
    expect(await row(again, project, id)).not.toHaveProperty('interrupted');
    await again.call(P.sessionAppend, { id, events: [{ kind: 'event', type: 'reaped' }] });
    expect((await row(again, project, id)).interrupted).toBe(true);
    await again.call(P.sessionAppend, { id, events: [{ kind: 'assistant', content: [{ type: 'text', text: 'done' }] }] });
    expect(await row(again, project, id)).not.toHaveProperty('interrupted');
    await again.stop();
  });

  it('names the process that holds a session in another window, and no one for its own or a released one', async () => {
    const { root, project } = workspace();
    const holder = await startSidecar({ root });
    const theirs = await sessionWith(holder, project, [USER('theirs')]);
    const viewer = await startSidecar({ root });
    const mine = await sessionWith(viewer, project, [USER('mine')]);

    const held = await row(viewer, project, theirs);
    expect(held.heldBy).toEqual({ pid: holder.child.pid, host: expect.any(String) });
    expect(await row(viewer, project, mine)).not.toHaveProperty('heldBy');
    // From the holder's side, the viewer's session is the one held elsewhere.
    expect((await row(holder, project, mine)).heldBy?.pid).toBe(viewer.child.pid);
    expect(await row(holder, project, theirs)).not.toHaveProperty('heldBy');

    await holder.call(P.sessionRelease, { id: theirs });
    expect(await row(viewer, project, theirs)).not.toHaveProperty('heldBy');
    await holder.stop();
    await viewer.stop();
  });
});
