// session/list's `view` (issue 40): the History rows every client draws, computed by the real
// sidecar in the user's time zone (initializationOptions.timeZone), checked against the shared
// fixture set test/fixtures/history-view/ (the Neovim and JUnit suites read the same files).
// Times are computed from now in the fixture's zone, never from a faked clock.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, startSidecar, workspace } from '../helpers/sidecar.js';
import * as P from '../../server/rpc/protocol.js';
// @ts-expect-error: a plain .mjs shared with the other suites, without types
import { materialise } from '../fixtures/history-view/materialise.mjs';

afterEach(cleanup);

interface Expected {
  timeZone: string;
  offset: string;
  rows: ({ id: string } & P.HistoryView)[];
  archived: ({ id: string } & P.HistoryView)[];
}

const views = (r: P.ResultOf<typeof P.sessionList>) => r.sessions.map((s) => ({ id: s.id, ...s.view }));

describe('session/list view', () => {
  it('gives every row its group, full title, local time and labels, in the fixture zone by name and by offset', async () => {
    const { root, project } = workspace();
    const want = materialise(root, project) as Expected;
    // The sidecar's own zone is UTC here: the groups and times below only hold in +05:30.
    for (const timeZone of [want.timeZone, want.offset]) {
      const s = await startSidecar({ root, env: { TZ: 'UTC' }, initializationOptions: { timeZone } });
      expect(views(await s.call(P.sessionList, { project }))).toEqual(want.rows);
      expect(views(await s.call(P.sessionList, { project, archived: true }))).toEqual(want.archived);
      await s.stop();
    }
  });

  it('keeps the view on every page, and the groups in the order of the rows', async () => {
    const { root, project } = workspace();
    const want = materialise(root, project) as Expected;
    const s = await startSidecar({ root, initializationOptions: { timeZone: want.timeZone } });
    const got: ReturnType<typeof views> = [];
    let cursor: string | undefined;
    do {
      const page = await s.call(P.sessionList, { project, limit: 4, ...(cursor ? { cursor } : {}) });
      got.push(...views(page));
      cursor = page.nextCursor;
    } while (cursor);
    expect(got).toEqual(want.rows);
    // A client draws a header whenever the group changes: each group is one run of rows.
    const runs = got.map((r) => r.group).filter((g, i, a) => i === 0 || a[i - 1] !== g);
    expect(new Set(runs).size).toBe(runs.length);
    await s.stop();
  });

  it('ignores an unknown time zone with a warning and uses its own', async () => {
    const { root, project } = workspace();
    const want = materialise(root, project) as Expected;
    const s = await startSidecar({
      root,
      env: { TZ: want.timeZone },
      initializationOptions: { timeZone: 'Mars/Olympus_Mons', consentThreshold: 7 },
    });
    expect(views(await s.call(P.sessionList, { project }))).toEqual(want.rows);
    expect(s.stderr).toContain('ignoring initializationOptions.timeZone "Mars/Olympus_Mons"');
    await s.stop();
  });
});
