// The adjacency filter of a folder's search index (search-index.ts): per event, a small Bloom
// filter of the pairs of adjacent tokens in its texts. A phrase's candidates are the events
// holding its words; most of them (in the bench corpus, 22,000 of 24,750, 750 MB of lines) hold
// the words but never one next to the other, and the filter leaves most of those out unread.
//
// A pair is two tokens next to each other in one text, with what lies between them exactly: the
// first token's hash (folded, search-index.ts fnv), the characters from its last through the
// second's first as written (the case at the join, the separator), the second token's hash. A
// phrase held by a text gives the text the pairs of its runs (FolderIndex.phrasePairs); an event
// whose filter lacks one cannot hold the phrase. The filter only ever leaves events out that
// cannot match: what it lets through is decided as before. A phrase's search builds it (an
// index without one is built again); a word's does not, so a store's first search does not pay
// for it (about 40% more of the build's time).
//
// Layout: the bits are in PARTS parts, a pair's part chosen by the characters at its join
// alone, so that the pairs a phrase may make (whatever longer tokens its ends are the end and
// start of) are in one part: a search reads that part only, about a sixteenth of the filter.
// Every event has a slice of the same size in every part, at the same place (after the slices
// of the events before it): BITS_PER_PAIR bits a pair of the event, over the parts, rounded
// up; a pair sets three bits of its slice in its part. An event without a pair has no slice (no
// phrase of two runs is in it). Stored: the slices' sizes (u32 each), then each part's bits.
// Tried: slices sized a part at a time (as many events let through, 32 bytes an event for the
// sizes); three bits in one byte (one memory access a pair; twice as many let through).

/** The parts the filter is cut into. */
export const PARTS = 16;
/** Bits of filter a pair of an event, three set a pair: about 6% false positives a hash probed. */
const BITS_PER_PAIR = 6;

/** FNV-1a's basis and prime: the tokens' hashes (search-index.ts fnv) and the joins'. */
export const FNV_OFFSET = 0x811c9dc5 | 0;
export const FNV_PRIME = 0x01000193;

/** The hash of a pair's join: the code units of s from `from` (the first token's last) through `to` (the second's first). */
export function joinHash(s: string, from: number, to: number): number {
  let h = FNV_OFFSET;
  for (let i = from; i <= to; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}

/**
 * A pair's hash: its part in the top 4 bits (from the join only, mixed: FNV's top bits of a
 * three-character join are so uneven that one part held most pairs), its bits' places below.
 */
export function pairHash(left: number, join: number, right: number): number {
  let x = Math.imul(left, 0x9e3779b1) ^ join;
  x = Math.imul(x ^ (x >>> 15), 0x85ebca6b) ^ right;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  x ^= x >>> 16;
  return (x & 0x0fffffff) | ((Math.imul(join, 0x9e3779b1) >>> 28) << 28);
}

/** The part of a pair's hash. */
export const partOf = (x: number): number => x >>> 28;

/** Place i (0, 1, 2) in a slice of `size` bits that a pair's hash sets: 16 bits of a mix of it, scaled. */
function place(x: number, i: number, size: number): number {
  const h = Math.imul(x, i === 0 ? 0x9e3779b1 : i === 1 ? 0x85ebca6b : 0xc2b2ae35) >>> 16;
  return size <= 0xffff ? (h * size) >>> 16 : Math.floor((h / 65536) * size);
}

const bitAt = (bits: Uint8Array, i: number): boolean => (bits[i >>> 3]! & (1 << (i & 7))) !== 0;

/** The filter of every event of an index, in memory (while it is built or edited). */
export class PairFilter {
  /** Events. */
  n = 0;
  /** Bits used in each part: the sum of the slices. */
  used = 0;
  /** Each event's slice, in bits. */
  private sizes = new Uint32Array(1024);
  private bits: Uint8Array[] = Array.from({ length: PARTS }, () => new Uint8Array(1024));

  /** The next event, of the `m` pair hashes in `pairs`. */
  add(pairs: Int32Array, m: number): void {
    const size = m === 0 ? 0 : Math.ceil((BITS_PER_PAIR * m) / PARTS);
    this.room(this.n, size);
    this.sizes[this.n++] = size;
    const used = this.used;
    for (let k = 0; k < m; k++) {
      const x = pairs[k]!;
      const bits = this.bits[partOf(x)]!;
      for (let j = 0; j < 3; j++) {
        const i = used + place(x, j, size);
        bits[i >>> 3] = bits[i >>> 3]! | (1 << (i & 7));
      }
    }
    this.used += size;
  }

  /** Room for event e and a slice of `size` bits. */
  private room(e: number, size: number): void {
    if (e >= this.sizes.length) {
      const more = new Uint32Array(Math.max(1024, 2 * e));
      more.set(this.sizes);
      this.sizes = more;
    }
    const need = (this.used + size + 7) >>> 3;
    if (need <= this.bits[0]!.length) return;
    this.bits = this.bits.map((b) => {
      const more = new Uint8Array(Math.max(need, 2 * b.length));
      more.set(b);
      return more;
    });
  }

  /** Only the events e with map[e] >= 0, renumbered so (map ascending where it is kept). */
  compact(map: Int32Array): void {
    const next = new PairFilter();
    let from = 0;
    for (let e = 0; e < this.n; e++) {
      const size = this.sizes[e]!;
      if (map[e]! >= 0) {
        next.room(next.n, size);
        next.sizes[next.n++] = size;
        for (let p = 0; p < PARTS; p++) copyBits(this.bits[p]!, from, next.bits[p]!, next.used, size);
        next.used += size;
      }
      from += size;
    }
    Object.assign(this, { n: next.n, used: next.used, sizes: next.sizes, bits: next.bits });
  }

  /** The slices' sizes as stored (columnBytes long). */
  column(): Uint8Array {
    const out = new Uint8Array(columnBytes(this.n));
    out.set(new Uint8Array(this.sizes.buffer, 0, 4 * this.n));
    return out;
  }

  /** Part p as stored (partBytes long). */
  part(p: number): Uint8Array {
    const out = new Uint8Array(partBytes(this.used));
    out.set(this.bits[p]!.subarray(0, (this.used + 7) >>> 3));
    return out;
  }

  /** The slices' sizes and part p's bits, for a search. */
  sizesAndPart(p: number): { sizes: Uint32Array; bits: Uint8Array } {
    return { sizes: this.sizes.subarray(0, this.n), bits: this.bits[p]! };
  }

  /** The filter of `n` events from its column and parts as read (checked by the caller). */
  static fromStored(n: number, used: number, column: Uint32Array, parts: Uint8Array[]): PairFilter {
    const f = new PairFilter();
    f.n = n;
    f.used = used;
    f.sizes = n ? column.slice() : new Uint32Array(1024);
    f.bits = parts.map((b) => (b.length ? b.slice() : new Uint8Array(1024)));
    return f;
  }
}

/** x rounded up to a multiple of 8 (the index's sections start 8-aligned). */
export const pad8 = (x: number): number => (x + 7) & ~7;

/** The bytes of the stored column of `n` events. */
export const columnBytes = (n: number): number => pad8(4 * n);
/** The bytes of a stored part of `used` bits. */
export const partBytes = (used: number): number => pad8((used + 7) >>> 3);

/** A stored column read back (copied: aligned). */
export function columnOf(b: Uint8Array, n: number): Uint32Array {
  return new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + 4 * n));
}

