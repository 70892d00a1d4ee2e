// End to end in real VS Code (code-server + headless Chromium, harness.ts), issue 40: the History
// rows the sidecar computes (test/fixtures/history-view/, the set the Neovim and JUnit suites
// check too) drawn with their whole titles at the default side bar width and at 560 px; "Import
// Chats from Other AI Tools…" importing files the real Claude Code and Codex CLIs wrote (laid out
// in the temp home as those tools keep them), with progress; and an imported chat's transcript,
// one heading per turn in local time. code-server runs in Asia/Kolkata (TZ), the fixture's zone,
// so the groups and times are the ones expected.json holds. The screenshots the extension's
// README shows come from here (npm run screenshots:vscode refreshes them).

import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../../../import/layout.js';
import { VsCode, missingPrerequisites, reportIfFailed } from './harness.js';
// @ts-expect-error: a plain .mjs shared with the Neovim and JUnit suites, without types
import { materialise } from '../../../fixtures/history-view/materialise.mjs';

const missing = missingPrerequisites();
if (missing.length) {
  throw new Error(`the VS Code end-to-end suite needs (run .ci/clients-vscode.sh):\n- ${missing.join('\n- ')}`);
}

interface Row {
  id: string;
  group: string;
  groupLabel: string;
  title: string;
  description: string;
}

/** The folder the real CLIs ran in when they wrote the fixtures (tools/fixtures/*.mjs). */
const RECORDED = '/tmp/levelcode-fixture/demo';

/**
 * Claude Code's and Codex's files as the real CLIs wrote them, laid out in `home` as those tools
 * keep them, with the folder they ran in made this test's project (so the imported chats are
 * this window's).
 */
async function realToolHome(home: string, project: string): Promise<void> {
  const slug = (p: string) => p.replace(/[^A-Za-z0-9]/g, '-');
  const claude = join(home, '.claude', 'projects', slug(project));
  await cp(join(FIXTURES, 'claude-code', 'real-2.1.332', 'projects', slug(RECORDED)), claude, { recursive: true });
  await cp(join(FIXTURES, 'codex', 'real-0.171.0', 'sessions'), join(home, '.codex', 'sessions'), { recursive: true });
  for (const root of [claude, join(home, '.codex')]) {
    for (const f of await readdir(root, { recursive: true })) {
      if (!String(f).endsWith('.jsonl')) continue;
      const file = join(root, String(f));
      const text = await readFile(file, 'utf8');
      await writeFile(file, text.replaceAll(RECORDED, project).replaceAll(slug(RECORDED), slug(project)));
    }
  }
}

/** The side bar and a little of the editor beside it, the height of the rows (for the README). */
async function sidebarClip(vs: VsCode): Promise<{ x: number; y: number; width: number; height: number }> {
  const bar = (await vs.page.locator('.part.sidebar').boundingBox())!;
  return { x: 0, y: 0, width: Math.min(1280, bar.x + bar.width + 40), height: 520 };
}

