// "Open a copy": a new session with every event of another, verbatim and in order, then one
// `forked` marker naming the original. What a window does when the session it wants is owned
// by another window (multi-window rule: no merge semantics, a copy instead). A session of a
// newer schema is refused (SchemaTooNew), never copied into this build's schema with loss.
//
// Seq numbers are kept (event n of the original is event n of the copy), so compact events'
// coversThrough stay true, as long as the original has no unreadable lines: those are skipped
// and reported in `problems`, which shifts later seqs by one each.
// Depends on the store only: nothing of JSON-RPC.

import { SCHEMA_VERSION, type MetaLine } from '../format/events.js';
import { StoreError } from './errors.js';
import type { Problem, SessionStore } from './store.js';

export interface ForkResult {
  meta: MetaLine;
  forkedFrom: string;
  copied: number;
  problems: Problem[];
}

export async function forkSession(store: SessionStore, id: string): Promise<ForkResult> {
  const original = await store.read(id, { from: 0 });
  // A copy in this build's schema would drop what the newer one means (its meta fields, its
  // events' semantics) without a word: refused, as an append to it is.
  if (original.meta.v > SCHEMA_VERSION)
    throw new StoreError(
      'schema-too-new',
      `session ${id} was written with schema v${original.meta.v}; this build writes v${SCHEMA_VERSION} and cannot copy it faithfully (update levelcode-sessions)`,
      { v: original.meta.v, supported: SCHEMA_VERSION },
    );
  const meta = await store.create({ project: original.meta.project, model: original.meta.model });
  const events: unknown[] = original.events.map((e) => e.event);
  const last = original.events.length > 0 ? original.events[original.events.length - 1]!.seq : -1;
  events.push({ kind: 'event', type: 'forked', from: id, throughSeq: last });
  try {
    await store.append(meta.id, events);
  } catch (e) {
    // Leave no half-made copy behind: the new file holds only its meta line at this point.
    await store.delete(meta.id).catch(() => undefined);
    throw e;
  }
  return { meta, forkedFrom: id, copied: original.events.length, problems: original.problems };
}
