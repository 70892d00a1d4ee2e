// End to end in real VS Code (code-server, harness.ts): pins and archive from the History's
// context menu (issue 24). Pin Chat moves a chat into a Pinned group at the top and appends a pin
// event; Unpin Chat puts it back in its place; Archive Chat takes it out of History at once, with
// an Undo that brings it back, and an archived chat is what `list --archived` shows.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { VsCode, missingPrerequisites, reportIfFailed } from './harness.js';

const missing = missingPrerequisites();
if (missing.length) {
  throw new Error(`the VS Code end-to-end suite needs (run .ci/clients-vscode.sh):\n- ${missing.join('\n- ')}`);
}

describe('VS Code History: pins and archive (code-server)', () => {
  let vs: VsCode;
  const now = Date.now();
  const DAY = 86_400_000;
  const seeded = [
    { id: '', first: 'Sketch the onboarding email', at: new Date(now - 60_000) },
    { id: '', first: 'Budget the GPU cluster', at: new Date(now - 3 * DAY) },
    { id: '', first: 'Name the new service', at: new Date(now - 40 * DAY) },
  ];
  const rowIndex = (rows: string[], text: string) => rows.findIndex((r) => r.startsWith(text));
  const LIFECYCLE = ['pin', 'unpin', 'archive', 'unarchive'];
  const kinds = async (id: string) =>
    (await vs.events(id)).filter((e) => e.kind === 'event' && LIFECYCLE.includes(e.type as string)).map((e) => e.type);
  const pinnedGroup = (r: string) => r.trim() === 'Pinned';

  beforeAll(async () => {
    vs = await VsCode.create();
    for (const s of seeded) s.id = await vs.seed(s);
    await vs.start();
    await vs.openHistory();
    await vs.waitForRows((r) => seeded.every((s) => rowIndex(r, s.first) >= 0), 'the seeded chats');
  }, 240_000);

  afterEach((ctx) => reportIfFailed(vs, ctx, 'lifecycle'));

  afterAll(async () => {
    await vs?.stop();
  }, 60_000);

  it('pins a chat into a Pinned group at the top, and unpins it back to its place', async () => {
    const old = seeded[2]!;
    await vs.contextAction(old.first, 'Pin Chat');
    const rows = await vs.waitForRows(
      (r) => pinnedGroup(r[0] ?? '') && rowIndex(r, old.first) === 1,
      'the pinned chat first, under Pinned',
    );
    expect(rowIndex(rows, seeded[0]!.first)).toBeGreaterThan(1);
    expect(await kinds(old.id)).toEqual(['pin']);
    expect(JSON.parse(await vs.cli(['list', '--project', vs.project, '--json'])).sessions[0]).toMatchObject({ id: old.id, pinned: true });
    await vs.screenshot('lifecycle-01-pinned');

    await vs.contextAction(old.first, 'Unpin Chat');
    const back = await vs.waitForRows(
      (r) => !r.some(pinnedGroup) && rowIndex(r, old.first) > rowIndex(r, seeded[1]!.first),
      'the chat back in its place',
    );
    expect(rowIndex(back, seeded[0]!.first)).toBeLessThan(rowIndex(back, old.first));
    expect(await kinds(old.id)).toEqual(['pin', 'unpin']);
  });

  it('archives a chat out of History, with an Undo; an archived chat is listed by list --archived', async () => {
    const s = seeded[1]!;
    await vs.contextAction(s.first, 'Archive Chat');
    const toast = await vs.waitForToast('Archived');
    await vs.waitForRows((r) => rowIndex(r, s.first) < 0, 'the archived chat gone');
    await toast.locator('.monaco-button', { hasText: 'Undo' }).click();
    await vs.waitForRows((r) => rowIndex(r, s.first) >= 0, 'the chat back after Undo');
    expect(await kinds(s.id)).toEqual(['archive', 'unarchive']);

    await vs.contextAction(s.first, 'Archive Chat');
    await vs.waitForToast('Archived');
    await vs.waitForRows((r) => rowIndex(r, s.first) < 0, 'the archived chat gone');
    expect(await vs.cli(['list', '--project', vs.project])).not.toContain(s.first);
    expect(await vs.cli(['list', '--project', vs.project, '--archived'])).toContain(s.first);
  });
});
