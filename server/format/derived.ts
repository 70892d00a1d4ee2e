// Fields of an imported event that are parts of its verbatim source record (`raw`), written once.
// An importer maps a tool's record to our event by taking parts of it (Claude Code's user line
// gives `content: raw.message.content`, a tool call `messages: [raw.message]`); writing them
// beside `raw` would store the tool's content twice (a third of an imported session). So the
// line names where in `raw` such a field is, and readers put it back before anything else looks:
//
//   {"kind":"agent","t":"…","ofRaw":{"messages":[["message"]]},"raw":{…,"message":{…}}}
//
// `ofRaw` maps a field to a path of keys into `raw` (the field is that value), or to a list of
// such paths (the field is the list of those values). Only a field that is the very same value
// the record holds (the same object, or an equal string) is so written: what a reader rebuilds
// is exactly what was mapped, and `raw` stays the tool's record, verbatim.
// Depends on nothing: plain data.

/** The key of a line that names its fields taken from `raw`. */
export const OF_RAW = 'ofRaw';
/** How deep into `raw` a field is looked for (raw.message.content is 2). */
const DEPTH = 3;
/** Strings shorter than this are written as they are (a reference would not be shorter). */
const MIN_STRING = 48;

type Path = string[];

/**
 * The line to write for an event: fields that are parts of its `raw` named under `ofRaw`
 * instead of written again. The event itself is not changed; an event with nothing to share
 * is returned as it is.
 */
export function shareWithRaw(ev: Record<string, unknown>): Record<string, unknown> {
  const raw = ev.raw;
  if (!raw || typeof raw !== 'object' || Object.hasOwn(ev, OF_RAW)) return ev;
  // What could be shared: the fields' values (or their elements), then where raw holds them.
  const wanted = new Set<unknown>();
  for (const k of Object.keys(ev)) {
    if (k === 'kind' || k === 't' || k === 'raw') continue;
    const v = ev[k];
    if (isShareable(v)) wanted.add(v);
    if (Array.isArray(v)) for (const x of v) if (isShareable(x)) wanted.add(x);
  }
  if (wanted.size === 0) return ev;
  const where = pathsOf(raw, wanted);
  if (where.size === 0) return ev;
  const refs: Record<string, Path | Path[]> = {};
  let any = false;
  for (const k of Object.keys(ev)) {
    if (k === 'kind' || k === 't' || k === 'raw') continue;
    const v = ev[k];
    const p = where.get(v);
    if (p) {
      refs[k] = p;
      any = true;
    } else if (Array.isArray(v) && v.length > 0 && v.every((x) => where.has(x))) {
      refs[k] = v.map((x) => where.get(x)!);
      any = true;
    }
  }
  if (!any) return ev;
  // `ofRaw` takes the place of the first field it names, so that a reader puts them back where they were.
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(ev)) {
    if (!Object.hasOwn(refs, k)) define(out, k, ev[k]);
    else if (!Object.hasOwn(out, OF_RAW)) define(out, OF_RAW, refs);
  }
  return out;
}

/**
 * A parsed line with its `ofRaw` fields put back where `ofRaw` stands, as the writer mapped
 * them (a new object; the line's other keys in their order). A path that leads nowhere in `raw`
 * leaves its field out (the event's check then says what is missing). A line without `ofRaw`
 * is returned as it is. `copy: false` shares the parts with `raw`, for a reader that only looks
 * (search's indexing).
 */
export function restoreFromRaw<T>(v: T, copy = true): T {
  if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, OF_RAW)) return v;
  const ev = v as Record<string, unknown>;
  const refs = ev[OF_RAW];
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(ev)) {
    if (k !== OF_RAW) {
      if (!Object.hasOwn(out, k)) define(out, k, ev[k]);
      continue;
    }
    if (!refs || typeof refs !== 'object' || Array.isArray(refs)) continue;
    for (const [f, p] of Object.entries(refs as Record<string, unknown>)) {
      if (f === 'kind' || f === 't' || f === 'raw' || f === OF_RAW || Object.hasOwn(ev, f) || !Array.isArray(p)) continue;
      const value = isPath(p) ? at(ev.raw, p) : p.every(isPath) ? p.map((q) => at(ev.raw, q as Path)) : undefined;
      if (value === undefined || (Array.isArray(value) && !isPath(p) && value.includes(undefined))) continue;
      // A copy, as two separate lines of JSON gave before: a reader that changes the field (an
      // elided tool result) never changes the record it came from.
      define(out, f, copy ? structuredClone(value) : value);
    }
  }
  return out as T;
}

function isShareable(v: unknown): boolean {
  return (typeof v === 'object' && v !== null) || (typeof v === 'string' && v.length >= MIN_STRING);
}

function isPath(p: unknown): p is Path {
  return Array.isArray(p) && p.length > 0 && p.every((k) => typeof k === 'string');
}

/** Where inside `raw` (not raw itself, down to DEPTH, through objects) each wanted value first is. */
function pathsOf(raw: unknown, wanted: Set<unknown>): Map<unknown, Path> {
  const out = new Map<unknown, Path>();
  const walk = (v: unknown, path: Path): void => {
    if (path.length >= DEPTH || !v || typeof v !== 'object' || Array.isArray(v)) return;
    for (const k of Object.keys(v)) {
      if (out.size === wanted.size) return;
      const x = (v as Record<string, unknown>)[k];
      if (x === null || (typeof x !== 'object' && typeof x !== 'string')) continue;
      if (wanted.has(x) && !out.has(x)) out.set(x, [...path, k]);
      if (typeof x === 'object') walk(x, [...path, k]);
    }
  };
  walk(raw, []);
  return out;
}

function at(raw: unknown, path: Path): unknown {
  let v = raw;
  for (const k of path) {
    if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, k)) return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

/** Sets an own data property even for keys like `__proto__`. */
function define(o: Record<string, unknown>, k: string, value: unknown): void {
  // Performance: a plain assignment for every other key (the listing restores every user line
  // of an imported session; defineProperty was most of restoreFromRaw's time).
  if (k === '__proto__') Object.defineProperty(o, k, { value, enumerable: true, writable: true, configurable: true });
  else o[k] = value;
}
