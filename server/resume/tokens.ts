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
 * The JSON length of an object or array at least this long is kept for as long as the value
 * lives: the planner measures the same messages more than once (a budget, then the cut).
 */
const KEEP_LENGTH = 256;
const measured = new WeakMap<object, number>();

/**
 * The length, in UTF-16 code units, of the JSON text of `value`: what goes over the wire. A
 * string counts as its JSON encoding (quotes and escapes included), `undefined` as nothing.
 * The length of a long object or array is kept for as long as the value lives.
 */
export function jsonLength(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value === 'object' && value !== null) {
    const known = measured.get(value);
    if (known !== undefined) return known;
  }
  const text = JSON.stringify(value);
  if (text === undefined) return 0;
  if (text.length >= KEEP_LENGTH && typeof value === 'object' && value !== null) measured.set(value, text.length);
  return text.length;
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
