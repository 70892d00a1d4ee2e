// A folder's index.json is written by more than one refresh at a time: a listing's refresh and
// `reindex` (catalog.ts), in one process or two. A refresh that loaded the index before a
// reindex rebuilt it must not write the old entries back over the rebuild: an entry it only
// copied from what it loaded yields to the one on disk (entries.ts mergeNewer).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finishRefresh, planRefresh, refreshIndex, type RefreshPlan } from '../../server/listing/catalog.js';
import { entryFromFile, type EntryJob, type IndexEntry, indexPath } from '../../server/store/entries.js';
import { SessionStore } from '../../server/store/store.js';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'lcs-catalog-race-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const entries = (dir: string): Record<string, { title: string | null; turns: number }> =>
  Object.fromEntries(
    (JSON.parse(readFileSync(indexPath(dir), 'utf8')) as { entries: (IndexEntry & { id: string })[] }).entries.map((e) => [e.id, e]),
  );

describe('a refresh and a reindex of one folder at once', () => {
  it('the reindex written in between survives the refresh that loaded the index before it', async () => {
    const store = new SessionStore({ root: join(tmp, 'store'), agent: 'test' });
    const project = join(tmp, 'project');
    mkdirSync(project);
    const ids: string[] = [];
    for (const text of ['alpha one', 'beta']) {
      const meta = await store.create({ project });
      await store.append(meta.id, [{ kind: 'user', t: '2026-12-01T10:00:00.000Z', content: text } as never]);
      ids.push(meta.id);
    }
    await store.releaseAll();
    const [a, b] = ids as [string, string];
    const dir = store.projectDirOf(await store.realProject(project, false));
    await refreshIndex(dir);
    // A cache that lies while matching the files' sizes and mtimes, as a stale copy would.
    const idx = JSON.parse(readFileSync(indexPath(dir), 'utf8'));
    for (const e of idx.entries) Object.assign(e, { title: 'WRONG', turns: 42 });
    writeFileSync(indexPath(dir), JSON.stringify(idx));
    // b's file changes (its mtime), so the listing's refresh has something to write.
    const later = new Date('2026-12-02T00:00:00Z');
    utimesSync(join(dir, `${b}.jsonl`), later, later);

    const plan = planRefresh(dir) as RefreshPlan;
    expect('done' in plan).toBe(false);
    await refreshIndex(dir, { rebuild: true }); // the reindex, between the plan and the write
    expect(entries(dir)[a]).toMatchObject({ turns: 1 });
    const read = new Map<EntryJob, IndexEntry | Error>();
    for (const job of plan.reads) read.set(job, await entryFromFile(job.file, job.id, job.bytes, job.mtimeNs));
    const done = await finishRefresh(plan, read);

    expect(done.stats.written).toBe(true);
    expect(entries(dir)[a]).toMatchObject({ turns: 1 });
    expect(entries(dir)[a]!.title).not.toBe('WRONG');
    expect(entries(dir)[b]).toMatchObject({ turns: 1 });
  });
});