/**
 * Of `events` (ascending), those whose filter may hold every group (FolderIndex.phrasePairs):
 * the three bits of one of the group's hashes set in the event's slice of the hash's part.
 * `sizes` are the slices, `part` gives a part's bits (read and checked where it is stored).
 * Throws a RangeError when the slices overrun the bits.
 */
export function withPairs(events: Int32Array, groups: number[][], sizes: Uint32Array, part: (p: number) => Uint8Array): Int32Array {
  const parts = new Map<number, Uint8Array>();
  for (const g of groups) for (const x of g) if (!parts.has(partOf(x))) parts.set(partOf(x), part(partOf(x)));
  const out = new Int32Array(events.length);
  let m = 0;
  let e = 0;
  let at = 0;
  for (let k = 0; k < events.length; k++) {
    const ev = events[k]!;
    for (; e < ev; e++) at += sizes[e]!;
    const size = sizes[ev]!;
    if (size === 0) continue;
    const holds = (x: number): boolean => {
      const bits = parts.get(partOf(x))!;
      if (at + size > 8 * bits.length) throw new RangeError('pair filter slices overrun its bits');
      return bitAt(bits, at + place(x, 0, size)) && bitAt(bits, at + place(x, 1, size)) && bitAt(bits, at + place(x, 2, size));
    };
    if (groups.every((g) => g.some(holds))) out[m++] = ev;
  }
  return out.subarray(0, m);
}

/** `len` bits of `src` from bit `from` copied to `dst` from bit `to` (dst's bits there are 0). */
function copyBits(src: Uint8Array, from: number, dst: Uint8Array, to: number, len: number): void {
  let k = 0;
  // Bit by bit up to a byte boundary of dst, then a byte at a time, then the rest.
  for (; k < len && ((to + k) & 7) !== 0; k++) if (bitAt(src, from + k)) dst[(to + k) >>> 3]! |= 1 << ((to + k) & 7);
  const shift = (from + k) & 7;
  for (; k + 8 <= len; k += 8) {
    const at = (from + k) >>> 3;
    dst[(to + k) >>> 3] = shift === 0 ? src[at]! : ((src[at]! >>> shift) | ((src[at + 1] ?? 0) << (8 - shift))) & 0xff;
  }
  for (; k < len; k++) if (bitAt(src, from + k)) dst[(to + k) >>> 3]! |= 1 << ((to + k) & 7);
}
