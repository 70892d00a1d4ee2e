// A helper thread for work shared out by index between two threads: the CLI's cold listing
// (history.ts) and search (search.ts), which read every byte of the store and have a second
// core to use. Both threads take the next index from one counter in shared memory
// (Atomics.add), so they balance to within the last item each takes. The helper only computes:
// it posts each result back, and the calling thread keeps everything else (ranking, index
// writes, progress, problems).
//
// The helper is the calling module itself, run in a worker from its own URL (an eval worker:
// `import(url).then((m) => m[exportName]())`), so there is no second entry point to ship. Code
// bundled under another name (the VS Code extension bundles the listing into its main.js) has
// no such URL: there is then no helper, and the calling thread does all the work.
// Depends on node:worker_threads only (loaded when a helper starts).

/** What the calling thread holds of a running helper. */
export interface Helper {
  /** The shared counter: either thread takes the next index with Atomics.add(next, 0, 1). */
  next: Int32Array;
  /** Resolves once the helper has ended (said it is done, failed or exited) or done() holds. */
  finished(done: () => boolean, signal?: AbortSignal): Promise<void>;
  /** Ends the helper (idempotent). */
  stop(): void;
}

type Message<R> = { i: number; r: R } | { done: true };

/**
 * Starts `exportName` of the module at `moduleUrl` in a worker, with `data` for helperData();
 * `settle(i, r)` hears each result it posts. Undefined when the module is not at a URL ending
 * in `/${file}` (bundled code) or the worker cannot start: the caller then works alone. A
 * helper that dies leaves the indices it had taken unsettled; the caller does them itself.
 */
export async function startHelper<R>(
  moduleUrl: string,
  file: string,
  exportName: string,
  data: unknown,
  settle: (i: number, r: R) => void,
): Promise<Helper | undefined> {
  if (!moduleUrl.endsWith(`/${file}`)) return undefined;
  const { Worker } = await import('node:worker_threads');
  const shared = new SharedArrayBuffer(4);
  let worker: InstanceType<typeof Worker>;
  try {
    worker = new Worker(`import(${JSON.stringify(moduleUrl)}).then((m) => m[${JSON.stringify(exportName)}]())`, {
      eval: true,
      workerData: { shared, data },
    });
  } catch {
    return undefined;
  }
  worker.unref(); // never what keeps the process alive
  let ended = false;
  let wake: (() => void) | undefined;
  worker.on('message', (m: Message<R>) => {
    if ('done' in m) ended = true;
    else settle(m.i, m.r);
    wake?.();
  });
  const end = (): void => {
    ended = true;
    wake?.();
  };
  worker.on('error', end);
  worker.on('exit', end);
  return {
    next: new Int32Array(shared),
    finished: async (done, signal) => {
      const onAbort = (): void => wake?.();
      signal?.addEventListener('abort', onAbort);
      try {
        while (!ended && !done()) {
          signal?.throwIfAborted();
          await new Promise<void>((r) => (wake = r));
        }
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    },
    stop: () => void worker.terminate(),
  };
}

/** In the helper: the `data` it was started with. */
export async function helperData<T>(): Promise<T> {
  const { workerData } = await import('node:worker_threads');
  return (workerData as { data: T }).data;
}

/**
 * In the helper: `work(i)` for each index taken from the shared counter below `count`, each
 * result posted as it is done, then word that the helper is done.
 */
export async function serveHelper<R>(count: number, work: (i: number) => R | Promise<R>): Promise<void> {
  const { parentPort, workerData } = await import('node:worker_threads');
  const next = new Int32Array((workerData as { shared: SharedArrayBuffer }).shared);
  const post = (m: Message<R>): void => parentPort?.postMessage(m);
  for (let i = Atomics.add(next, 0, 1); i < count; i = Atomics.add(next, 0, 1)) post({ i, r: await work(i) });
  post({ done: true });
}
