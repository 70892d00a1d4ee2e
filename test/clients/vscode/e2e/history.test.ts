// End to end in real VS Code (code-server + headless Chromium, harness.ts): the History view of
// the packaged extension against a store the CLI writes. What a user sees is checked through the
// DOM and kept as screenshots in test-artifacts/vscode/ for a person to look at.
//
// One code-server for the whole file (starting it is the slow part); the tests run in order and
// each leaves the workbench as the next expects it (no open menus or inputs).

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { groupOf } from '../../../../clients/vscode/src/history/group';
import { S } from '../../../../clients/vscode/src/strings';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { VsCode, missingPrerequisites } from './harness';
import { environOf } from '../../../helpers/proc';

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
    { id: '', first: 'Add idempotency to RefundService', at: new Date(now.getTime() - 5 * 60_000), turns: 3, model: 'claude-sonnet-4', title: 'Idempotent refunds' },
    { id: '', first: 'Why is the CI cache cold', at: new Date(now.getTime() - 1 * DAY), turns: 1, model: 'gpt-4o' },
    { id: '', first: 'Plan the database migration', at: new Date(now.getTime() - 3 * DAY), turns: 2, model: 'claude-sonnet-4' },
    { id: '', first: 'Sketch the onboarding flow', at: new Date(now.getTime() - 40 * DAY), turns: 1, model: 'gpt-4o' },
  ];

  beforeAll(async () => {
    vs = await VsCode.create();
    for (const s of seeded) s.id = await vs.seed(s);
    await vs.start();
  }, 240_000);

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail' || !vs) return;
    await vs.screenshot(`failed-${ctx.task.name.replace(/\W+/g, '-')}`).catch(() => undefined);
    process.stdout.write(`\n--- code-server output\n${vs.log.slice(-4000)}\n${(await vs.extensionLogs()).slice(-12000)}\n`);
  });

  afterAll(async () => {
    await vs?.stop();
  }, 60_000);

  it('lists the sessions the CLI wrote, grouped and labelled', async () => {
    await vs.openHistory();
    await vs.widenSidebar();
    const rows = await vs.waitForRows((r) => seeded.every((s) => r.some((x) => x.includes(s.title ?? s.first))), 'the seeded sessions');
    await vs.screenshot('01-history');

    // Groups in order, each followed by its sessions, newest first.
    const expected: string[] = [];
    for (const key of ['today', 'yesterday', 'thisWeek', 'older'] as const) {
      const inGroup = seeded.filter((s) => groupOf(s.at.toISOString(), new Date()) === key);
      if (inGroup.length === 0) continue;
      expected.push(S.groups[key]);
      for (const s of inGroup.sort((a, b) => b.at.getTime() - a.at.getTime())) expected.push(s.title ?? s.first);
    }
    const shown = rows.map((r) => r.trim()).map((r) => expected.find((e) => r === e || r.startsWith(`${e},`)) ?? `?${r}`);
    expect(shown).toEqual(expected);

    // Each item: title, then "relative time · turns · model".
    const today = rows.find((r) => r.startsWith('Idempotent refunds'))!;
    expect(today).toMatch(/^Idempotent refunds, \d+ min ago · 3 turns · claude-sonnet-4$/);
    const yesterday = rows.find((r) => r.startsWith('Why is the CI cache cold'))!;
    expect(yesterday).toMatch(/^Why is the CI cache cold, (yesterday|\d+ h ago) · 1 turn · gpt-4o$/);
    const old = rows.find((r) => r.startsWith('Sketch the onboarding flow'))!;
    expect(old).toMatch(/^Sketch the onboarding flow, \d{1,2} [A-Z][a-z]{2}( \d{4})? · 1 turn · gpt-4o$/);
    // The description is what the eye sees next to the title.
    await expect.poll(() => vs.historyRow('Idempotent refunds').locator('.label-description').innerText()).toMatch(/^\d+ min ago · 3 turns · claude-sonnet-4$/);
  });

  it('shows a session the CLI writes while the page is open, without a reload', async () => {
    const before = await vs.historyRows();
    expect(before.some((r) => r.startsWith('Live from the terminal'))).toBe(false);
    const id = await vs.seed({ at: new Date(), first: 'Live from the terminal', model: 'gpt-4o' });
    const rows = await vs.waitForRows((r) => r.some((x) => x.startsWith('Live from the terminal')), 'the new session');
    // Newest first: right under "Today".
    expect(rows[0].trim()).toBe(S.groups.today);
    expect(rows[1]).toMatch(/^Live from the terminal, (just now|\d+ min ago) · 1 turn · gpt-4o$/);
    // An append to an existing session updates its turns in place.
    await vs.append(id, [{ kind: 'user', content: 'and one more thing' }]);
    await vs.waitForRows((r) => r.some((x) => /^Live from the terminal, (just now|\d+ min ago) · 2 turns · gpt-4o$/.test(x)), 'the appended turn');
    await vs.screenshot('02-live-append');
  });

  it('opens the transcript as Markdown in a read-only editor', async () => {
    await vs.historyRow('Idempotent refunds').click();
    const tab = vs.page.locator('.tabs-container .tab', { hasText: 'Idempotent refunds.md' }).first();
    await tab.waitFor({ timeout: 60_000 });
    await expect.poll(() => vs.editorText(), { timeout: 60_000 }).toContain('# Idempotent refunds');
    const text = await vs.editorText();
    expect(text).toContain('## User');
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
    expect(tip).toContain(`Session ${seeded[0].id}`);
    expect(tip).toContain('3 turns · claude-sonnet-4');
    await vs.screenshot('03-tooltip', { x: 0, y: 0, width: 1100, height: 420 });
    await vs.page.mouse.move(900, 700);
  });

  it('copies a session as Markdown to the clipboard', async () => {
    const s = seeded[1];
    await vs.contextAction(s.first, 'Copy Chat as Markdown');
    const expected = (await vs.cli(['export', s.id])).trim();
    expect(expected).toContain(`# ${s.first}`);
    await expect.poll(async () => (await vs.page.evaluate(() => navigator.clipboard.readText())).trim(), { timeout: 60_000 }).toBe(expected);
    // And a person pasting it gets the same: into an untitled editor.
    await vs.command('File: New Untitled Text File');
    await vs.page.locator('.tabs-container .tab', { hasText: 'Untitled-1' }).first().waitFor({ timeout: 60_000 });
    await vs.page.keyboard.press('Control+V');
    await expect.poll(() => vs.editorText(), { timeout: 60_000 }).toContain(`# ${s.first}`);
    await vs.screenshot('04-copy-markdown');
    await vs.command('View: Revert and Close Editor');
  });

  it('renames a session through the UI, into the store', async () => {
    const s = seeded[2];
    await vs.contextAction(s.first, 'Rename Chat');
    const input = vs.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 60_000 });
    expect(await input.inputValue()).toBe(s.first);
    await input.fill('Migration plan, second try');
    await vs.screenshot('05-rename-input');
    await vs.page.keyboard.press('Enter');
    await vs.waitForRows((r) => r.some((x) => x.startsWith('Migration plan, second try,')), 'the new title');
    const titles = (await vs.events(s.id)).filter((e) => e.kind === 'title');
    expect(titles.at(-1)).toMatchObject({ kind: 'title', title: 'Migration plan, second try', source: 'user' });
    expect(await vs.cli(['list', '--project', vs.project])).toContain('Migration plan, second try');
    await vs.screenshot('05-renamed');
  });

  it('exports a session as a Markdown file', async () => {
    const s = seeded[0];
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
    const hit = vs.page.locator('.quick-input-list .monaco-list-row', { hasText: 'matches in the transcript' }).filter({ visible: true }).first();
    await hit.waitFor({ timeout: 60_000 });
    expect(await hit.innerText()).toContain('Migration plan, second try');
    await vs.screenshot('06-history-search');
    await vs.page.keyboard.press('Enter');
    await vs.waitForToast('Resumed “Migration plan, second try”');
  });

  it('deletes through the UI into the OS trash, with an Undo that keeps the file', async () => {
    const kept = seeded[3];
    const gone = seeded[1];
    // Delete, then Undo: the row comes back and the file was never touched.
    await vs.contextAction(kept.first, 'Delete Chat');
    const toast = await vs.waitForToast('will be moved to the trash');
    await vs.waitForRows((r) => !r.some((x) => x.startsWith(kept.first)), 'the deleted row hidden');
    await vs.screenshot('06-delete-toast');
    await toast.locator('.monaco-button', { hasText: 'Undo' }).click();
    await vs.waitForRows((r) => r.some((x) => x.startsWith(kept.first)), 'the undone row back');

    // Delete for real: hidden at once, then the file leaves the store for the trash.
    await vs.contextAction(gone.first, 'Delete Chat');
    await vs.waitForRows((r) => !r.some((x) => x.startsWith(gone.first)), 'the deleted row hidden');
    await vs.until(async () => (await vs.sessionFile(gone.id)) === undefined, 'the session file to leave the store');
    await vs.until(async () => (await trashedFiles(vs)).some((f) => f.endsWith(`/${gone.id}.jsonl`)), 'the file in the OS trash');
    // Both deletions had the same grace period and the second is over, so the first would be too:
    // the undone session is still in the store.
    expect(await vs.sessionFile(kept.id)).toBeDefined();
    expect(await vs.cli(['list', '--project', vs.project])).not.toContain(gone.id);
    await vs.screenshot('06-deleted');
  });

  it('New Chat seals the current chat and says so once', async () => {
    const first = seeded[0];
    // Identical messages are not shown twice while one is still listed: start from none.
    await vs.command('Notifications: Clear All Notifications');
    // Resume makes a chat current and says how it came back.
    await vs.contextAction(first.title!, 'Resume Chat');
    await vs.waitForToast(`Resumed “${first.title}” (tier 1`);
    await vs.screenshot('07-resumed');
    await vs.command('LevelCode: New Chat');
    await vs.waitForToast(S.newChat.savedOnce);
    await vs.until(async () => (await vs.events(first.id)).some((e) => e.kind === 'event' && e.type === 'sealed'), 'the sealed event');
    await vs.screenshot('07-new-chat-toast');

    // A second New Chat seals again but does not repeat the toast.
    const second = seeded[3];
    await vs.contextAction(second.first, 'Resume Chat');
    await vs.waitForToast(`Resumed “${second.first}”`);
    await vs.command('LevelCode: New Chat');
    await vs.until(async () => (await vs.events(second.id)).some((e) => e.kind === 'event' && e.type === 'sealed'), 'the second sealed event');
    // The sidecar titled the untitled chat while sealing (fallback: no language model here).
    expect((await vs.events(second.id)).some((e) => e.kind === 'title' && e.source === 'fallback')).toBe(true);
    // Anything the extension shows after this New Chat arrives after a toast it would have shown,
    // so once a later message is on screen, the notification list is complete.
    await vs.contextAction(first.title!, 'Resume Chat');
    await vs.waitForToast(`Resumed “${first.title}”`);
    await vs.command('Notifications: Show Notifications');
    const center = vs.page.locator('.notifications-center .notification-list-item');
    await center.first().waitFor({ timeout: 60_000 });
    const all = await center.allInnerTexts();
    expect(all.filter((t) => t.includes(S.newChat.savedOnce))).toHaveLength(1);
    await vs.screenshot('07-notifications');
    await vs.page.keyboard.press('Escape');
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
      if (m) out.push(decodeURI(m[1]));
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
