// End to end in real VS Code: resume tier 3 and model titles through vscode.lm. A test fixture
// extension (fake-lm/) provides a chat model with a small context window that answers with fixed
// text; the History's Resume then needs a summary above the consent threshold, asks "Resume from
// summary" / "Start fresh instead", gets the briefing through the sidecar's session/summarize
// callback, and New Chat titles the chat through session/title.

import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { S } from '../../../../clients/vscode/src/strings';
import { VsCode, missingPrerequisites, REPO } from './harness';

const missing = missingPrerequisites();
if (missing.length) {
  throw new Error(`the VS Code end-to-end suite needs (run .ci/clients-vscode.sh):\n- ${missing.join('\n- ')}`);
}

describe('VS Code resume with the editor language model (code-server)', () => {
  let vs: VsCode;
  let id = '';
  const first = 'Plan the migration of the billing database to Postgres';

  beforeAll(async () => {
    vs = await VsCode.create();
    // About 5,000 tokens of conversation against the fake model's 2,000-token window.
    id = await vs.newSession('fake-1');
    const events: Record<string, unknown>[] = [];
    for (let i = 0; i < 12; i++) {
      const t = new Date(Date.now() - (12 - i) * 60_000).toISOString();
      const body = `${i === 0 ? first : `Step ${i}`}: ${'details of the schema, the data and the cut-over plan '.repeat(12)}`;
      events.push({ kind: 'user', t, content: body });
      events.push({ kind: 'assistant', t, content: [{ type: 'text', text: `Answer ${i}: ${'we move the tables in batches and verify checksums '.repeat(12)}` }] });
    }
    await vs.append(id, events);
    const fake = await vs.packageFixture(join(REPO, 'test/clients/vscode/e2e/fake-lm'));
    await vs.start(
      {
        'chat.disableAIFeatures': false,
        'levelcodeSessions.modelFamily': 'fake',
        'levelcodeSessions.consentThreshold': 100,
      },
      [fake],
    );
  }, 240_000);

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail' || !vs) return;
    await vs.screenshot(`failed-tier3-${ctx.task.name.replace(/\W+/g, '-')}`).catch(() => undefined);
    process.stdout.write(`\n--- code-server output\n${vs.log.slice(-4000)}\n${(await vs.extensionLogs()).slice(-12000)}\n`);
  });

  afterAll(async () => {
    await vs?.stop();
  }, 60_000);

  it('asks before a costly summary, then resumes from the model\'s briefing', async () => {
    await vs.openHistory();
    await vs.waitForRows((r) => r.some((x) => x.startsWith(first)), 'the long session');
    await vs.contextAction(first, 'Resume Chat');
    const dialog = vs.page.locator('.monaco-dialog-box').filter({ visible: true }).first();
    await dialog.waitFor({ timeout: 60_000 });
    expect(await dialog.innerText()).toContain('needs a summary');
    await vs.screenshot('t3-01-consent');
    await dialog.locator('.monaco-button', { hasText: S.resume.fromSummary }).click();
    // VS Code asks once whether this extension may use the model.
    const allow = vs.page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Allow' }).filter({ visible: true }).first();
    await Promise.race([
      allow.waitFor({ timeout: 60_000 }).then(() => allow.click()),
      vs.waitForToast('(tier 3'),
    ]);
    await vs.waitForToast('(tier 3: from a summary)');
    await vs.screenshot('t3-02-resumed');
    const compact = (await vs.events(id)).find((e) => e.kind === 'compact');
    expect(compact?.briefing).toBe('FAKE BRIEFING: the user is planning a long migration.');
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