describe('VS Code History view, Import, transcripts (code-server, Asia/Kolkata)', () => {
  let vs: VsCode;
  let want: { rows: Row[] };

  beforeAll(async () => {
    vs = await VsCode.create();
    vs.extraEnv.TZ = 'Asia/Kolkata';
    want = materialise(vs.store, vs.project);
    await realToolHome(join(vs.root, 'home'), vs.project);
    await vs.start();
  }, 240_000);

  afterEach((ctx) => reportIfFailed(vs, ctx, 'history-view'));

  afterAll(async () => {
    await vs?.stop();
  }, 60_000);

  it("draws the sidecar's groups and rows in order, each row's whole title in its label", async () => {
    await vs.openHistory();
    // Headers and rows, top to bottom: each group's label, then its rows ("title, description").
    const expected: string[] = [];
    want.rows.forEach((r, i) => {
      if (i === 0 || want.rows[i - 1]!.group !== r.group) expected.push(r.groupLabel);
      expected.push(`${r.title}, ${r.description}${r.group === 'pinned' ? ' · pinned' : ''}`);
    });
    const rows = await vs.waitForRows((r) => r.length === expected.length, `${expected.length} rows`);
    expect(rows.map((r) => r.trim())).toEqual(expected);

    // The label holds the whole title (a DOM check: VS Code cuts it at the edge with CSS only),
    // the description the sidecar's words.
    const check = async () => {
      for (const r of want.rows) {
        const row = vs
          .historyPane()
          .locator(`.monaco-list-row[aria-label^=${JSON.stringify(`${r.title}, `)}]`)
          .first();
        expect(await row.locator('.label-name').innerText(), r.id).toBe(r.title);
        expect(await row.locator('.label-description').innerText()).toBe(r.description);
      }
    };
    await check();
    // Two titles alike but for their ends are both whole, and the two rows differ.
    const refunds = want.rows.filter((r) => r.title.startsWith('Idempotent refunds via the payments webhook'));
    expect(refunds).toHaveLength(2);
    expect(refunds[0]!.title).not.toBe(refunds[1]!.title);
    await vs.dismissHover();
    await vs.readmeScreenshot('history-default-width', await sidebarClip(vs));

    await vs.widenSidebar(560);
    await vs.dismissHover();
    const box = await vs.page.locator('.part.sidebar').boundingBox();
    expect(box!.width).toBeGreaterThanOrEqual(550);
    await check();
    // At 560 px the short titles and their whole description fit in the row.
    const short = vs.historyPane().locator('.monaco-list-row[aria-label^="Write a README for the CLI, "]').first();
    const label = await short.locator('.monaco-icon-label-container').boundingBox();
    const desc = await short.locator('.label-description').boundingBox();
    expect(desc!.x + desc!.width).toBeLessThanOrEqual(label!.x + label!.width + 1);
    await vs.readmeScreenshot('history-560px', await sidebarClip(vs));
  });

  it('imports the chats the real Claude Code and Codex wrote, from the palette, with progress and a report per tool', async () => {
    await vs.command('LevelCode: Import Chats from Other AI Tools…');
    // The tools found on this machine, with their counts, both ticked.
    const picks = await vs.quickPickRows((r) => r.length === 2, 'the two tools found');
    expect(picks[0]).toMatch(/^Claude Code\s*3 new chats$/);
    expect(picks[1]).toMatch(/^Codex\s*3 new chats$/);
    await expect
      .poll(() => vs.page.locator('.quick-input-widget .quick-input-count').filter({ visible: true }).first().innerText())
      .toBe('2 Selected');
    await vs.readmeScreenshot('import-tools');

    // Every notification shown from now on, as it was drawn (the progress ones come and go).
    await vs.page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { __notes: string[] }).__notes = seen;
      const record = () => {
        for (const t of document.querySelectorAll<HTMLElement>('.notifications-toasts .notification-toast')) {
          const text = t.innerText.replace(/\s+/g, ' ').trim();
          if (text && seen[seen.length - 1] !== text) seen.push(text);
        }
      };
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await vs.page.keyboard.press('Enter');
    const report = await vs.waitForToast('Imported 6 chats');
    const text = (await report.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('Claude Code: 3 new chats; Codex: 3 new chats.');
    const notes = await vs.page.evaluate(() => (window as unknown as { __notes: string[] }).__notes);
    const progress = notes.filter((n) => n.includes('Importing chats'));
    expect(progress.length, JSON.stringify(notes)).toBeGreaterThan(0);
    expect(progress.some((n) => n.includes('Claude Code') || n.includes('Codex'))).toBe(true);
    expect(progress.some((n) => n.includes('Cancel'))).toBe(true);
    // A picture for people, not an assertion: let the toasts finish sliding in first.
    await vs.page.waitForTimeout(1500);
    await vs.readmeScreenshot('import-report');

    // In the store and in History, each with its tool's name first in its description.
    const listed = JSON.parse(await vs.cli(['list', '--project', vs.project, '--json'])) as {
      sessions: { source?: { tool: string; path: string } }[];
    };
    const sessions = listed.sessions.filter((s) => s.source?.path.startsWith(join(vs.root, 'home')));
    expect(sessions.filter((s) => s.source?.tool === 'claude-code')).toHaveLength(3);
    expect(sessions.filter((s) => s.source?.tool === 'codex')).toHaveLength(3);
    await vs.waitForRows((r) => r.some((x) => x.startsWith('List the files here. TOOL, Claude Code · ')), 'an imported Claude Code chat');

    // Again: nothing new, said so.
    await vs.command('Notifications: Clear All Notifications');
    await vs.command('LevelCode: Import Chats from Other AI Tools…');
    await vs.waitForToast('Every chat found is already in History: Claude Code (3), Codex (3).');
  });

  it("opens an imported chat's transcript with one heading per turn, tool calls folded inside, local times", async () => {
    await vs.command('Notifications: Clear All Notifications');
    await vs.historyStill();
    await vs
      .historyPane()
      .locator('.monaco-list-row[aria-label^="List the files here. TOOL, Claude Code · "][aria-label*="5 turns"]')
      .first()
      .click();
    await expect.poll(() => vs.previewText(), { timeout: 60_000 }).toContain('Turn 1 ·');
    const text = await vs.previewText();
    const headings = text.split('\n').filter((l) => /^(Turn \d+|Summary|Start|User|Assistant|Agent) · /.test(l.trim()));
    expect(
      headings.every((h) => /^(Turn \d+|Summary) · /.test(h.trim())),
      headings.join('\n'),
    ).toBe(true);
    expect(headings.filter((h) => h.startsWith('Turn'))).toHaveLength(5);
    // Local (Asia/Kolkata) times, no UTC; the tool calls folded under the turn.
    expect(text).not.toContain(' UTC');
    expect(text).toMatch(/Tool call: Bash/);
    expect(text).toContain('You');
    await vs.readmeScreenshot('transcript');
  });
});
