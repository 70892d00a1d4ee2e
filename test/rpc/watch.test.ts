// The store watcher (server/store/watch.ts) on its own, without JSON-RPC: what it reports for
// files made, grown, retitled and removed by hand, in both modes, and that a first scan
// reports nothing that already existed.

import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchStore, pollForced, type StoreChange, type StoreWatcher } from '../../server/store/watch.js';
import { cleanup, tempDir, Recorder } from '../helpers/sidecar.js';

let watcher: StoreWatcher | undefined;
afterEach(async () => {
  watcher?.close();
  watcher = undefined;
  await cleanup();
});

const meta = (id: string, project: string) =>
  JSON.stringify({ kind: 'meta', v: 1, id, project, createdAt: '2026-01-01T00:00:00.000Z', title: null }) + '\n';
const line = (o: object) => JSON.stringify({ t: '2026-01-01T00:00:01.000Z', ...o }) + '\n';

describe('watchStore', () => {
  it('reads LEVELCODE_SESSIONS_POLL', () => {
    expect(pollForced({ LEVELCODE_SESSIONS_POLL: '1' })).toBe(true);
    expect(pollForced({ LEVELCODE_SESSIONS_POLL: '0' })).toBe(false);
    expect(pollForced({})).toBe(false);
  });

  for (const poll of [true, false]) {
    it(`reports the project of a deleted session that was there before it started, without an index (${poll ? 'poll' : 'fs.watch'})`, async () => {
      const root = tempDir();
      const dir = join(root, '-p');
      mkdirSync(dir);
      const old = '2026-01-01T00-00-00-cccc';
      writeFileSync(join(dir, `${old}.jsonl`), meta(old, '/the/project') + line({ kind: 'user', content: 'x' }));
      const seen = new Recorder<StoreChange>();
      watcher = await watchStore({ root, poll, pollMs: 50 }, (c) => seen.push(c));
      await watcher.idle();
      rmSync(join(dir, `${old}.jsonl`));
      expect(await seen.waitFor((c) => c.id === old)).toEqual({ id: old, project: '/the/project', change: 'deleted' });
    });
  }

  for (const poll of [true, false]) {
    it(`reports changes after the first scan (${poll ? 'poll' : 'fs.watch'})`, async () => {
      const root = tempDir();
      const dir = join(root, '-p');
      mkdirSync(dir);
      const old = '2026-01-01T00-00-00-aaaa';
      writeFileSync(join(dir, `${old}.jsonl`), meta(old, '/p'));
      writeFileSync(join(dir, 'index.json'), '{}');
      const seen = new Recorder<StoreChange>();
      watcher = await watchStore({ root, poll, pollMs: 50 }, (c) => seen.push(c));
      expect(watcher.mode).toBe(poll ? 'poll' : 'watch');

      appendFileSync(join(dir, `${old}.jsonl`), line({ kind: 'title', title: 'T' }));
      expect(await seen.waitFor()).toEqual({ id: old, project: '/p', change: 'renamed' });

      const id = '2026-01-01T00-00-01-bbbb';
      writeFileSync(join(dir, `${id}.jsonl`), meta(id, '/p'));
      await seen.waitFor((c) => c.id === id && c.change === 'created');
      appendFileSync(join(dir, `${id}.jsonl`), line({ kind: 'user', content: 'x' }) + line({ kind: 'title', title: 'Y' }));
      await seen.waitFor((c) => c.id === id && c.change === 'renamed');
      await seen.waitFor((c) => c.id === id && c.change === 'appended');
      writeFileSync(join(dir, 'index.json'), '{"changed":true}'); // not a session: never reported
      writeFileSync(join(dir, 'notes.jsonl'), 'x'); // not a session id: never reported
      rmSync(join(root, '-p'), { recursive: true });
      await seen.waitFor((c) => c.id === old && c.change === 'deleted');
      await seen.waitFor((c) => c.id === id && c.change === 'deleted');
      expect(seen.items.map((c) => c.id).every((i) => i === old || i === id)).toBe(true);
      expect(seen.items.filter((c) => c.change === 'created').map((c) => c.id)).toEqual([id]);
    });
  }

  for (const poll of [true, false]) {
    it(`with deferStats: the mode at once, the files stat'ed by settle(), changes after it reported (${poll ? 'poll' : 'fs.watch'})`, async () => {
      const root = tempDir();
      const dir = join(root, '-p');
      mkdirSync(dir);
      const a = '2026-01-01T00-00-00-aaaa';
      const b = '2026-01-01T00-00-00-bbbb';
      writeFileSync(join(dir, `${a}.jsonl`), meta(a, '/p'));
      writeFileSync(join(dir, `${b}.jsonl`), meta(b, '/p'));
      const seen = new Recorder<StoreChange>();
      watcher = await watchStore({ root, poll, pollMs: 50, deferStats: true }, (c) => seen.push(c));
      expect(watcher.mode).toBe(poll ? 'poll' : 'watch');
      // Before settle(): part of the snapshot (the sidecar serves no request until it settles).
      appendFileSync(join(dir, `${a}.jsonl`), line({ kind: 'user', content: 'before' }));
      watcher.settle();
      watcher.settle(); // idempotent
      appendFileSync(join(dir, `${b}.jsonl`), line({ kind: 'title', title: 'B' }));
      expect(await seen.waitFor()).toEqual({ id: b, project: '/p', change: 'renamed' });
      appendFileSync(join(dir, `${a}.jsonl`), line({ kind: 'user', content: 'after' }));
      await seen.waitFor((c) => c.id === a && c.change === 'appended');
      expect(seen.items.filter((c) => c.id === a)).toHaveLength(1);
    });
  }
});
