// End to end in real VS Code (code-server, harness.ts): the first minutes with the extension.
// An empty store shows where chats come from, with Import and New Chat; with no folder open the
// History lists every project's chats and each row names its project.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { basename } from 'node:path';
import { VsCode, missingPrerequisites, reportIfFailed } from './harness.js';

const missing = missingPrerequisites();
if (missing.length) {
  throw new Error(`the VS Code end-to-end suite needs (run .ci/clients-vscode.sh):\n- ${missing.join('\n- ')}`);
}

describe('VS Code first use (code-server, no folder open)', () => {
  let vs: VsCode;

  beforeAll(async () => {
    vs = await VsCode.create();
    await vs.start({}, [], { noFolder: true });
  }, 240_000);

  afterEach((ctx) => reportIfFailed(vs, ctx, 'first-use'));

  afterAll(async () => {
    await vs?.stop();
  }, 60_000);

  it('says where chats come from, offering Import and New Chat, once the list has loaded', async () => {
    // The tree is hidden while the welcome shows: open the container, wait for the welcome.
    await vs.page
      .locator('.activitybar .action-item a[aria-label^="LevelCode"], .activitybar .action-item[aria-label^="LevelCode"]')
      .first()
      .click();
    const welcome = vs.page.locator('.pane:has(.pane-header[aria-label^="History"]) .welcome-view-content').first();
    await welcome.waitFor({ timeout: 60_000 });
    const text = await welcome.innerText();
    expect(text).toContain('chat extension');
    expect(text).toContain('Claude Code, Codex, Gemini CLI');
    expect(text).not.toContain('for this folder');
    const buttons = welcome.locator('.monaco-button');
    expect(await buttons.allInnerTexts()).toEqual(['Import Chats from Other AI Tools…', 'Start a New Chat']);
    await vs.screenshot('first-use-01-empty');
    // Import from the empty state: this machine has no other AI tool's chats, and it says so.
    await buttons.first().click();
    await vs.waitForToast('No chats of other AI tools were found on this machine.');
    await vs.command('Notifications: Clear All Notifications');
  });

  it('names each row’s project when no folder is open', async () => {
    await vs.seed({ at: new Date(), first: 'A chat from the terminal', model: 'gpt-4o' });
    const rows = await vs.waitForRows((r) => r.some((x) => x.startsWith('A chat from the terminal')), 'the new session');
    expect(rows.length).toBeGreaterThan(0);
    const desc = await vs.historyRow('A chat from the terminal').locator('.label-description').innerText();
    expect(desc).toMatch(new RegExp(`· ${basename(vs.project).replace(/[.]/g, '\\.')}$`));
    await vs.screenshot('first-use-02-no-folder');
  });
});
