// End to end in real VS Code (code-server, harness.ts): many browsers, one History (issue 24).
// Two tabs on the same code-server, over one store (an extension host and sidecar each, or one
// shared: either way): what one tab changes reaches the other's History by itself, through
// session/didChange, with no reload (a rename, a pin, an archive, a delete), and a chat written
// from outside (the CLI) reaches both.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { VsCode, missingPrerequisites, reportIfFailed } from './harness.js';

const missing = missingPrerequisites();
if (missing.length) {
  throw new Error(`the VS Code end-to-end suite needs (run .ci/clients-vscode.sh):\n- ${missing.join('\n- ')}`);
}

describe('VS Code History in two browser tabs (code-server)', () => {
  let vs: VsCode;
  let second: Page;
  const now = Date.now();
  const seeded = [
    { id: '', first: 'Tune the Postgres autovacuum', at: new Date(now - 60_000) },
    { id: '', first: 'Draft the release notes', at: new Date(now - 120_000) },
  ];
  const has = (rows: string[], text: string) => rows.some((r) => r.startsWith(text));

  beforeAll(async () => {
    vs = await VsCode.create();
    for (const s of seeded) s.id = await vs.seed(s);
    await vs.start();
    second = await vs.openPage();
  }, 240_000);

  afterEach((ctx) => reportIfFailed(vs, ctx, 'two-pages'));

  afterAll(async () => {
    await vs?.stop();
  }, 60_000);

  it('shows the same chats in both tabs, and a chat the CLI writes appears in both', async () => {
    await vs.openHistory();
    await vs.waitForRows((r) => seeded.every((s) => has(r, s.first)), 'the seeded chats in the first tab');
    await vs.on(second, async () => {
      await vs.openHistory();
      await vs.waitForRows((r) => seeded.every((s) => has(r, s.first)), 'the seeded chats in the second tab');
    });
    const id = await vs.newSession();
    await vs.append(id, [{ kind: 'user', content: 'Pick a queue for the thumbnails' }]);
    await vs.waitForRows((r) => has(r, 'Pick a queue for the thumbnails'), 'the CLI chat in the first tab');
    await vs.on(second, () => vs.waitForRows((r) => has(r, 'Pick a queue for the thumbnails'), 'the CLI chat in the second tab'));
  });

  it('a rename in one tab reaches the other', async () => {
    const s = seeded[0]!;
    await vs.contextAction(s.first, 'Rename Chat');
    const input = vs.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 60_000 });
    await input.fill('Autovacuum thresholds per table');
    await vs.page.keyboard.press('Enter');
    await vs.waitForRows((r) => has(r, 'Autovacuum thresholds per table'), 'the new title in the tab that renamed');
    await vs.on(second, () => vs.waitForRows((r) => has(r, 'Autovacuum thresholds per table'), 'the new title in the other tab'));
    const titles = (await vs.events(s.id)).filter((e) => e.kind === 'title');
    expect(titles).toHaveLength(1); // one rename, written once, whichever sidecar wrote it
  });

  it('a pin in one tab and an archive in the other reach both', async () => {
    const chat = 'Pick a queue for the thumbnails';
    await vs.contextAction(chat, 'Pin Chat');
    const pinnedFirst = (r: string[]) => r[0]?.trim() === 'Pinned' && r[1]?.startsWith(chat) === true;
    await vs.waitForRows(pinnedFirst, 'the pinned chat under Pinned in the tab that pinned it');
    await vs.on(second, async () => {
      await vs.waitForRows(pinnedFirst, 'the pinned chat under Pinned in the other tab');
      await vs.contextAction(chat, 'Archive Chat');
      await vs.waitForRows((r) => !has(r, chat), 'the archived chat gone from the tab that archived it');
    });
    await vs.waitForRows((r) => !has(r, chat) && !r.some((x) => x.trim() === 'Pinned'), 'the archived chat gone from the first tab');
  });

  it('a delete in the other tab reaches the first', async () => {
    const s = seeded[1]!;
    await vs.on(second, async () => {
      await vs.contextAction(s.first, 'Delete Chat');
      await vs.waitForToast('was moved to the trash');
    });
    await vs.until(async () => (await vs.sessionFile(s.id)) === undefined, 'the session file to leave the store');
    await vs.waitForRows((r) => !has(r, s.first), 'the deleted chat gone from the first tab');
    expect(await vs.cli(['list', '--project', vs.project])).not.toContain(s.id);
  });
});
