// Delete with an honest Undo: the deletion is deferred. Choosing Delete hides the chat from the
// History at once and starts a grace period; only when it ends is session/delete sent (the file
// goes to the OS trash). Undo within the period cancels it, and nothing was ever touched. After
// the period the chat is in the OS trash, which the user can restore from as with any file; we
// say so rather than pretend (re-creating it from an export would make a new session with a new
// id, not undo anything). On shutdown the pending deletions are carried out (flush), because
// the user asked for them.
//
// Pure: timers are injected, no `vscode` import; unit-tested with a fake clock.

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export type UndoResult = 'undone' | 'already-deleted' | 'unknown';

interface Pending {
  timer: unknown;
  run: () => Promise<void>;
  /** Settles when the deletion ran (or failed) or was undone. */
  done: Promise<'deleted' | 'failed' | 'undone'>;
  settle: (r: 'deleted' | 'failed' | 'undone') => void;
}

export class PendingDeletes {
  private readonly pending = new Map<string, Pending>();
  private readonly finished = new Set<string>();

  constructor(
    /** Carries out the deletion of one id (session/delete). */
    private readonly remove: (id: string) => Promise<void>,
    private readonly graceMs: number,
    private readonly timers: Timers = realTimers,
    /** Told when a deferred deletion failed (the chat is then shown again). */
    private readonly onFailed: (id: string, error: unknown) => void = () => undefined,
  ) {}

  /** Ids hidden from the History right now (awaiting deletion). */
  hidden(): ReadonlySet<string> {
    return new Set(this.pending.keys());
  }

  isPending(id: string): boolean {
    return this.pending.has(id);
  }

  /** Starts the grace period for `id`; a second call for the same id is ignored. */
  schedule(id: string): Promise<'deleted' | 'failed' | 'undone'> {
    const existing = this.pending.get(id);
    if (existing) return existing.done;
    this.finished.delete(id);
    let settle!: Pending['settle'];
    const done = new Promise<'deleted' | 'failed' | 'undone'>((r) => (settle = r));
    const run = async () => {
      if (this.pending.get(id) !== entry) return;
      this.pending.delete(id);
      try {
        await this.remove(id);
        this.finished.add(id);
        settle('deleted');
      } catch (e) {
        this.onFailed(id, e);
        settle('failed');
      }
    };
    const entry: Pending = { timer: undefined, run, done, settle };
    entry.timer = this.timers.set(() => void run(), this.graceMs);
    this.pending.set(id, entry);
    return done;
  }

  /** Cancels a pending deletion. Says honestly when it is too late. */
  undo(id: string): UndoResult {
    const entry = this.pending.get(id);
    if (entry) {
      this.timers.clear(entry.timer);
      this.pending.delete(id);
      entry.settle('undone');
      return 'undone';
    }
    return this.finished.has(id) ? 'already-deleted' : 'unknown';
  }

  /** Carries out every pending deletion now (extension shutdown). */
  async flush(): Promise<void> {
    const all = [...this.pending.values()];
    for (const e of all) this.timers.clear(e.timer);
    await Promise.all(all.map((e) => e.run()));
  }
}
