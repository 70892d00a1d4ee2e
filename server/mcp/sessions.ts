// What the MCP tools ask of the store, on top of the core: search and the History listing
// (listing/query.ts) with the filters agents use (the source tool an imported session came
// from, the calling agent's own session left out, last activity since/until), the meta lines
// search hits are labelled from, and a window of a session. Plain data in, plain data out; the
// text an agent reads is render.ts's.
// Read-only: nothing here writes a session file (the listing and search refresh their caches,
// index.json and the search cache, as the CLI's do).
// Depends on the core only (history.ts, query.ts, search.ts, reader.ts, store.ts); no MCP, no stdio.

import { stat } from 'node:fs/promises';
import { History, projectSessionFiles, toSessionEntry, type SessionEntry } from '../listing/history.js';
import { OWN_TOOL, type Origin, originOf, queryHistory } from '../listing/query.js';
import { realProjectPath } from '../store/files.js';
import { searchSessions, type SearchHit, type SearchProblem, type SessionMatch } from '../search/search.js';
import { readMeta } from '../store/reader.js';
import { StoreError } from '../store/errors.js';
import type { MetaLine, SeqEvent } from '../format/events.js';
import type { Problem } from '../store/reader.js';
import { SessionStore } from '../store/store.js';

export { OWN_TOOL, type Origin } from '../listing/query.js';

/** The filters every query takes. */
export interface Scope {
  /** An absolute project path; undefined: every project. */
  project?: string;
  /** Only sessions of this source tool ('levelcode' for sessions without a source). */
  source?: string;
  /** Events (search) or sessions' last activity (listing) at or after this ISO time. */
  since?: string;
  until?: string;
  /** Left out: a session whose id, or whose source's id, is this (the calling agent's own). */
  exclude?: string;
}

export interface Hit extends SearchHit {
  origin: Origin;
}

export interface FoundSession extends SessionMatch {
  origin: Origin;
  hits: Hit[];
}

export interface Found {
  /** One page of the matching sessions, best first. */
  sessions: FoundSession[];
  /** Their hits, session by session. */
  hits: Hit[];
  /** Matching sessions in all. */
  total: number;
  files: number;
  problems: SearchProblem[];
}

export interface Row extends SessionEntry {
  origin: Origin;
}

export interface Window {
  meta: MetaLine;
  /** The session's History row (title, times, user messages). */
  entry: SessionEntry;
  origin: Origin;
  events: SeqEvent[];
  /** Turns in the session (the next one would be this seq). */
  total: number;
  problems: Problem[];
}

export class Sessions {
  readonly root: string;
  private readonly store: SessionStore;
  private readonly history: History;
  /** Meta lines by file, with the inode they were read from (a meta line never changes). */
  private readonly metas = new Map<string, { ino: number; origin: Origin; meta: MetaLine }>();

  constructor(root: string) {
    this.root = root;
    this.store = new SessionStore({ root, agent: 'mcp' });
    this.history = new History(this.store);
  }

  /**
   * Whether the store exists: false for a folder not made yet (an empty store); an error for a
   * path that is not a folder or cannot be read, which is never "no sessions".
   */
  async exists(): Promise<boolean> {
    try {
      const st = await stat(this.root);
      if (!st.isDirectory()) throw new StoreError('io', `the store ${this.root} is not a folder`);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      if (e instanceof StoreError) throw e;
      throw new StoreError('io', `cannot read the store ${this.root}: ${(e as Error).message}`);
    }
  }

  /** A project path as meta lines hold it (its real path). */
  project(path: string): Promise<string> {
    return realProjectPath(path, false);
  }

  /** The source of the session in `file` (read once per file). */
  async origin(file: string): Promise<{ origin: Origin; meta: MetaLine }> {
    const st = await stat(file);
    const known = this.metas.get(file);
    if (known && known.ino === st.ino) return known;
    const { meta } = await readMeta(file);
    const src = (meta as Record<string, unknown>).source as Record<string, unknown> | undefined;
    const origin: Origin =
      src && typeof src === 'object' && typeof src.tool === 'string' && src.tool
        ? { tool: src.tool, ...(typeof src.id === 'string' ? { id: src.id } : {}) }
        : { tool: OWN_TOOL };
    const got = { ino: st.ino, origin, meta };
    this.metas.set(file, got);
    return got;
  }

  /**
   * Matches of `query` (the core's ranked search: sessions best first, each with its best hits),
   * `skip` sessions left out, at most `limit`. The source and exclude filters are the core's.
   */
  async search(query: string, s: Scope, skip: number, limit: number): Promise<Found> {
    const r = await searchSessions(this.root, query, {
      sessions: await this.scopeFiles(s),
      since: s.since,
      until: s.until,
      tool: s.source,
      exclude: s.exclude,
      offset: skip,
      limit,
    });
    const sessions: FoundSession[] = [];
    for (const m of r.sessions) {
      let origin: Origin;
      try {
        origin = (await this.origin(m.file)).origin;
      } catch {
        continue; // gone since the search: nothing to show
      }
      sessions.push({ ...m, origin, hits: m.hits.map((h) => ({ ...h, origin })) });
    }
    return { sessions, hits: sessions.flatMap((x) => x.hits), total: r.total, files: r.files, problems: r.problems };
  }

  /** A project's scope is its History: its own sessions and those moved or relinked into it. */
  private async scopeFiles(s: Scope): Promise<Set<string> | undefined> {
    return s.project === undefined ? undefined : (await projectSessionFiles(this.root, s.project)).files;
  }

  /**
   * Sessions newest first (by last activity), archived ones too, filtered, `skip` left out, at
   * most `limit`: History's query (listing/query.ts), each row with its origin.
   */
  async list(s: Scope, skip: number, limit: number): Promise<{ rows: Row[]; total: number; problems: Problem[] }> {
    const { project, source, since, until, exclude } = s;
    const r = await queryHistory(this.history, {
      ...(project === undefined ? { all: true } : { project }),
      list: 'both',
      order: 'recent',
      source,
      since,
      until,
      exclude,
      offset: skip,
      limit,
    });
    return { rows: r.rows.map((e) => ({ ...e, origin: originOf(e) })), total: r.total, problems: r.problems };
  }

  /**
   * Turns `from` to `to` (seqs, inclusive) of a session, with its meta line, its History row and
   * how many turns it has. Throws StoreError 'unknown-session' / 'bad-id'.
   */
  async window(id: string, from: number, to: number): Promise<Window> {
    const file = await this.store.pathOf(id);
    const { origin } = await this.origin(file);
    const entry = toSessionEntry(await this.store.entry(id));
    const r = await this.store.read(id, { from, to });
    return { meta: r.meta, entry, origin, events: r.events, total: r.totalEvents ?? 0, problems: r.problems };
  }
}
