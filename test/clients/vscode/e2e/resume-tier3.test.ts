// End to end in real VS Code: resume tier 3 and model titles through vscode.lm. A test fixture
// extension (fake-lm/) provides a chat model with a 2,000-token maxInputTokens that it enforces
// (a larger request fails, as with every real provider) and answers with fixed text plus the
// "FACT:" lines it was sent. The session is about ten of those windows long: the History's
// Resume asks "Resume from summary" / "Start fresh instead" for the whole cost, then the
// sidecar sends the head in pieces through session/summarize, each fitting the model. The
// model fails the third piece once: the two before are kept, and resuming again goes on from
// there, never asking for a piece twice. New Chat titles the chat through session/title.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { S } from '../../../../clients/vscode/src/strings.js';
import { VsCode, missingPrerequisites, REPO, reportIfFailed } from './harness.js';
import { at } from '../../../helpers/items.js';

const missing = missingPrerequisites();
if (missing.length) {
  throw new Error(`the VS Code end-to-end suite needs (run .ci/clients-vscode.sh):\n- ${missing.join('\n- ')}`);
}

describe('VS Code resume with the editor language model (code-server)', () => {
  let vs: VsCode;
  let id = '';
  let lmLog = '';
  const first = 'Plan the migration of the billing database to Postgres';
  const FACT = 'FACT: the cut-over window is Sunday 02:00 to 04:00 UTC';
  type LmCall = { tokens: number; summary: boolean; turns: number[]; n: number };
  const lmCalls = (): LmCall[] =>
    readFileSync(lmLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LmCall)
      .filter((c) => c.summary);
  const compacts = async () => (await vs.events(id)).filter((e) => e.kind === 'compact');

  beforeAll(async () => {
    vs = await VsCode.create();
    // About 20,000 tokens of conversation against the fake model's 2,000-token window.
    id = await vs.newSession('fake-1');
    const events: Record<string, unknown>[] = [];
    for (let i = 0; i < 56; i++) {
      const t = new Date(Date.now() - (56 - i) * 60_000).toISOString();
      const body = `${i === 0 ? `${first}\n${FACT}\n` : `Step ${i}`} TURN-${i}: ${'details of the schema, the data and the cut-over plan '.repeat(12)}`;
      events.push({ kind: 'user', t, content: body });
      events.push({
        kind: 'assistant',
        t,
        content: [{ type: 'text', text: `Answer ${i}: ${'we move the tables in batches and verify checksums '.repeat(12)}` }],
      });
    }
    await vs.append(id, events);
    const fake = await vs.packageFixture(join(REPO, 'test/clients/vscode/e2e/fake-lm'));
    lmLog = join(vs.root, 'fake-lm.jsonl');
    await vs.start(
      {
        'chat.disableAIFeatures': false,
        'levelcodeSessions.modelFamily': 'fake',
        'levelcodeSessions.consentThreshold': 100,
        'levelcodeFakeLm.log': lmLog,
        'levelcodeFakeLm.failAt': 3,
      },
      [fake],
    );
  }, 240_000);

  afterEach((ctx) => reportIfFailed(vs, ctx, 'tier3'));

  afterAll(async () => {
    await vs?.stop();
  }, 60_000);

  /** Resume from the History through the consent dialog; answers the dialog's text. */
  async function resumeFromSummary(): Promise<string> {
    await vs.openHistory();
    await vs.waitForRows((r) => r.some((x) => x.startsWith(first)), 'the long session');
    // The row shows the title cut to fit (historyView.ts LABEL_MAX): its start finds it.
    await vs.contextAction(first.slice(0, 18), 'Resume Chat');
    const dialog = vs.page.locator('.monaco-dialog-box').filter({ visible: true }).first();
    await dialog.waitFor({ timeout: 60_000 });
    const text = await dialog.innerText();
    await dialog.locator('.monaco-button', { hasText: S.resume.fromSummary }).click();
    return text;
  }

  it('asks for the whole cost, summarises in pieces that fit the model; a failed piece keeps the ones before', async () => {
    const text = await resumeFromSummary();
    expect(text).toContain('needs a summary');
    const calls = Number(/in (\d+) requests/.exec(text)?.[1]);
    expect(calls).toBeGreaterThanOrEqual(10);
    await vs.screenshot('t3-01-consent');
    // VS Code asks once whether this extension may use the model.
    const allow = vs.page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Allow' }).filter({ visible: true }).first();
    await Promise.race([allow.waitFor({ timeout: 60_000 }).then(() => allow.click()), vs.waitForToast('Could not resume')]);
    const toast = await vs.waitForToast('Could not resume');
    expect(await toast.innerText()).toContain('the 2 parts summarised before are kept');
    await vs.screenshot('t3-02-failed-piece');
    const kept = await compacts();
    expect(kept.map((e) => e.rolling)).toEqual([true, true]);
    const sent = lmCalls();
    expect(sent).toHaveLength(3);
    for (const c of sent) expect(c.tokens).toBeLessThanOrEqual(2_000);
  });

  it('resuming again goes on from the last piece kept, and the fact of the first piece reaches the context', async () => {
    await vs.page.keyboard.press('Escape');
    await resumeFromSummary();
    await vs.waitForToast('from a summary — the full chat is in History');
    await vs.screenshot('t3-03-resumed');
    const sent = lmCalls();
    // Every request fit the model; pieces 1-2 were not asked for again (piece 3 was, once more).
    for (const c of sent) expect(c.tokens).toBeLessThanOrEqual(2_000);
    const first2 = sent.slice(0, 2).flatMap((c) => c.turns);
    for (const c of sent.slice(3)) for (const t of c.turns) expect(first2).not.toContain(t);
    expect(at(sent, 3).turns).toEqual(at(sent, 2).turns);
    const all = await compacts();
    expect(all).toHaveLength(sent.length - 1);
    expect(all.slice(0, -1).every((e) => e.rolling === true)).toBe(true);
    const final = all.at(-1)!;
    expect(final.rolling).toBeUndefined();
    expect(String(final.briefing)).toContain(FACT);
    expect(String(final.briefing)).toContain('FAKE BRIEFING: the user is planning a long migration.');
    // The transcript stays whole: every TURN marker is still in the file, in order.
    const turns = (await vs.events(id)).filter((e) => e.kind === 'user').map((e) => /TURN-(\d+)/.exec(String(e.content))?.[1]);
    expect(turns).toEqual(Array.from({ length: 56 }, (_, i) => String(i)));
  });

  it('titles the chat with the model when New Chat seals it', async () => {
    await vs.command('LevelCode: New Chat');
    await vs.until(async () => (await vs.events(id)).some((e) => e.kind === 'event' && e.type === 'sealed'), 'the sealed event');
    const title = (await vs.events(id)).filter((e) => e.kind === 'title').at(-1);
    expect(title).toMatchObject({ title: 'Fake Model Title', source: 'model' });
    await vs.waitForRows((r) => r.some((x) => x.startsWith('Fake Model Title,')), 'the model title in the History');
    await vs.screenshot('t3-03-titled');
  });
});
