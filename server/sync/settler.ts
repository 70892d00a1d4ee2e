// The sidecar's side of sync conflicts: the store watcher names each conflict copy it sees
// (store/watch.ts onConflict); the settler resolves them one at a time (conflicts.ts), a moment after
// they appear (Syncthing renames the old file, then moves the new one into place), and tries
// again later those it had to leave (a session locked by another process, a copy still being
// written). What it does goes to the log; the sessions it appends or forks reach the clients as
// session/didChange through the watcher, like any other write.
// Depends on conflicts.ts and the store; nothing of JSON-RPC.

import { existsSync } from 'node:fs';
import type { SessionStore } from '../store/store.js';
import { describeOutcome, resolveConflict, type ConflictOutcome } from './conflicts.js';

export interface SettlerOptions {
  store: () => Promise<SessionStore>;
  log: (line: string) => void;
  /** Wait after a copy is seen, so that Syncthing's rename and move are both done. */
  delayMs?: number;
  /** Wait before trying a copy that was left again. */
  retryMs?: number;
  onOutcome?: (o: ConflictOutcome) => void;
}

export class ConflictSettler {
  private readonly queue = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  /** Grows while every pass leaves every copy waiting (up to a minute); back to retryMs on progress. */
  private backoff = 0;

  constructor(private readonly o: SettlerOptions) {}

  seen(file: string): void {
    if (this.closed) return;
    this.queue.add(file);
    this.schedule(this.o.delayMs ?? 500);
  }

  private schedule(ms: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.running) this.running = this.run().finally(() => (this.running = undefined));
      else this.schedule(ms);
    }, ms);
    this.timer.unref?.();
  }

  private async run(): Promise<void> {
    const store = await this.o.store();
    const files = [...this.queue];
    this.queue.clear();
    const again: string[] = [];
    for (const f of files) {
      if (this.closed) return;
      const out = await resolveConflict(store, f);
      this.o.onOutcome?.(out);
      this.o.log(`sync: ${describeOutcome(out)}`);
      if (out.action === 'pending' && existsSync(f)) again.push(f);
    }
    for (const f of again) this.queue.add(f);
    const stuck = again.length === files.length;
    this.backoff = stuck ? Math.min(60_000, this.backoff ? this.backoff * 2 : (this.o.retryMs ?? 5000)) : 0;
    if (this.queue.size > 0)
      this.schedule(again.length === this.queue.size ? this.backoff || (this.o.retryMs ?? 5000) : (this.o.delayMs ?? 500));
  }

  /** Resolves when nothing is queued or running. */
  async idle(): Promise<void> {
    while (this.running || (this.timer && this.queue.size > 0)) await (this.running ?? new Promise((r) => setTimeout(r, 50)));
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
