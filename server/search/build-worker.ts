// The search cache's long builds on a worker thread (rpc/live-search.ts starts it): a first build,
// or a catch-up with much to index (a big import), so that the sidecar's main thread keeps
// answering session/list and appends meanwhile. It opens the same database file (the main thread
// holds no connection to it while this runs), brings it up to date with buildCache, and posts
// `{ done, total }` as files are indexed (once a percent), then `{ problems }` when it is done.
//
// Its thread runs at a lower priority than the main thread's where the system allows it (Linux).
// It commits every COMMIT_MS: a build cut short (the worker terminated when the sidecar quits)
// keeps the files it finished, and the next start goes on from there. SQLite rolls back the
// transaction in progress, and the cache's `built` marker is written only once every file is
// indexed, so a half-built cache is never searched as a whole one.
//
// Its own file because a worker thread runs a file: tsc puts it in dist/search/, the VS Code
// bundle in its sidecar's search/ folder (clients/vscode/build.mjs), both
// `../search/build-worker.js` from the code that starts it. Depends on cache.ts and search.ts.

import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { SearchCache } from './cache.js';
import { buildCache, type SearchProblem } from './search.js';

/** How often the build commits (and lets another process's write in). */
const COMMIT_MS = 500;

/**
 * Background work: on Linux this thread (not the process) is made nicer than the one answering
 * requests, so that on a busy machine a list waits less for the build. Elsewhere, as it is.
 */
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
