// Token estimates for the resume planner. The default is characters / 4 over the JSON a
// provider would be sent; a caller that knows better passes its own counter, or exact counts
// for some events by sequence number.
// Pure functions over plain values: no fs, no JSON-RPC, no tokenizer library. An estimate is
// a budget aid, not a bill; the planner only needs it to be deterministic and roughly right.

/** Counts the tokens of one value as a provider would see it (a message, a string). */
export type TokenCounter = (value: unknown) => number;

/** Exact counts a client already has, by event seq: a Map or a plain `{ [seq]: tokens }` object. */
export type SeqTokenCounts = ReadonlyMap<number, number> | Readonly<Record<number, number>>;

export const CHARS_PER_TOKEN = 4;

/**
 * Texts shorter than this are not kept. Most of a resume's messages are longer: kept, the answer
 * is written from ~7,000 texts with the rest serialized through a replacer (~15 ms); at 4 KB
 * the other 8 MB went through the replacer, V8's slow path, and the answer took 50% longer.
 */
const KEEP_TEXT = 256;
/** A value's JSON made before it was asked for: its text, or its UTF-8 bytes and their length. */
type Known = string | { readonly bytes: Buffer; readonly length: number };
const measured = new WeakMap<object, Known>();

/**
 * The length, in UTF-16 code units, of the JSON text of `value`: what goes over the wire. A
 * string counts as its JSON encoding (quotes and escapes included), `undefined` as nothing.
 * The text of a long object or array is kept for as long as the value lives (measuredJson), and
 * a value whose JSON is known (knownJson) is not serialized at all.
 */
export function jsonLength(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value === 'object' && value !== null) {
    const known = measured.get(value);
    if (known !== undefined) return known.length;
  }
  const text = JSON.stringify(value);
  if (text === undefined) return 0;
  if (text.length >= KEEP_TEXT && typeof value === 'object' && value !== null) measured.set(value, text);
  return text.length;
}

/**
 * Records the JSON of `value` where it was made without JSON.stringify: exactly its UTF-8
 * bytes, and `length`, the text's length in UTF-16 code units. The soft cap's skim (skim.ts)
 * makes them from the session line's own bytes, so that neither the estimate nor the answer
 * serializes the 23 MB of tool calls a whole-session resume of the 134 MB benchmark session
 * answers with.
 */
export function knownJson(value: object, bytes: Buffer, length: number): void {
  measured.set(value, { bytes, length });
}

/**
 * The JSON jsonLength made of `value`, or knownJson recorded for it: its text, or its UTF-8
 * bytes. The values a resume measures are the messages of its answer, so the sidecar writes
 * that answer from these instead of serializing 26 MB again (rpc/encode.ts). Events are never
 * changed once read, so the JSON stays the value's.
 */
export function measuredJson(value: object): string | Buffer | undefined {
  const known = measured.get(value);
  return typeof known === 'object' ? known.bytes : known;
}

/** The default counter: ceil(JSON characters / 4). */
export const estimateTokens: TokenCounter = (value) => Math.ceil(jsonLength(value) / CHARS_PER_TOKEN);

/** Runs a counter and refuses answers that would break the planner's arithmetic. */
export function countWith(counter: TokenCounter, value: unknown): number {
  const n = counter(value);
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) {
    throw new RangeError(`token counter returned ${String(n)}; expected a finite number >= 0`);
  }
  return Math.ceil(n);
}

/** The sum of a counter over a list of messages. */
export function countAll(counter: TokenCounter, values: readonly unknown[]): number {
  let sum = 0;
  for (const v of values) sum += countWith(counter, v);
  return sum;
}

/** The count a client gave for `seq`, if any. */
export function countForSeq(counts: SeqTokenCounts | undefined, seq: number): number | undefined {
  if (counts === undefined) return undefined;
  const n = counts instanceof Map ? counts.get(seq) : (counts as Readonly<Record<number, number>>)[seq];
  if (n === undefined) return undefined;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) {
    throw new RangeError(`token count for seq ${seq} is ${String(n)}; expected a finite number >= 0`);
  }
  return Math.ceil(n);
}
