// "Open a copy" and "Fork at a turn": a new session with the events of another, verbatim and in
// order, then one `forked` marker naming the original. A copy is what a window does when the
// session it wants is owned by another window (multi-window rule: no merge semantics, a copy
// instead); a fork at a turn keeps turns 1 to N only, to take the chat another way from there.
// A session of a newer schema is refused (SchemaTooNew), never copied into this build's schema
// with loss.
//
// Turns are counted as History counts them (reader.ts isTurn: a user line that is not only tool
// results). The cut falls just before the user line that starts turn N+1, so the tool results of
// turn N (user lines of tool_result blocks, not turns) stay with their tool_use: a fork never ends
// on an orphaned tool call that the original had answered.
//
// Seq numbers are kept (event n of the original is event n of the copy), so compact events'
// coversThrough stay true, as long as the original has no unreadable lines: those are skipped
// and reported in `problems`, which shifts later seqs by one each.
// Depends on the store only: nothing of JSON-RPC.

import { SCHEMA_VERSION, type ImportSource, type MetaLine } from '../format/events.js';
import { StoreError, isStoreError } from './errors.js';
import { emptyDigest, foldEvents, isTurn } from './reader.js';
import type { Problem, SessionStore } from './store.js';
import type { SeqEvent } from '../format/events.js';

export interface ForkResult {
  meta: MetaLine;
  forkedFrom: string;
  /** The last turn of the original the fork holds (all of them for a whole copy). */
  turn: number;
  copied: number;
  problems: Problem[];
}

export async function forkSession(
  store: SessionStore,
  id: string,
  o: { atTurn?: number; project?: string; source?: ImportSource } = {},
): Promise<ForkResult> {
  const original = await store.read(id, { from: 0 });
  // A copy in this build's schema would drop what the newer one means (its meta fields, its
  // events' semantics) without a word: refused, as an append to it is.
  if (original.meta.v > SCHEMA_VERSION)
    throw new StoreError(
      'schema-too-new',
      `session ${id} was written with schema v${original.meta.v}; this build writes v${SCHEMA_VERSION} and cannot copy it faithfully (update levelcode-sessions)`,
      { v: original.meta.v, supported: SCHEMA_VERSION },
    );
  const { kept, turn } = cutAtTurn(id, original.events, o.atTurn);
  const meta = await store.create({
    project: o.project ?? (await forkProject(store, id, original.meta.project)),
    model: original.meta.model,
    forkedFrom: { id, turn },
    ...(o.source ? { source: o.source } : {}),
  });
  const events: unknown[] = kept.map((e) => e.event);
  const last = kept.length > 0 ? kept[kept.length - 1]!.seq : -1;
  events.push({ kind: 'event', type: 'forked', from: id, throughSeq: last, ...(o.atTurn !== undefined ? { atTurn: turn } : {}) });
  // The original's place in History is its own: a fork starts neither pinned nor archived. The
  // copied lines are folded as the listing index folds them (reader.ts).
  const place = foldEvents(
    emptyDigest(original.meta, 0),
    kept.map((e) => e.event),
    kept.map(() => 0),
    0,
  );
  if (place.pinned) events.push({ kind: 'event', type: 'unpin' });
  if (place.archived) events.push({ kind: 'event', type: 'unarchive' });
  try {
    await store.append(meta.id, events);
  } catch (e) {
    // Leave no half-made copy behind: the new file holds only its meta line at this point.
    await store.delete(meta.id).catch(() => undefined);
    throw e;
  }
  return { meta, forkedFrom: id, turn, copied: kept.length, problems: original.problems };
}

/** The events of turns 1 to atTurn (all of them without atTurn), and the turn they end on. */
export function cutAtTurn(id: string, events: SeqEvent[], atTurn?: number): { kept: SeqEvent[]; turn: number } {
  const starts: number[] = [];
  events.forEach((e, i) => {
    if (isTurn(e.event)) starts.push(i);
  });
  if (atTurn === undefined) return { kept: events, turn: starts.length };
  if (!Number.isInteger(atTurn) || atTurn < 1 || atTurn > starts.length)
    throw new StoreError(
      'invalid-events',
      `session ${id} has ${starts.length} turn${starts.length === 1 ? '' : 's'}: cannot fork at turn ${atTurn} (give 1 to ${starts.length})`,
      { turns: starts.length, atTurn },
    );
  const end = atTurn < starts.length ? starts[atTurn]! : events.length;
  return { kept: events.slice(0, end), turn: atTurn };
}

/**
 * Where the fork is created when the caller names no folder: the original's project, or, when
 * that folder is gone, the folder it was relinked to. A session shown under a moved folder
 * without a relink needs the folder named (the listing's `project`): never guessed here.
 */
async function forkProject(store: SessionStore, id: string, project: string): Promise<string> {
  try {
    return await store.realProject(project, true);
  } catch (e) {
    const now = await store.currentProjectOf(id).catch(() => undefined);
    if (now) return now;
    if (isStoreError(e, 'invalid-project'))
      throw new StoreError('invalid-project', `${e.message}: name the folder to fork into (--project PATH, or session/fork's project)`);
    throw e;
  }
}
