// End to end in real VS Code: who continues a resumed chat. fake-chat/ is another chat extension
// that listens for Resume through our API (onDidResume) and logs what it is handed; fake-lm/
// gives @history a model. With both there, Resume asks which one continues the session, every
// time: the extension picked is told (and @history loads nothing); @history picked loads the
// chat in the Chat view (and the extension is not told). Without a model for @history, the
// extension is the only one and Resume asks nothing.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { S } from '../../../../clients/vscode/src/strings.js';
import { VsCode, missingPrerequisites, REPO, WAIT, reportIfFailed } from './harness.js';

const missing = missingPrerequisites();
if (missing.length) {
  throw new Error(`the VS Code end-to-end suite needs (run .ci/clients-vscode.sh):\n- ${missing.join('\n- ')}`);
}

type Told = { id: string; title: string; turns: number; readOnly: boolean };

describe('VS Code Resume: @history or another chat extension (code-server)', () => {
  let vs: VsCode;
  let chatLog = '';
  let firstId = '';
  let secondId = '';
  const FIRST = 'Draft the release notes for 2.0';
  const SECOND = 'Tune the search ranking';
  const FAKE_CHAT = 'Fake Chat (LevelCode Sessions tests)';
  const told = (): Told[] =>
    readFileSync(chatLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Told);

  beforeAll(async () => {
    vs = await VsCode.create();
    firstId = await vs.seed({ at: new Date(Date.now() - 2 * 3600_000), turns: 2, first: FIRST, title: FIRST });
    secondId = await vs.seed({ at: new Date(Date.now() - 3 * 3600_000), turns: 1, first: SECOND, title: SECOND });
    const fakeLm = await vs.packageFixture(join(REPO, 'test/clients/vscode/e2e/fake-lm'));
    const fakeChat = await vs.packageFixture(join(REPO, 'test/clients/vscode/e2e/fake-chat'));
    chatLog = join(vs.root, 'fake-chat.jsonl');
    writeFileSync(chatLog, '');
    await vs.start({ 'chat.disableAIFeatures': false, 'levelcodeSessions.modelFamily': 'fake', 'levelcodeFakeChat.log': chatLog }, [
      fakeLm,
      fakeChat,
    ]);
  }, 240_000);

  afterEach((ctx) => reportIfFailed(vs, ctx, 'resume-choice'));

  afterAll(async () => {
    await vs?.stop();
  }, 60_000);

  const chatView = () => vs.page.locator('.interactive-session').filter({ visible: true }).first();

  /** Resume from the History's context menu; answers the rows of the question it asks. */
  async function resumeAndAsk(rowStart: string): Promise<string[]> {
    await vs.openHistory();
    await vs.waitForRows((r) => r.some((x) => x.startsWith(rowStart)), rowStart);
    await vs.contextAction(rowStart, 'Resume Chat');
    const widget = vs.page.locator('.quick-input-widget').filter({ visible: true }).first();
    await widget.waitFor({ timeout: WAIT });
    const rows = widget.locator('.quick-input-list .monaco-list-row');
    await rows.first().waitFor({ timeout: WAIT });
    expect(await widget.innerText()).toContain(S.chooser.title(rowStart === FIRST.slice(0, 18) ? FIRST : SECOND));
    return (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  }

  async function choose(label: string): Promise<void> {
    const row = vs.page
      .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: label })
      .filter({ visible: true })
      .first();
    await row.click();
  }

  it('asks which one continues the chat; the chat extension picked is told, and @history loads nothing', async () => {
    const rows = await resumeAndAsk(FIRST.slice(0, 18));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain(S.chooser.participant);
    expect(rows[1]).toContain(FAKE_CHAT);
    await vs.screenshot('resume-choice-01-question');
    await choose(FAKE_CHAT);
    await vs.until(() => told().length === 1, 'the chat extension to be told');
    expect(told()[0]).toEqual({ id: firstId, title: FIRST, turns: 4, readOnly: false });
    await vs.waitForToast(`Resumed “${FIRST}”`);
    expect(
      await chatView()
        .innerText()
        .catch(() => ''),
    ).not.toContain(S.chat.continuing(FIRST));
  });

  it('asks again next time; @history picked loads the chat in the Chat view, and the extension is not told', async () => {
    const rows = await resumeAndAsk(SECOND.slice(0, 18));
    expect(rows).toHaveLength(2);
    await choose(S.chooser.participant);
    await vs.until(
      async () =>
        (
          await chatView()
            .innerText()
            .catch(() => '')
        ).includes(S.chat.continuing(SECOND)),
      'the Chat view to show the chat',
    );
    // The extension is told before @history would be shown: by now it would have been.
    expect(told().map((t) => t.id)).toEqual([firstId]);
    expect(told().some((t) => t.id === secondId)).toBe(false);
  });
});

describe('VS Code Resume with only a chat extension to continue it (code-server, no model)', () => {
  let vs: VsCode;
  let chatLog = '';
  let id = '';
  const TITLE = 'Sketch the onboarding flow';
  const told = (): Told[] =>
    readFileSync(chatLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Told);

  beforeAll(async () => {
    vs = await VsCode.create();
    id = await vs.seed({ at: new Date(Date.now() - 3600_000), turns: 1, first: TITLE, title: TITLE });
    const fakeChat = await vs.packageFixture(join(REPO, 'test/clients/vscode/e2e/fake-chat'));
    chatLog = join(vs.root, 'fake-chat.jsonl');
    writeFileSync(chatLog, '');
    await vs.start({ 'chat.disableAIFeatures': false, 'levelcodeFakeChat.log': chatLog }, [fakeChat]);
  }, 240_000);

  afterEach((ctx) => reportIfFailed(vs, ctx, 'resume-only'));

  afterAll(async () => {
    await vs?.stop();
  }, 60_000);

  it('asks nothing: @history has no model, so the chat extension is told', async () => {
    await vs.openHistory();
    await vs.waitForRows((r) => r.some((x) => x.startsWith(TITLE.slice(0, 18))), TITLE);
    await vs.contextAction(TITLE.slice(0, 18), 'Resume Chat');
    // A question (or the no-model notice) would stop the resume before the extension is told.
    await vs.until(() => told().length === 1, 'the chat extension to be told');
    expect(told()[0]).toEqual({ id, title: TITLE, turns: 2, readOnly: false });
    await vs.waitForToast(`Resumed “${TITLE}”`);
  });
});
