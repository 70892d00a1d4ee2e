// End to end in real VS Code (code-server + headless Chromium, harness.ts): the History view of
// the packaged extension against a store the CLI writes. What a user sees is checked through the
// DOM and kept as screenshots in test-artifacts/vscode/ for a person to look at.
//
// One code-server for the whole file (starting it is the slow part); the tests run in order and
// each leaves the workbench as the next expects it (no open menus or inputs).

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { S } from '../../../../clients/vscode/src/strings.js';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { VsCode, missingPrerequisites, reportIfFailed } from './harness.js';
import { environOf } from '../../../helpers/proc.js';
import { at } from '../../../helpers/items.js';

const missing = missingPrerequisites();
if (missing.length) {
  throw new Error(`the VS Code end-to-end suite needs (run .ci/clients-vscode.sh):\n- ${missing.join('\n- ')}`);
}

const HOUR = 3600_000;
const DAY = 24 * HOUR;

describe('VS Code History (code-server)', () => {
  let vs: VsCode;
  const now = new Date();
  const seeded: { id: string; first: string; at: Date; turns: number; model: string; title?: string }[] = [
    {
      id: '',
      first: 'Add idempotency to RefundService',
      at: new Date(now.getTime() - 5 * 60_000),
      turns: 3,
      model: 'claude-sonnet-4',
      title: 'Idempotent refunds',
    },
    { id: '', first: 'Why is the CI cache cold', at: new Date(now.getTime() - 1 * DAY), turns: 1, model: 'gpt-4o' },
    { id: '', first: 'Plan the database migration', at: new Date(now.getTime() - 3 * DAY), turns: 2, model: 'claude-sonnet-4' },
    { id: '', first: 'Sketch the onboarding flow', at: new Date(now.getTime() - 40 * DAY), turns: 1, model: 'gpt-4o' },
    {
      id: '',
      first: 'Why do webhooks fail',
      at: new Date(now.getTime() - 10 * DAY),
      turns: 12,
      model: 'claude-sonnet-4',
      title: 'Retry failed payment webhooks with exponential backoff and a dead-letter queue',
    },
  ];
  const LONG = at(seeded, 4).title!;

  beforeAll(async () => {
    vs = await VsCode.create();
    for (const s of seeded) s.id = await vs.seed(s);
    await vs.start();
  }, 240_000);

  afterEach((ctx) => reportIfFailed(vs, ctx, 'history'));

  afterAll(async () => {
    await vs?.stop();
  }, 60_000);

  it('lists the sessions the CLI wrote, grouped and labelled by the sidecar, whole titles', async () => {
    await vs.openHistory();
    let rows = await vs.waitForRows((r) => seeded.every((s) => r.some((x) => x.includes(s.title ?? s.first))), 'the seeded sessions');
    await vs.screenshot('01-history-default-width');
    await vs.widenSidebar();
    rows = await vs.historyRows();
    await vs.screenshot('01-history');

    // The groups the sidecar gives (by calendar days in the local zone), in order, each followed
    // by its sessions, newest first.
    const groupOf = (at: Date) => {
      const day = (d: Date) => Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) / DAY;
      const days = day(new Date()) - day(at);
      return days <= 0 ? 'Today' : days === 1 ? 'Yesterday' : days <= 7 ? 'Previous 7 days' : days <= 30 ? 'Previous 30 days' : 'Older';
    };
    const expected: string[] = [];
    const byTime = [...seeded].sort((a, b) => b.at.getTime() - a.at.getTime());
    for (const s of byTime) {
      const g = groupOf(new Date(s.at.getTime() - 30_000));
      if (!expected.includes(g)) expected.push(g);
      expected.push(s.title ?? s.first);
    }
    const shown = rows.map((r) => r.trim()).map((r) => expected.find((e) => r === e || r.startsWith(`${e},`)) ?? `?${r}`);
    expect(shown).toEqual(expected);
    expect(expected).toContain('Previous 7 days');
    expect(expected).toContain('Previous 30 days');
    expect(expected).toContain('Older');

    // Each item (its screen-reader line): title, then "time · turns · model" in local time.
    const today = rows.find((r) => r.startsWith('Idempotent refunds'))!;
    expect(today).toMatch(/^Idempotent refunds, \d\d:\d\d · 3 turns · claude-sonnet-4$/);
    const old = rows.find((r) => r.startsWith('Sketch the onboarding flow'))!;
    expect(old).toMatch(/^Sketch the onboarding flow, [A-Z][a-z]{2} \d{1,2}(, \d{4})? · 1 turn · gpt-4o$/);
    await expect
      .poll(() => vs.historyRow('Idempotent refunds').locator('.label-description').innerText())
      .toMatch(/^\d\d:\d\d · 3 turns · claude-sonnet-4$/);
    const yesterday = await vs.historyRow('Why is the CI cache cold').locator('.label-description').innerText();
    expect(yesterday).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d\d:\d\d · 1 turn · gpt-4o$/);
    // A long title is whole in its label: VS Code cuts it at the edge of the side bar.
    expect(await vs.historyRow('Retry failed payment').locator('.label-name').innerText()).toBe(LONG);
  });

  it('shows a session the CLI writes while the page is open, without a reload', async () => {
    const before = await vs.historyRows();
    expect(before.some((r) => r.startsWith('Live from the terminal'))).toBe(false);
    const id = await vs.seed({ at: new Date(), first: 'Live from the terminal', model: 'gpt-4o' });
    const rows = await vs.waitForRows((r) => r.some((x) => x.startsWith('Live from the terminal')), 'the new session');
    // Newest first: right under "Today".
    expect(at(rows, 0).trim()).toBe('Today');
    expect(rows[1]).toMatch(/^Live from the terminal, \d\d:\d\d · 1 turn · gpt-4o$/);
    // An append to an existing session updates its turns in place.
    await vs.append(id, [{ kind: 'user', content: 'and one more thing' }]);
    await vs.waitForRows((r) => r.some((x) => /^Live from the terminal, \d\d:\d\d · 2 turns · gpt-4o$/.test(x)), 'the appended turn');
    await vs.screenshot('02-live-append');
  });

  it('opens the transcript rendered on a click, and as Markdown in a read-only editor', async () => {
    // A click: the Markdown preview, headings rendered (no "#" left), not the source.
    await vs.historyRow('Idempotent refunds').click();
    await vs.page.locator('.tabs-container .tab', { hasText: 'Preview Idempotent refunds.md' }).first().waitFor({ timeout: 60_000 });
    await expect.poll(() => vs.previewText(), { timeout: 60_000 }).toContain('Add idempotency to RefundService');
    const rendered = await vs.previewText();
    expect(rendered).toContain('Idempotent refunds');
    expect(rendered).not.toContain('# Idempotent refunds');
    await vs.screenshot('03-transcript-preview');

    // Open Transcript: the source, read-only.
    await vs.contextAction('Idempotent refunds', 'Open Transcript');
    const tab = vs.page.locator('.tabs-container .tab', { hasText: 'Idempotent refunds.md' }).first();
    await tab.waitFor({ timeout: 60_000 });
    await expect.poll(() => vs.editorText(), { timeout: 60_000 }).toContain('# Idempotent refunds');
    const text = await vs.editorText();
    expect(text).toContain('## Turn 1 · ');
    expect(text).toContain('**You**');
    expect(text).toContain('Add idempotency to RefundService');
    expect(text).toContain('Answer 1 to: Add idempotency to RefundService');
    // Read-only: typing changes nothing.
    await vs.page.locator('.editor-group-container.active .monaco-editor .view-lines').filter({ visible: true }).first().click();
    await vs.page.keyboard.type('typed');
    expect(await vs.editorText()).not.toContain('typed');
    await vs.page.keyboard.press('Escape'); // the "Cannot edit in read-only editor" hint
    await vs.screenshot('03-transcript');

    // The tooltip: title, preview and facts.
    await vs.historyRow('Idempotent refunds').hover();
    const hover = vs.page.locator('.monaco-hover').filter({ visible: true, hasText: 'Session ' }).first();
    await hover.waitFor({ timeout: 60_000 });
    const tip = (await hover.innerText()).replace(/\u00a0/g, ' ');
    expect(tip).toContain('Idempotent refunds');
    expect(tip).toContain(`Session ${at(seeded, 0).id}`);
    expect(tip).toContain('3 turns · claude-sonnet-4');
    await vs.screenshot('03-tooltip', { x: 0, y: 0, width: 1100, height: 420 });
    await vs.page.mouse.move(900, 700);

    // A long title: whole in the tooltip, whose text breaks at spaces (no &nbsp; glued words).
    await vs.dismissHover();
    await vs.historyRow('Retry failed payment').hover();
    const longHover = vs.page.locator('.monaco-hover').filter({ visible: true, hasText: 'Session ' }).first();
    await longHover.waitFor({ timeout: 60_000 });
    const longTip = await longHover.innerText();
    expect(longTip).toContain(LONG);
    expect(longTip).not.toContain('\u00a0');
    expect(await longHover.locator('strong').first().innerText()).toBe(LONG);
    await vs.screenshot('03-tooltip-long', { x: 0, y: 0, width: 1100, height: 420 });
    await vs.dismissHover();
  });

  it('copies a session as Markdown to the clipboard', async () => {
    const s = at(seeded, 1);
    await vs.contextAction(s.first, 'Copy Chat as Markdown');
    const expected = (await vs.cli(['export', s.id])).trim();
    expect(expected).toContain(`# ${s.first}`);
    await expect
      .poll(async () => (await vs.page.evaluate(() => navigator.clipboard.readText())).trim(), { timeout: 60_000 })
      .toBe(expected);
    // And a person pasting it gets the same: into an untitled editor.
    await vs.command('File: New Untitled Text File');
    await vs.page.locator('.tabs-container .tab', { hasText: 'Untitled-1' }).first().waitFor({ timeout: 60_000 });
    await vs.page.keyboard.press('Control+V');
    await expect.poll(() => vs.editorText(), { timeout: 60_000 }).toContain(`# ${s.first}`);
    await vs.screenshot('04-copy-markdown');
    await vs.command('View: Revert and Close Editor');
  });

  it('renames a session through the UI, into the store', async () => {
    const s = at(seeded, 2);
    await vs.contextAction(s.first, 'Rename Chat');
    const input = vs.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 60_000 });
    expect(await input.inputValue()).toBe(s.first);
    await input.fill('Migration plan, second try');
    await vs.screenshot('05-rename-input');
    await vs.page.keyboard.press('Enter');
    const order = (r: string[]) =>
      r
        .map((x) => at(x.split(','), 0))
        .map((x) => (x === s.first ? 'Migration plan' : x.startsWith('Migration plan') ? 'Migration plan' : x));
    const before = order(await vs.historyRows());
    const after = await vs.waitForRows((r) => r.some((x) => x.startsWith('Migration plan, second try,')), 'the new title');
    // A rename is no message: the chat keeps its place (History orders by the last message).
    expect(order(after)).toEqual(before);
    const titles = (await vs.events(s.id)).filter((e) => e.kind === 'title');
    expect(titles.at(-1)).toMatchObject({ kind: 'title', title: 'Migration plan, second try', source: 'user' });
    expect(await vs.cli(['list', '--project', vs.project])).toContain('Migration plan, second try');
    await vs.screenshot('05-renamed');

    // F2 on the selected row renames too.
    await vs.dismissHover();
    await vs.historyStill();
    await vs.historyRow('Migration plan').click();
    // The click opens the preview, which takes the focus when it is ready: wait for it.
    await vs.page
      .locator('.tabs-container .tab.active', { hasText: 'Preview Migration plan, second try.md' })
      .first()
      .waitFor({ timeout: 60_000 });
    await vs.command('LevelCode: Focus on History View');
    await vs.page.keyboard.press('F2');
    // The palette's input closes first; then the rename box opens with the title.
    await expect.poll(() => input.inputValue(), { timeout: 60_000 }).toBe('Migration plan, second try');
    await vs.page.keyboard.press('Escape');
  });

  it('exports a session as a Markdown file', async () => {
    const s = at(seeded, 0);
    await vs.contextAction(s.title!, 'Export Chat as Markdown');
    // code-server's own save dialog: a path in a quick input, the workspace folder proposed.
    const input = vs.page.locator('.quick-input-widget input').filter({ visible: true }).first();
    await input.waitFor({ timeout: 60_000 });
    await expect.poll(() => input.inputValue()).toContain('Idempotent refunds.md');
    await vs.page.keyboard.press('Enter');
    await vs.waitForToast('Exported to');
    const file = join(vs.project, 'Idempotent refunds.md');
    await vs.until(() => existsSync(file), 'the exported file');
    expect((await readFile(file, 'utf8')).trim()).toBe((await vs.cli(['export', s.id])).trim());
    await vs.screenshot('06-exported');
  });

  it('finds a chat by words in its transcript and resumes it from Chat History', async () => {
    await vs.command('LevelCode: Chat History');
    const input = vs.page.locator('.quick-input-widget input').filter({ visible: true }).first();
    await input.waitFor({ timeout: 60_000 });
    // The chat was renamed: these words are only in its transcript now.
    await input.fill('"database migration"');
    const hit = vs.page
      .locator('.quick-input-list .monaco-list-row', { hasText: 'matches in the transcript' })
      .filter({ visible: true })
      .first();
    await hit.waitFor({ timeout: 60_000 });
    expect(await hit.innerText()).toContain('Migration plan, second try');
    await vs.screenshot('06-history-search');
    await vs.page.keyboard.press('Enter');
    // No language model here: it says so and never claims to have resumed.
    await vs.waitForToast(S.chat.noModel);
  });

  it('deletes through the UI into the OS trash at once, with an Undo that restores the file', async () => {
    const kept = at(seeded, 3);
    const gone = at(seeded, 1);
    // Delete: the file goes to the OS trash at once; Undo brings the same bytes back.
    const bytes = await readFile((await vs.sessionFile(kept.id))!, 'utf8');
    await vs.contextAction(kept.first, 'Delete Chat');
    const toast = await vs.waitForToast('was moved to the trash');
    await vs.waitForRows((r) => !r.some((x) => x.startsWith(kept.first)), 'the deleted row gone');
    await vs.until(async () => (await trashedFiles(vs)).some((f) => f.endsWith(`/${kept.id}.jsonl`)), 'the file in the OS trash');
    expect(await vs.sessionFile(kept.id)).toBeUndefined();
    await vs.screenshot('06-delete-toast');
    await toast.locator('.monaco-button', { hasText: 'Undo' }).click();
    await vs.waitForRows((r) => r.some((x) => x.startsWith(kept.first)), 'the restored row back');
    expect(await readFile((await vs.sessionFile(kept.id))!, 'utf8')).toBe(bytes);
    expect((await trashedFiles(vs)).some((f) => f.endsWith(`/${kept.id}.jsonl`))).toBe(false);

    // Delete with the Delete key on the selected row: gone, the file in the trash.
    await vs.dismissHover();
    await vs.historyStill();
    await vs.historyRow(gone.first).click();
    await vs.page
      .locator('.tabs-container .tab.active', { hasText: `Preview ${gone.first}.md` })
      .first()
      .waitFor({ timeout: 60_000 });
    await vs.command('LevelCode: Focus on History View');
    await vs.page.keyboard.press('Delete');
    await vs.waitForRows((r) => !r.some((x) => x.startsWith(gone.first)), 'the deleted row hidden');
    await vs.until(async () => (await vs.sessionFile(gone.id)) === undefined, 'the session file to leave the store');
    await vs.until(async () => (await trashedFiles(vs)).some((f) => f.endsWith(`/${gone.id}.jsonl`)), 'the file in the OS trash');
    expect(await vs.sessionFile(kept.id)).toBeDefined();
    expect(await vs.cli(['list', '--project', vs.project])).not.toContain(gone.id);
    await vs.screenshot('06-deleted');
  });

  it('Resume without a language model says so in one line, offers the transcript and takes no lock', async () => {
    const first = at(seeded, 0);
    await vs.command('Notifications: Clear All Notifications');
    await vs.contextAction(first.title!, 'Resume Chat');
    const toast = await vs.waitForToast(S.chat.noModel);
    expect(await toast.innerText()).not.toContain('Resumed');
    await vs.screenshot('07-no-model');
    const file = (await vs.sessionFile(first.id))!;
    expect(existsSync(`${file}.lock`)).toBe(false);
    await toast.locator('.monaco-button', { hasText: S.chat.openTranscript }).click();
    await vs.page.locator('.tabs-container .tab.active', { hasText: first.title! }).first().waitFor({ timeout: 60_000 });
    // The CLI can append at once: nothing holds the session.
    await vs.append(first.id, [{ kind: 'user', content: 'written by the CLI' }]);
    expect((await vs.events(first.id)).at(-1)).toMatchObject({ kind: 'user', content: 'written by the CLI' });
  });

  // The category is VS Code's own wording of the key prefix `levelcodeSessions`: "Levelcode".
  it('lists its settings in User settings as "Levelcode Sessions: …", the store folder first', async () => {
    await vs.command('Preferences: Open User Settings');
    const titles = vs.page.locator('.settings-editor .setting-item-contents .setting-item-title').filter({ visible: true });
    await vs.page.locator('.settings-editor').first().waitFor({ timeout: 60_000 });
    await vs.page.keyboard.type('@ext:levelcode.levelcode-sessions');
    await expect.poll(() => titles.first().innerText(), { timeout: 60_000 }).toMatch(/^Levelcode Sessions: Store Folder/);
    const first = vs.page.locator('.settings-editor .setting-item-contents').filter({ visible: true }).first();
    expect(await first.locator('.setting-item-description').innerText()).toContain('Where your chats are kept');
    // The User tab (not only Remote) holds them.
    expect(await vs.page.locator('.settings-editor .settings-tabs-widget .action-label.checked').first().innerText()).toMatch(/^User/);
    await vs.screenshot('08-settings');
    await vs.closeSettings();
  });

  it('starts the sidecar with NODE_EXTRA_CA_CERTS empty, the rest of the environment kept', async () => {
    // Node reads the bundle that variable names at every start; the sidecar opens no connection.
    expect(environOf(vs.pid!).get('NODE_EXTRA_CA_CERTS')).toBe(vs.extraCaCerts);
    const env = environOf(await sidecarPid(vs));
    expect(env.get('NODE_EXTRA_CA_CERTS')).toBe('');
    expect(env.get('LEVELCODE_SESSIONS_DIR')).toBe(vs.store);
  });

  it('restarts a sidecar that died, with a notice, and the History keeps working', async () => {
    const pid = await sidecarPid(vs);
    process.kill(pid, 'SIGKILL');
    await vs.waitForToast(S.sidecar.restarting);
    await vs.until(async () => (await sidecarPid(vs).catch(() => pid)) !== pid, 'a new sidecar process');
    await vs.seed({ at: new Date(), first: 'Written after the restart' });
    await vs.waitForRows((r) => r.some((x) => x.startsWith('Written after the restart')), 'a session written after the restart');
    await vs.screenshot('08-sidecar-restarted');
  });
});

/** Original paths of the files in the temp home's XDG trash (the .trashinfo records). */
async function trashedFiles(vs: VsCode): Promise<string[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const out: string[] = [];
  for (const dir of [join(vs.root, 'xdg/data/Trash/info'), join(vs.root, 'home/.local/share/Trash/info')]) {
    for (const f of await readdir(dir).catch(() => [] as string[])) {
      const m = /^Path=(.*)$/m.exec(await readFile(join(dir, f), 'utf8'));
      if (m) out.push(decodeURI(at(m, 1)));
    }
  }
  return out;
}

/** The pid of the bundled sidecar serving this test's store (found in /proc by its arguments). */
async function sidecarPid(vs: VsCode): Promise<number> {
  const { readdir, readFile } = await import('node:fs/promises');
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const args = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (args.some((a) => a.endsWith('dist/sidecar/cli/main.js')) && args.includes(vs.store) && args.includes('serve')) return Number(entry);
  }
  throw new Error('no sidecar process found');
}
