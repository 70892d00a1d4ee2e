// The first search of a store on two threads. A folder without a search index is indexed by
// reading every byte of its sessions; the first search of a store does that for every folder,
// which on one thread took 78x `rg` (rg reads on every core). Kept for the guardrail "first
// search, building the index, within 45x rg" (issue 26): when enough is unindexed, the folders
// without an index are split in two by bytes, one half built here and the other in a worker
// thread (build-worker.ts), both through search.ts buildIndexes, each writing its folders'
// indexes; the search then answers from them as from any current index. A phrase's search
// also builds again the folders whose index has no pair filter (pair-filter.ts: a word's search
// makes none, so that a store's first search keeps its guardrail).
// Anything that goes wrong in the worker only costs time: what it did not write, the search
// builds itself. Where the worker's file is not beside this one (a bundle), one thread.
// Depends on node:fs, node:worker_threads and search-index.ts's index path.

import { existsSync, lstatSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { hasPairs, searchIndexPath } from './search-index.js';

/** Less unindexed than this is built on one thread: a worker's start is not worth it. */
const MIN_BYTES = 64 * 1024 * 1024;
const WORKER = new URL('./build-worker.js', import.meta.url);

type Build = (files: string[], onProgress: (done: number) => void) => Promise<void>;

/**
 * Builds the indexes of the folders of `listed` that have none, on two threads when there is
 * enough to read; `onProgress` gets the files done so far. Returns when both halves are done.
 */
export async function buildFirstIndexes(
  listed: readonly string[],
  query: string,
  build: Build,
  o: { onProgress?: (done: number) => void; signal?: AbortSignal; pairs?: boolean } = {},
): Promise<void> {
  const halves = split(listed, !!o.pairs);
  if (!halves || !existsSync(fileURLToPath(WORKER))) return;
  const done = [0, 0];
  const report = () => o.onProgress?.(done[0]! + done[1]!);
  const worker = new Worker(WORKER, { workerData: { files: halves[1], query } });
  const abort = () => void worker.terminate();
  o.signal?.addEventListener('abort', abort, { once: true });
  const theirs = new Promise<void>((resolve) => {
    worker.on('message', (m: { done?: number }) => {
      if (typeof m.done === 'number') {
        done[1] = m.done;
        report();
      }
    });
    worker.once('error', () => resolve()); // what it did not write, the search builds
    worker.once('exit', () => resolve());
  });
  try {
    await build(halves[0], (n) => {
      done[0] = n;
      report();
    });
  } finally {
    await theirs;
    o.signal?.removeEventListener('abort', abort);
  }
}

/**
 * The files of the folders without an index (`pairs`, a phrase's search: or without a pair
 * filter), in two halves of about equal bytes; null: not worth two threads.
 */
function split(listed: readonly string[], pairs: boolean): [string[], string[]] | null {
  const byDir = new Map<string, { files: string[]; bytes: number }>();
  for (const f of listed) {
    const dir = f.slice(0, f.lastIndexOf(sep));
    let d = byDir.get(dir);
    if (!d) {
      const path = searchIndexPath(dir);
      if (existsSync(path) && (!pairs || hasPairs(path))) continue;
      byDir.set(dir, (d = { files: [], bytes: 0 }));
    }
    d.files.push(f);
    try {
      d.bytes += lstatSync(f).size;
    } catch {
      /* the search reports it */
    }
  }
  const dirs = [...byDir.values()].sort((a, b) => b.bytes - a.bytes);
  const total = dirs.reduce((n, d) => n + d.bytes, 0);
  if (dirs.length < 2 || total < MIN_BYTES) return null;
  const halves: [string[], string[]] = [[], []];
  const bytes = [0, 0];
  for (const d of dirs) {
    const i = bytes[0]! <= bytes[1]! ? 0 : 1;
    halves[i].push(...d.files);
    bytes[i]! += d.bytes;
  }
  return halves;
}
