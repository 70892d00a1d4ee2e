// The worker thread of the sidecar's long builds of the search cache (rpc/live-search.ts starts
// it): a first build, or a catch-up with much to index, so that the main thread keeps answering
// meanwhile. It opens the same database file, brings it up to date with buildCache (committing
// every COMMIT_MS: a build cut short keeps what it finished, and `built` is written only at the
// end), and posts `{ done, total }` once a percent, then `{ problems }`. Its own file because a
// thread runs a file (dist/search/, or the VS Code bundle's sidecar/search/).

import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { SearchCache } from './cache.js';
import { buildCache, type SearchProblem } from './search.js';

/** How often the build commits (and lets another process's write in). */
const COMMIT_MS = 500;

/** On Linux this thread (not the process) is made nicer than the one answering requests. */
function nicer(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (tid > 0) setPriority(tid, Math.min(19, getPriority(tid) + 10));
  } catch {
    // no /proc (macOS, Windows), or not allowed: the same priority as the main thread
  }
}

nicer();
const { root } = workerData as { root: string };
const problems: SearchProblem[] = [];
const cache = SearchCache.open(root);
try {
  let shown = -1;
  await buildCache(cache, root, {
    problems,
    yieldMs: COMMIT_MS,
    onProgress: (done, total) => {
      const percent = total ? Math.floor((done / total) * 100) : 100;
      if (percent !== shown) parentPort?.postMessage({ done, total }), (shown = percent);
    },
  });
  parentPort?.postMessage({ problems });
} finally {
  cache.close();
}
