// End to end in real VS Code (code-server, harness.ts): Fork from Turn…, Relink Chats from Another
// Folder…, and what a History row says of a chat's state (issue 24). A fork is made from a turn
// picked in a QuickPick and resumed as Resume does; History names it "forked from “Title” at turn
// N". Relinking an old folder, after a dry run's count is confirmed, lists its chats "moved from
// …". A chat another live process holds (a second sidecar, spawned here) says "open in another
// window" and names that pid in its tooltip; an interrupted one says "interrupted".

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { sessionAppend, sessionNew } from '../../../../server/rpc/protocol.js';
import { S } from '../../../../clients/vscode/src/strings.js';
import { startSidecar, type Sidecar } from '../../../helpers/sidecar.js';
import { VsCode, missingPrerequisites, reportIfFailed } from './harness.js';

const missing = missingPrerequisites();
if (missing.length) {
  throw new Error(`the VS Code end-to-end suite needs (run .ci/clients-vscode.sh):\n- ${missing.join('\n- ')}`);
}

describe('VS Code History: fork from a turn, relink, row state (code-server)', () => {
  let vs: VsCode;
  let other: Sidecar | undefined;
  const now = Date.now();
  const DAY = 86_400_000;
  const parent = { id: '', first: 'Plan the database migration', at: new Date(now - 60_000), turns: 3 };
  const plain = { id: '', first: 'Tune the cache eviction', at: new Date(now - DAY) };
  const has = (rows: string[], text: string) => rows.some((r) => r.includes(text));

  beforeAll(async () => {
    vs = await VsCode.create();
    for (const s of [parent, plain]) s.id = await vs.seed(s);
    await vs.start();
    await vs.openHistory();
    await vs.waitForRows((r) => has(r, parent.first) && has(r, plain.first), 'the seeded chats');
  }, 240_000);

  afterEach((ctx) => reportIfFailed(vs, ctx, 'fork'));

  afterAll(async () => {
    await other?.stop();
    await vs?.stop();
  }, 60_000);

  it('forks from a turn picked by its first line, resumes the fork, and History says where it came from', async () => {
    await vs.contextAction(parent.first, 'Fork from Turn');
    const turns = await vs.quickPickRows((r) => r.length === 3, 'the three turns');
    expect(turns[0]).toMatch(/^Plan the database migration.*Turn 1$/);
    expect(turns[1]).toMatch(/^follow-up 1.*Turn 2$/);
    await vs.screenshot('fork-01-turns');
    await vs.quickPickRow('Turn 2').click();
    // Resumed as Resume does: here, with no language model, it says so.
    await vs.waitForToast(S.chat.noModel);
    const label = `forked from “${parent.first}” at turn 2`;
    const rows = await vs.waitForRows((r) => has(r, label), 'the fork, named as such');
    expect(rows.filter((r) => r.startsWith(parent.first))).toHaveLength(2);
    const forkId = JSON.parse(await vs.cli(['list', '--project', vs.project, '--json'])).sessions.find(
      (s: { forkedFrom?: { id: string } }) => s.forkedFrom?.id === parent.id,
    )?.id as string;
    const events = await vs.events(forkId);
    expect(events[0]).toMatchObject({ kind: 'meta', forkedFrom: { id: parent.id, turn: 2 } });
    expect(events.filter((e) => e.kind === 'user').map((e) => e.content)).toEqual([parent.first, 'follow-up 1']);
    // Not resumed, so not held: the CLI or another window may write to it.
    expect(existsSync(`${await vs.sessionFile(forkId)}.lock`)).toBe(false);
    await vs.screenshot('fork-02-forked');
  });

  it('relinks the chats of an old folder after a dry run says how many; History lists them "moved from …"', async () => {
    const old = join(vs.root, 'old-project');
    await mkdir(old);
    const moved = ['Port the cron jobs', 'Rename the S3 buckets'];
    for (const first of moved) {
      const { id } = JSON.parse(await vs.cli(['new', '--project', old, '--json'])) as { id: string };
      await vs.append(id, [
        { kind: 'user', content: first },
        { kind: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      ]);
    }
    await vs.command('LevelCode: Relink Chats from Another Folder…');
    // code-server's own folder dialog: type the path, then its OK button (the open label).
    const input = vs.page.locator('.quick-input-widget input').filter({ visible: true }).first();
    await input.waitFor();
    await input.fill(`${old}/`);
    // The old folder is empty: its listing is '..' alone. Any folder lists '..', so waiting for
    // it alone could click OK on the folder shown before the typed path took.
    await vs.quickPickRows((r) => r.length === 1 && r[0]!.includes('..'), 'the old (empty) folder listed');
    await vs.page.locator('.quick-input-widget .monaco-button', { hasText: S.relink.openLabel }).filter({ visible: true }).first().click();
    const asked = await vs.dialogButton('Relink 2 Chats');
    expect(asked).toContain(`Relink 2 chats from ${old} to ${vs.project}?`);
    expect(asked).toContain(moved[0]);
    await vs.waitForToast(`Relinked 2 chats from ${old}`);
    const rows = await vs.waitForRows(
      (r) => moved.every((m) => r.some((x) => x.startsWith(m) && x.includes('moved from old-project'))),
      'the chats moved from the old folder',
    );
    expect(rows.filter((r) => r.includes('moved from'))).toHaveLength(2);
    expect(await vs.cli(['list', '--project', vs.project])).toContain(moved[1]);
  });

  it('says "interrupted" and "open in another window", naming the other process in the tooltip', async () => {
    await vs.append(plain.id, [{ kind: 'event', type: 'interrupted' }]);
    await vs.waitForRows((r) => r.some((x) => x.startsWith(plain.first) && x.includes('interrupted')), 'the interrupted chat');

    // Another window: a second sidecar on the same store, holding a chat it made.
    other = await startSidecar({ root: vs.store, env: { XDG_DATA_HOME: join(vs.root, 'xdg/data'), HOME: join(vs.root, 'home') } });
    const { id } = await other.call(sessionNew, { project: vs.project });
    await other.call(sessionAppend, { id, events: [{ kind: 'user', content: 'Held by the other window' }] });
    await vs.waitForRows(
      (r) => r.some((x) => x.startsWith('Held by the other window') && x.includes('open in another window')),
      'the held chat',
    );
    await vs.dismissHover();
    await vs.historyRow('Held by the other window').hover();
    const hover = vs.page.locator('.monaco-hover').filter({ visible: true }).first();
    await hover.waitFor();
    expect((await hover.innerText()).replace(/\s+/g, ' ')).toContain(`Open in another window (pid ${other.child.pid} on ${hostname()})`);
    await vs.screenshot('state-01-held-tooltip');
    await vs.dismissHover();
  });
});
