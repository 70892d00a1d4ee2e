// A writer killed with SIGKILL mid-append: the session still lists and reads, every
// acknowledged event is on disk, and at most the in-flight line is missing (torn).
import { describe, it, expect } from 'vitest';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SessionStore } from '../../server/store/store.js';
import { History } from '../../server/listing/history.js';

const here = dirname(fileURLToPath(import.meta.url));
const writer = join(here, '..', 'support', 'writer.mjs');

function runAndKill(
  root: string,
  id: string,
  tag: string,
  batch: number,
  bytes: number,
  killAfterAcks: number,
  extraDelayMs: number,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writer, root, id, String(batch), String(bytes), tag], { stdio: ['ignore', 'pipe', 'pipe'] });
    let lastAck = -1;
    let acks = 0;
    let buf = '';
    let stderr = '';
    let killing = false;
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) !== -1) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const m = /^ack (\d+)$/.exec(line);
        if (m) {
          lastAck = Number(m[1]);
          acks++;
        }
        if (acks >= killAfterAcks && !killing) {
          killing = true;
          setTimeout(() => child.kill('SIGKILL'), extraDelayMs);
        }
      }
    });
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer ended on its own (${code}): ${stderr}`));
      else resolve(lastAck);
    });
  });
}

describe('SIGKILL mid-append', () => {
  it('loses nothing acknowledged across repeated kills', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'lcs-crash-'));
    const root = join(tmp, 'store');
    const project = join(tmp, 'p');
    await mkdir(project);
    try {
      const s = new SessionStore({ root });
      const { id } = await s.create({ project });
      await s.releaseAll();
      const trials = [
        [1, 200, 3, 0],
        [5, 20_000, 2, 1],
        [2, 400_000, 1, 2],
        [20, 100, 4, 0],
        [1, 2_000_000, 1, 3],
        [3, 5000, 2, 1],
      ] as const;
      let acknowledged = -1;
      let torn = 0;
      for (const [i, [batch, bytes, acks, delay]] of trials.entries()) {
        const tag = `trial${i}`;
        const last = await runAndKill(root, id, tag, batch, bytes, acks, delay);
        const r = await new SessionStore({ root }).read(id);
        const ns = r.events.filter((e) => (e.event as { tag?: string }).tag === tag).map((e) => (e.event as { n?: number }).n);
        // Every acknowledged event of this writer is there, in order, byte-identical.
        for (let k = 0; k <= last; k++) expect(ns).toContain(k);
        for (const e of r.events) {
          const ev = e.event as Record<string, unknown>;
          expect(typeof ev.content === 'string' && ev.content.startsWith(`#${ev.n} `)).toBe(true);
        }
        expect(r.problems.length).toBeLessThanOrEqual(torn + 1);
        torn = r.problems.length;
        acknowledged = Math.max(acknowledged, last);
        const listed = (await new History(new SessionStore({ root })).list({ project })).sessions;
        expect(listed.map((x) => x.id)).toEqual([id]);
      }
      expect(acknowledged).toBeGreaterThan(0);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }, 120_000);
});
