// Unit tests of the deferred delete behind Undo (clients/vscode/src/history/pendingDeletes.ts),
// on a fake clock: nothing is deleted during the grace period, Undo cancels, late Undo says so,
// failures come back, and shutdown carries out what the user asked for.

import { describe, expect, it } from 'vitest';
import { PendingDeletes, type Timers } from '../../../../clients/vscode/src/history/pendingDeletes.js';

function fakeClock() {
  let now = 0;
  let next = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const t: Timers & { advance(ms: number): Promise<void> } = {
    set: (fn, ms) => {
      const id = next++;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clear: (h) => void timers.delete(h as number),
    async advance(ms: number) {
      now += ms;
      for (const [id, e] of [...timers]) {
        if (e.at <= now) {
          timers.delete(id);
          e.fn();
        }
      }
      await new Promise((r) => setImmediate(r));
    },
  };
  return t;
}

describe('PendingDeletes', () => {
  it('hides at once and deletes only when the grace period ends', async () => {
    const clock = fakeClock();
    const removed: string[] = [];
    const d = new PendingDeletes(async (id) => void removed.push(id), 8000, clock);
    const done = d.schedule('a');
    expect([...d.hidden()]).toEqual(['a']);
    await clock.advance(7999);
    expect(removed).toEqual([]);
    await clock.advance(1);
    expect(await done).toBe('deleted');
    expect(removed).toEqual(['a']);
    expect(d.hidden().size).toBe(0);
  });

  it('undoes within the grace period, and the file is never touched', async () => {
    const clock = fakeClock();
    const removed: string[] = [];
    const d = new PendingDeletes(async (id) => void removed.push(id), 8000, clock);
    const done = d.schedule('a');
    await clock.advance(5000);
    expect(d.undo('a')).toBe('undone');
    expect(await done).toBe('undone');
    await clock.advance(60_000);
    expect(removed).toEqual([]);
    expect(d.hidden().size).toBe(0);
  });

  it('says so when Undo comes too late', async () => {
    const clock = fakeClock();
    const d = new PendingDeletes(async () => undefined, 1000, clock);
    void d.schedule('a');
    await clock.advance(1000);
    expect(d.undo('a')).toBe('already-deleted');
    expect(d.undo('never')).toBe('unknown');
  });

  it('shows the chat again when the deletion fails', async () => {
    const clock = fakeClock();
    const failed: string[] = [];
    const d = new PendingDeletes(
      async () => Promise.reject(new Error('disk')),
      1000,
      clock,
      (id) => failed.push(id),
    );
    const done = d.schedule('a');
    await clock.advance(1000);
    expect(await done).toBe('failed');
    expect(failed).toEqual(['a']);
    expect(d.isPending('a')).toBe(false);
    expect(d.undo('a')).toBe('unknown');
  });

  it('carries out pending deletions on shutdown', async () => {
    const clock = fakeClock();
    const removed: string[] = [];
    const d = new PendingDeletes(async (id) => void removed.push(id), 8000, clock);
    void d.schedule('a');
    void d.schedule('b');
    void d.schedule('a'); // twice: once
    await d.flush();
    expect(removed.sort()).toEqual(['a', 'b']);
    await clock.advance(10_000);
    expect(removed).toHaveLength(2);
  });
});
