// The CLI's progress line (server/cli/format.ts progressLine), on a clock the test moves.
import { describe, expect, it } from 'vitest';
import { progressLine } from '../../server/cli/format.js';

function setup(opts: { after?: number; every?: number } = {}) {
  let t = 1000;
  const out: string[] = [];
  const p = progressLine((s) => out.push(s), 'searching sessions', { now: () => t, ...opts });
  return { p, out, at: (ms: number) => (t = 1000 + ms) };
}

describe('progressLine', () => {
  it('prints nothing for a command quicker than `after`, not even when it ends', () => {
    const { p, out, at } = setup();
    for (let i = 1; i <= 100; i++) {
      at(i * 4);
      p.update(i, 100);
    }
    p.end();
    expect(out).toEqual([]);
  });

  it('then draws the count over itself at most every `every` ms, the last one always, and erases it at the end', () => {
    const { p, out, at } = setup({ after: 500, every: 100 });
    at(499);
    p.update(1, 10);
    at(500);
    p.update(2, 10);
    at(550);
    p.update(3, 10); // too soon after the last
    at(600);
    p.update(4, 10);
    at(610);
    p.update(10, 10); // the last: drawn whatever the time
    p.end();
    expect(out).toEqual([
      '\rsearching sessions 2/10, 2 s left\x1b[K',
      '\rsearching sessions 4/10, 1 s left\x1b[K',
      '\rsearching sessions 10/10\x1b[K',
      '\r\x1b[K',
    ]);
  });
});
