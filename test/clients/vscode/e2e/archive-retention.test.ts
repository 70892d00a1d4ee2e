// End to end in real VS Code (code-server, harness.ts): archived chats and retention (issue 24).
// The History's title bar toggles an Archived group, where Unarchive brings a chat back; the
// setting autoArchiveDays restarts the sidecar, which archives idle chats at start-up; Apply
// Retention… says when nothing falls out, else shows a dry run as a checklist, archives what
// stays checked, or moves it to the OS trash after a modal confirm naming the count.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { VsCode, missingPrerequisites, reportIfFailed } from './harness.js';

const missing = missingPrerequisites();
if (missing.length) {
  throw new Error(`the VS Code end-to-end suite needs (run .ci/clients-vscode.sh):\n- ${missing.join('\n- ')}`);
}

describe('VS Code History: archived chats and retention (code-server)', () => {
  let vs: VsCode;
  const now = Date.now();
  const DAY = 86_400_000;
  const seeded = [
    { id: '', first: 'Draft the release notes', at: new Date(now - 60_000) },
    { id: '', first: 'Profile the slow endpoint', at: new Date(now - 2 * DAY) },
    { id: '', first: 'Compare the queue brokers', at: new Date(now - 40 * DAY) },
    { id: '', first: 'Sketch the old dashboard', at: new Date(now - 50 * DAY) },
  ];
  const has = (rows: string[], text: string) => rows.some((r) => r.startsWith(text));
  const archivedGroup = (rows: string[]) => rows.findIndex((r) => r.trim() === 'Archived');
  const archives = async (id: string) => (await vs.events(id)).filter((e) => e.kind === 'event' && e.type === 'archive');

  beforeAll(async () => {
    vs = await VsCode.create();
    for (const s of seeded) s.id = await vs.seed(s);
    await vs.start();
    await vs.openHistory();
    await vs.waitForRows((r) => seeded.every((s) => has(r, s.first)), 'the seeded chats');
  }, 240_000);

  afterEach((ctx) => reportIfFailed(vs, ctx, 'archive'));

  afterAll(async () => {
    await vs?.stop();
  }, 60_000);

  it('shows archived chats in an Archived group from the title bar, with Unarchive, and hides them again', async () => {
    const s = seeded[1]!;
    await vs.cli(['archive', s.id]);
    await vs.waitForRows((r) => !has(r, s.first), 'the archived chat out of History');

    await vs.historyTitleAction('Show Archived Chats');
    await vs.waitForRows(
      (r) => archivedGroup(r) > 0 && r.findIndex((x) => x.startsWith(s.first)) > archivedGroup(r),
      'the chat under Archived, last',
    );
    await vs.screenshot('archive-01-archived-group');

    await vs.contextAction(s.first, 'Unarchive Chat');
    await vs.waitForRows((r) => archivedGroup(r) < 0 && has(r, s.first), 'the chat back in its place, no Archived group');
    expect((await vs.events(s.id)).map((e) => e.type).filter((t) => t === 'archive' || t === 'unarchive')).toEqual([
      'archive',
      'unarchive',
    ]);
    await vs.page.locator('.pane-body .message', { hasText: 'No archived chats.' }).first().waitFor();

    await vs.historyTitleAction('Hide Archived Chats');
    await vs.cli(['archive', s.id]);
    await vs.waitForRows((r) => !has(r, s.first) && archivedGroup(r) < 0, 'the archived chat hidden, no Archived group');
    await vs.historyTitleAction('Show Archived Chats');
    await vs.waitForRows((r) => archivedGroup(r) > 0, 'the Archived group again');
    await vs.contextAction(s.first, 'Unarchive Chat');
    await vs.historyTitleAction('Hide Archived Chats');
    await vs.waitForRows((r) => has(r, s.first) && archivedGroup(r) < 0, 'the chat back');
  });

  it('Apply Retention… says so when nothing falls out, and changes nothing', async () => {
    const before = await Promise.all(seeded.map(async (s) => (await archives(s.id)).length));
    await vs.command('LevelCode: Apply Retention…');
    await vs.waitForToast('No retention rule is on');
    await vs.setSetting('levelcodeSessions.retentionMaxAgeDays', 365, { restarts: true });
    await vs.command('LevelCode: Apply Retention…');
    await vs.waitForToast('Nothing falls out under the retention settings');
    expect(await Promise.all(seeded.map(async (s) => (await archives(s.id)).length))).toEqual(before);
  });

  it('autoArchiveDays archives idle chats when the sidecar restarts with it', async () => {
    await vs.setSetting('levelcodeSessions.autoArchiveDays', 30, { restarts: true });
    const rows = await vs.waitForRows((r) => !has(r, seeded[2]!.first) && !has(r, seeded[3]!.first), 'the idle chats archived');
    expect(has(rows, seeded[0]!.first) && has(rows, seeded[1]!.first)).toBe(true);
    for (const s of seeded.slice(2)) expect(await archives(s.id)).toEqual([expect.objectContaining({ auto: true, reason: 'idle' })]);
    expect(await vs.cli(['list', '--project', vs.project, '--archived'])).toContain(seeded[3]!.first);
  });

  it('Apply Retention… shows a checklist, archives what stays checked, or trashes it after a confirm', async () => {
    // Written after the start-up pass: idle chats that only Apply Retention… finds.
    const late = [
      { id: '', first: 'Review the flaky migration', at: new Date(now - 70 * DAY) },
      { id: '', first: 'Benchmark the JSON parser', at: new Date(now - 45 * DAY) },
    ];
    for (const s of late) s.id = await vs.seed(s);
    await vs.waitForRows((r) => late.every((s) => has(r, s.first)), 'the late chats');

    await vs.command('LevelCode: Apply Retention…');
    const items = await vs.quickPickRows((r) => r.length === 2, 'the two idle chats');
    expect(items.find((i) => i.includes(late[0]!.first))).toMatch(/idle 70 days/);
    expect(items.find((i) => i.includes(late[1]!.first))).toMatch(/idle 45 days/);
    await vs.screenshot('archive-02-retention-checklist');
    // Uncheck the second: it stays.
    await vs.quickPickRow(late[1]!.first).click();
    await vs.page.keyboard.press('Enter');
    await vs.quickPickRows((r) => r.some((x) => x.startsWith('Archive 1 Chat')), 'the choice of action');
    await vs.page.keyboard.press('Enter'); // the default: Archive
    await vs.waitForToast('Archived 1 chat');
    await vs.waitForRows((r) => !has(r, late[0]!.first) && has(r, late[1]!.first), 'the checked chat archived, the other kept');
    expect(await archives(late[0]!.id)).toHaveLength(1);
    expect(await archives(late[1]!.id)).toEqual([]);

    // Again, and Move to the Trash: a modal names the count first.
    await vs.command('LevelCode: Apply Retention…');
    await vs.quickPickRows((r) => r.length === 1 && r[0]!.includes(late[1]!.first), 'the chat left');
    await vs.page.keyboard.press('Enter');
    await vs.quickPickRow('Move 1 Chat to the Trash').click();
    expect(await vs.dialogButton('Move 1 Chat to the Trash')).toContain('Move 1 chat to the trash?');
    await vs.waitForToast('Moved 1 chat to the trash');
    await vs.waitForRows((r) => !has(r, late[1]!.first), 'the trashed chat gone');
    expect(await vs.sessionFile(late[1]!.id)).toBeUndefined();
    const info = join(vs.root, 'xdg/data/Trash/info');
    const records = await Promise.all((await readdir(info)).map((f) => readFile(join(info, f), 'utf8')));
    expect(records.some((r) => r.includes(`/${late[1]!.id}.jsonl`))).toBe(true);
    expect(await vs.sessionFile(seeded[0]!.id)).toBeDefined();
  });
});
