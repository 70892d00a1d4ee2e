;; The search index's tokenizer and vocabulary (search-index.ts): the words of a text, each
;; looked up in the folder's vocabulary, in WebAssembly, one byte at a time, where JavaScript
;; paid a character's load, fold and hash several times over. Sixteen bytes at a time (SIMD):
;; letters folded and word bytes found by comparisons, words taken from the bit mask; a word is
;; hashed and compared eight bytes at a time. Built into words-wasm.ts by
;; tools/build-wasm.mjs (wabt); search-index.ts is the JavaScript side and holds the same layout
;; constants.
;;
;; A word is a maximal run of bytes that fold to [a-z0-9] (ASCII letters lowercased). The input
;; is UTF-8: a text, or a JSON string's body as it is in the file ($raw: a backslash and the byte
;; after it separate words, as `\n` does once decoded; the caller sends no body with a \u escape).
;; A byte above 0x7f separates, except the Kelvin sign (E2 84 AA) and the long s (C5 BF), which
;; fold into [a-z] case-insensitively: tokenize then stops there and the caller reads the text
;; itself.
;;
;; Memory layout (byte offsets):
;;   0         the fold table: per byte, its folded byte, or 0 when it separates words
;;   1024      what tokenize found: the id of each word new to the event, as i32, at most OUT_MAX
;;   1048576   the vocabulary's hash table: up to SLOTS (2^21) slots, each a word's id + 1 (0:
;;             empty); it starts at 2^16 and doubles when half full, so that a small vocabulary
;;             stays in the cache
;;   9437184   the words: (pool offset, length, hash, the last event + 1 it was found in), four
;;             i32 each, at most MAX_WORDS
;;   26214400  the pool: the words' bytes, one after the other, at most POOL_MAX bytes
;;   67108864  the input (the memory grows for a longer one), then 16 bytes that may be read and
;;             written (a block's load and store); its words are folded in place
;;
;; tokenize(length, raw, event, resume) reads from where the last call stopped when `resume` is 1
;; (OUT was full: the caller takes the ids and calls again), else from the start. It returns how
;; many ids it wrote (a new word takes the next id: the caller reads it from the pool, and must
;; take every id written, whatever stopped the call); `position` is where it stopped (the length
;; when done) and `stopped` why: 0 done or OUT full, 1 a folding trap, 2 the vocabulary is full
;; (the caller goes on without it).

(module
  (memory (export "memory") 1025)

  ;; digits fold to themselves, letters to lowercase
  (data (i32.const 48) "0123456789")
  (data (i32.const 65) "abcdefghijklmnopqrstuvwxyz")
  (data (i32.const 97) "abcdefghijklmnopqrstuvwxyz")

  (global $words (mut i32) (i32.const 0))
  (global $pooled (mut i32) (i32.const 0))
  (global $pos (mut i32) (i32.const 0))
  (global $stop (mut i32) (i32.const 0))
  ;; slots in use - 1: the table grows with the vocabulary (a small one stays in the cache)
  (global $mask (mut i32) (i32.const 0xffff))

  (func (export "position") (result i32) (global.get $pos))
  (func (export "stopped") (result i32) (global.get $stop))

  ;; Zeroes the table's first $n slots.
  (func $clear (param $n i32)
    (local $p i32) (local $end i32)
    (local.set $p (i32.const 1048576))
    (local.set $end (i32.add (i32.const 1048576) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $zero
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (v128.store (local.get $p) (v128.const i64x2 0 0))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $zero))))

  ;; An empty vocabulary.
  (func (export "reset")
    (call $clear (i32.add (global.get $mask) (i32.const 1)))
    (global.set $mask (i32.const 0xffff))
    (global.set $words (i32.const 0))
    (global.set $pooled (i32.const 0)))

  ;; Twice the slots, every word placed again.
  (func $grow
    (local $id i32) (local $slot i32)
    (global.set $mask (i32.add (i32.shl (global.get $mask) (i32.const 1)) (i32.const 1)))
    (call $clear (i32.add (global.get $mask) (i32.const 1)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $id) (global.get $words)))
        (local.set $slot (i32.and (i32.load offset=9437192 (i32.shl (local.get $id) (i32.const 4))) (global.get $mask)))
        (block $placed
          (loop $probe
            (br_if $placed (i32.eqz (i32.load offset=1048576 (i32.shl (local.get $slot) (i32.const 2)))))
            (local.set $slot (i32.and (i32.add (local.get $slot) (i32.const 1)) (global.get $mask)))
            (br $probe)))
        (i32.store offset=1048576 (i32.shl (local.get $slot) (i32.const 2)) (i32.add (local.get $id) (i32.const 1)))
        (local.set $id (i32.add (local.get $id) (i32.const 1)))
        (br $each))))

  ;; The word at [$a, $b) found (folded bytes): looked up in the vocabulary, added when new, and
  ;; its id written to OUT at $out when new to the event ($stamp: the event + 1). Returns the new
  ;; $out, or -1 when the vocabulary is full. One function, nothing called: it runs once a word.
  ;; The hash takes eight bytes at a time (the last load masked to the word), multiplied and
  ;; mixed; the comparison with a word of the vocabulary too.
  (func $found (param $a i32) (param $b i32) (param $stamp i32) (param $out i32) (result i32)
    (local $n i32) (local $h64 i64) (local $h i32) (local $i i32) (local $r i32) (local $k i64)
    (local $slot i32) (local $s i32) (local $w i32) (local $id i32) (local $x i64)
    (local.set $n (i32.sub (local.get $b) (local.get $a)))
    (local.set $h64 (i64.extend_i32_u (local.get $n)))
    (block $hashed
      (loop $chunk
        (local.set $r (i32.sub (local.get $n) (local.get $i)))
        (br_if $hashed (i32.le_s (local.get $r) (i32.const 0)))
        (local.set $k (i64.load (i32.add (local.get $a) (local.get $i))))
        (if (i32.lt_u (local.get $r) (i32.const 8))
          (then (local.set $k (i64.and (local.get $k)
                  (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (i32.shl (local.get $r) (i32.const 3)))) (i64.const 1))))))
        (local.set $h64 (i64.mul (i64.xor (local.get $h64) (local.get $k)) (i64.const 0x9e3779b97f4a7c15)))
        (local.set $h64 (i64.xor (local.get $h64) (i64.shr_u (local.get $h64) (i64.const 29))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $chunk)))
    (local.set $h (i32.wrap_i64 (i64.xor (local.get $h64) (i64.shr_u (local.get $h64) (i64.const 32)))))
    (local.set $slot (i32.and (local.get $h) (global.get $mask)))
    (local.set $id (i32.const -1))
    (block $looked
      (loop $probe
        (local.set $s (i32.load offset=1048576 (i32.shl (local.get $slot) (i32.const 2))))
        (br_if $looked (i32.eqz (local.get $s)))
        (local.set $w (i32.add (i32.const 9437184) (i32.shl (i32.sub (local.get $s) (i32.const 1)) (i32.const 4))))
        (if (i32.and (i32.eq (i32.load offset=8 (local.get $w)) (local.get $h))
                     (i32.eq (i32.load offset=4 (local.get $w)) (local.get $n)))
          (then
            (local.set $i (i32.const 0))
            (block $differ
              (loop $compare
                (local.set $r (i32.sub (local.get $n) (local.get $i)))
                (if (i32.le_s (local.get $r) (i32.const 0))
                  (then (local.set $id (i32.sub (local.get $s) (i32.const 1))) (br $looked)))
                (local.set $x (i64.xor (i64.load (i32.add (i32.add (i32.const 26214400) (i32.load (local.get $w))) (local.get $i)))
                                       (i64.load (i32.add (local.get $a) (local.get $i)))))
                (if (i32.lt_u (local.get $r) (i32.const 8))
                  (then (local.set $x (i64.and (local.get $x)
                          (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (i32.shl (local.get $r) (i32.const 3)))) (i64.const 1))))))
                (br_if $differ (i64.ne (local.get $x) (i64.const 0)))
                (local.set $i (i32.add (local.get $i) (i32.const 8)))
                (br $compare)))))
        (local.set $slot (i32.and (i32.add (local.get $slot) (i32.const 1)) (global.get $mask)))
        (br $probe)))
    (if (i32.lt_s (local.get $id) (i32.const 0))
      (then
        ;; new: room for it?
        (if (i32.or (i32.ge_u (global.get $words) (i32.const 1048576))
                    (i32.gt_u (i32.add (global.get $pooled) (local.get $n)) (i32.const 40894400)))
          (then (return (i32.const -1))))
        (local.set $id (global.get $words))
        (local.set $w (i32.add (i32.const 9437184) (i32.shl (local.get $id) (i32.const 4))))
        (i32.store (local.get $w) (global.get $pooled))
        (i32.store offset=4 (local.get $w) (local.get $n))
        (i32.store offset=8 (local.get $w) (local.get $h))
        (i32.store offset=12 (local.get $w) (i32.const 0))
        (memory.copy (i32.add (i32.const 26214400) (global.get $pooled)) (local.get $a) (local.get $n))
        (global.set $pooled (i32.add (global.get $pooled) (local.get $n)))
        (i32.store offset=1048576 (i32.shl (local.get $slot) (i32.const 2)) (i32.add (local.get $id) (i32.const 1)))
        (global.set $words (i32.add (local.get $id) (i32.const 1)))
        ;; more than half full: twice the slots (at most SLOTS, which MAX_WORDS keeps half full)
        (if (i32.and (i32.gt_u (i32.shl (global.get $words) (i32.const 1)) (global.get $mask))
                     (i32.lt_u (global.get $mask) (i32.const 0x1fffff)))
          (then (call $grow)))))
    ;; new to this event: reported
    (local.set $w (i32.add (i32.const 9437184) (i32.shl (local.get $id) (i32.const 4))))
    (if (i32.ne (i32.load offset=12 (local.get $w)) (local.get $stamp))
      (then
        (i32.store offset=12 (local.get $w) (local.get $stamp))
        (i32.store offset=1024 (i32.shl (local.get $out) (i32.const 2)) (local.get $id))
        (return (i32.add (local.get $out) (i32.const 1)))))
    (local.get $out))

  ;; Adds the word in the input ($n folded bytes) with the next id (an index's vocabulary, in
  ;; order, before its texts are added): its id, -1 when the vocabulary is full. (Stamp -1 is
  ;; no event's: the id is written to OUT's first place.)
  (func (export "seed") (param $n i32) (result i32)
    (if (i32.lt_s (call $found (i32.const 67108864) (i32.add (i32.const 67108864) (local.get $n)) (i32.const -1) (i32.const 0)) (i32.const 0))
      (then (return (i32.const -1))))
    (i32.load (i32.const 1024)))

  ;; where a stopped call was: the word it was in (-1: none) and whether the next byte is escaped
  (global $inWord (mut i32) (i32.const -1))
  (global $escNext (mut i32) (i32.const 0))

  (func (export "tokenize") (param $len i32) (param $raw i32) (param $event i32) (param $resume i32) (result i32)
    (local $p i32) (local $end i32) (local $v v128) (local $lower v128) (local $alpha v128)
    (local $m i32) (local $valid i32) (local $bs i32) (local $esc i32) (local $carry i32)
    (local $ws i32) (local $s i32) (local $e i32) (local $out i32) (local $stamp i32)
    (local $t i32) (local $q i32) (local $i i32)
    (global.set $stop (i32.const 0))
    (local.set $stamp (i32.add (local.get $event) (i32.const 1)))
    (local.set $end (i32.add (i32.const 67108864) (local.get $len)))
    (if (local.get $resume)
      (then
        (local.set $p (i32.add (i32.const 67108864) (global.get $pos)))
        (local.set $ws (global.get $inWord))
        (local.set $carry (global.get $escNext)))
      (else
        (local.set $p (i32.const 67108864))
        (local.set $ws (i32.const -1))))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        ;; OUT nearly full (a block finds at most nine words): stop here, to go on from here
        (if (i32.ge_u (local.get $out) (i32.const 65520))
          (then
            (global.set $pos (i32.sub (local.get $p) (i32.const 67108864)))
            (global.set $inWord (local.get $ws))
            (global.set $escNext (local.get $carry))
            (return (local.get $out))))
        (local.set $v (v128.load (local.get $p)))
        (local.set $valid
          (if (result i32) (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 16))
            (then (i32.sub (i32.shl (i32.const 1) (i32.sub (local.get $end) (local.get $p))) (i32.const 1)))
            (else (i32.const 0xffff))))
        ;; fold: letters lowercased, in place
        (local.set $lower (v128.or (local.get $v) (i8x16.splat (i32.const 0x20))))
        (local.set $alpha (i8x16.lt_u (i8x16.sub (local.get $lower) (i8x16.splat (i32.const 97))) (i8x16.splat (i32.const 26))))
        (v128.store (local.get $p) (v128.bitselect (local.get $lower) (local.get $v) (local.get $alpha)))
        (local.set $m (i32.and (local.get $valid) (i8x16.bitmask (v128.or (local.get $alpha)
          (i8x16.lt_u (i8x16.sub (local.get $v) (i8x16.splat (i32.const 48))) (i8x16.splat (i32.const 10)))))))
        ;; the Kelvin sign E2 84 AA, the long s C5 BF: the caller decides
        (local.set $t (i32.and (local.get $valid) (i8x16.bitmask (v128.or
          (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0xe2)))
          (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0xc5)))))))
        (block $checked
          (loop $traps
            (br_if $checked (i32.eqz (local.get $t)))
            (local.set $q (i32.add (local.get $p) (i32.ctz (local.get $t))))
            (if (i32.or
                  (i32.and (i32.lt_u (i32.add (local.get $q) (i32.const 2)) (local.get $end))
                           (i32.and (i32.eq (i32.load8_u (local.get $q)) (i32.const 0xe2))
                                    (i32.eq (i32.load16_u offset=1 (local.get $q)) (i32.const 0xaa84))))
                  (i32.and (i32.lt_u (i32.add (local.get $q) (i32.const 1)) (local.get $end))
                           (i32.and (i32.eq (i32.load8_u (local.get $q)) (i32.const 0xc5))
                                    (i32.eq (i32.load8_u offset=1 (local.get $q)) (i32.const 0xbf)))))
              (then (global.set $stop (i32.const 1)) (return (local.get $out))))
            (local.set $t (i32.and (local.get $t) (i32.sub (local.get $t) (i32.const 1))))
            (br $traps)))
        ;; a raw body: the byte after an unescaped backslash is escaped, and no word's
        (if (local.get $raw)
          (then
            (local.set $bs (i32.and (local.get $valid)
              (i8x16.bitmask (i8x16.eq (local.get $v) (i8x16.splat (i32.const 92))))))
            (local.set $esc (local.get $carry))
            (local.set $carry (i32.const 0))
            (block $marked
              (loop $backslashes
                (br_if $marked (i32.eqz (local.get $bs)))
                (local.set $i (i32.ctz (local.get $bs)))
                (if (i32.eqz (i32.and (i32.shr_u (local.get $esc) (local.get $i)) (i32.const 1)))
                  (then
                    (if (i32.eq (local.get $i) (i32.const 15))
                      (then (local.set $carry (i32.const 1)))
                      (else (local.set $esc (i32.or (local.get $esc) (i32.shl (i32.const 2) (local.get $i))))))))
                (local.set $bs (i32.and (local.get $bs) (i32.sub (local.get $bs) (i32.const 1))))
                (br $backslashes)))
            (local.set $m (i32.and (local.get $m) (i32.xor (local.get $esc) (i32.const -1))))))
        ;; a word from the last block: its end
        (if (i32.ge_s (local.get $ws) (i32.const 0))
          (then
            (local.set $e (i32.ctz (i32.xor (local.get $m) (i32.const -1))))
            (if (i32.lt_u (local.get $e) (i32.const 16))
              (then
                (local.set $t (call $found (local.get $ws) (i32.add (local.get $p) (local.get $e)) (local.get $stamp) (local.get $out)))
                (if (i32.lt_s (local.get $t) (i32.const 0)) (then (global.set $stop (i32.const 2)) (return (local.get $out))))
                (local.set $out (local.get $t))
                (local.set $ws (i32.const -1))
                (local.set $m (i32.and (local.get $m) (i32.shl (i32.const -1) (local.get $e))))))))
        ;; the words starting in this block
        (block $words
          (loop $each
            (br_if $words (i32.or (i32.eqz (local.get $m)) (i32.ge_s (local.get $ws) (i32.const 0))))
            (local.set $s (i32.ctz (local.get $m)))
            (local.set $e (i32.add (local.get $s) (i32.ctz (i32.xor (i32.shr_u (local.get $m) (local.get $s)) (i32.const -1)))))
            (if (i32.ge_u (local.get $e) (i32.const 16))
              (then (local.set $ws (i32.add (local.get $p) (local.get $s))))
              (else
                (local.set $t (call $found (i32.add (local.get $p) (local.get $s)) (i32.add (local.get $p) (local.get $e)) (local.get $stamp) (local.get $out)))
                (if (i32.lt_s (local.get $t) (i32.const 0)) (then (global.set $stop (i32.const 2)) (return (local.get $out))))
                (local.set $out (local.get $t))
                (local.set $m (i32.and (local.get $m) (i32.shl (i32.const -1) (local.get $e))))))
            (br $each)))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $blocks)))
    ;; a word up to the end
    (if (i32.ge_s (local.get $ws) (i32.const 0))
      (then
        (local.set $t (call $found (local.get $ws) (local.get $end) (local.get $stamp) (local.get $out)))
        (if (i32.lt_s (local.get $t) (i32.const 0)) (then (global.set $stop (i32.const 2)) (return (local.get $out))))
        (local.set $out (local.get $t))))
    (global.set $pos (local.get $len))
    (local.get $out))
)
