// End to end in real VS Code (code-server, harness.ts): one writer per chat across windows
// (issue 43). Two browser tabs (an extension host and a sidecar each, one store) resume the same
// saved chat with the @history participant. The first tab's turn lands; the second tab's turn
// is refused (it carries the seq it expects, and the chat moved on), the tab is told "This chat
// is continuing in another window" and offered "Open a Copy": a fork at the last turn it saw,
// with its refused turn, in which it goes on. The session file never interleaves the two
// conversations; before, both tabs' turns landed in it one after the other.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { S } from '../../../../clients/vscode/src/strings.js';
import { VsCode, missingPrerequisites, REPO, reportIfFailed } from './harness.js';

const missing = missingPrerequisites();
if (missing.length) {
  throw new Error(`the VS Code end-to-end suite needs (run .ci/clients-vscode.sh):\n- ${missing.join('\n- ')}`);
}

describe('two tabs continuing one saved chat (code-server)', () => {
  let vs: VsCode;
  let second: Page;
  let lmLog = '';
  let id = '';
  const TITLE = 'Shard the audit log by tenant';
  const chatCalls = () =>
    readFileSync(lmLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .filter((l) => (JSON.parse(l) as { kind: string }).kind === 'chat').length;
  const userTurns = async (sid: string) => (await vs.events(sid)).filter((e) => e.kind === 'user').map((e) => e.content as string);

  beforeAll(async () => {
    vs = await VsCode.create();
    id = await vs.seed({ at: new Date(Date.now() - 3600_000), turns: 2, first: TITLE, title: TITLE });
    const fake = await vs.packageFixture(join(REPO, 'test/clients/vscode/e2e/fake-lm'));
    lmLog = join(vs.root, 'fake-lm.jsonl');
    writeFileSync(lmLog, '');
    await vs.start({ 'chat.disableAIFeatures': false, 'levelcodeSessions.modelFamily': 'fake', 'levelcodeFakeLm.log': lmLog }, [fake]);
    second = await vs.openPage();
  }, 240_000);

  afterEach((ctx) => reportIfFailed(vs, ctx, 'two-tabs-chat'));

  afterAll(async () => {
    await vs?.stop();
  }, 60_000);

  const chatView = () => vs.page.locator('.interactive-session').filter({ visible: true }).first();

  async function chatShows(text: string): Promise<void> {
    await vs.until(
      async () =>
        (
          await chatView()
            .innerText()
            .catch(() => '')
        ).includes(text),
      `the Chat view to show ${text}`,
    );
  }

  /** Types a prompt into the Chat view of the current tab and waits for the model to be asked. */
  async function say(prompt: string): Promise<void> {
    const before = chatCalls();
    const input = chatView().locator('.interactive-input-part .monaco-editor').first();
    await input.click();
    await vs.page.keyboard.type(prompt);
    await vs.page.keyboard.press('Enter');
    // VS Code asks each window once whether this extension may use the model: allow it.
    const allow = vs.page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Allow' }).filter({ visible: true }).first();
    await vs.until(async () => {
      if (await allow.isVisible().catch(() => false)) await allow.click().catch(() => undefined);
      return chatCalls() > before;
    }, `the model to be asked for ${prompt}`);
  }

  async function resume(): Promise<void> {
    await vs.openHistory();
    await vs.waitForRows((r) => r.some((x) => x.startsWith(TITLE.slice(0, 18))), TITLE);
    await vs.contextAction(TITLE.slice(0, 18), 'Resume Chat');
    // Asked who continues the chat (when it asks): VS Code's Chat.
    const participant = vs.quickPickRow(S.chooser.participant);
    await participant.waitFor({ timeout: 10_000 }).then(
      () => participant.click(),
      () => undefined,
    );
    await chatShows('Answer 2 to: follow-up 1');
  }

  it('the second tab to write is told, offered a copy, and goes on in it; the file never interleaves', async () => {
    // Both tabs load the chat as it is: 2 turns.
    await resume();
    await vs.on(second, resume);
    // The first tab writes a turn: it lands.
    await say('Turn from the first tab');
    await vs.until(async () => (await userTurns(id)).includes('Turn from the first tab'), 'the first tab turn in the file');
    // The second tab, still at turn 2, writes: refused, told, offered a copy.
    let forkId = '';
    await vs.on(second, async () => {
      await say('Turn from the second tab');
      const toast = await vs.waitForToast('This chat is continuing in another window');
      expect(await toast.innerText()).toContain(TITLE);
      await chatShows(S.chat.elsewhereShort);
      await vs.screenshot('two-tabs-01-continuing-elsewhere');
      await toast.locator('.monaco-button', { hasText: S.resume.openCopy }).first().click();
      await vs.waitForToast('Continuing in a copy');
    });
    expect(await userTurns(id)).not.toContain('Turn from the second tab');
    // The copy: the chat's first two turns (where the second tab was), then its refused turn.
    await vs.until(async () => {
      const all = (
        JSON.parse(await vs.cli(['list', '--all', '--json'])) as { sessions: { id: string; forkedFrom?: { id: string; turn: number } }[] }
      ).sessions;
      forkId = all.find((s) => s.forkedFrom?.id === id)?.id ?? '';
      return forkId !== '';
    }, 'the copy in the History');
    const copy = await vs.events(forkId);
    expect((copy[0] as { forkedFrom: { turn: number } }).forkedFrom.turn).toBe(2);
    expect(await userTurns(forkId)).toEqual([TITLE, 'follow-up 1', 'Turn from the second tab']);
    // Each tab goes on in its own chat: the second in the copy, the first in the original.
    await vs.on(second, () => say('Second tab again'));
    await vs.until(async () => (await userTurns(forkId)).includes('Second tab again'), 'the second tab next turn in the copy');
    await say('First tab again');
    await vs.until(async () => (await userTurns(id)).includes('First tab again'), 'the first tab next turn in the original');
    // The original holds one conversation: its two turns, then the first tab's, nothing of the second's.
    expect(await userTurns(id)).toEqual([TITLE, 'follow-up 1', 'Turn from the first tab', 'First tab again']);
    expect(await userTurns(forkId)).toEqual([TITLE, 'follow-up 1', 'Turn from the second tab', 'Second tab again']);
    await vs.screenshot('two-tabs-02-copy');
  });
});
