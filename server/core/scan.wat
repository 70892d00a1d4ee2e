;; Byte scans for search (search.ts) and the soft cap's skim (skim.ts), in WebAssembly with
;; 128-bit SIMD: the passes over every byte of a store that JavaScript makes one character at a
;; time. Built into scan-wasm.ts by tools/build-wasm.mjs (wabt); scan.ts is the JavaScript side
;; and documents the layout.
;;
;; Memory layout (byte offsets; scan.ts holds the same constants):
;;   0     the needle find looks for (at most 1024 bytes; ASCII letters lowercased when
;;         case-insensitive); find takes its place, so there could be more
;;   1024  its mask: per byte, 0x20 where case is ignored, else 0
;;   8192  byte classes: bit 0 a simple escape letter after '\' (" \ / b f n r t), bit 1 a hex
;;         digit, bit 2 'u'
;;   16384 the cut strings scanLine finds: (start, end) as two i32 each, at most 16384
;;   147456 the \u and \/ escapes scanLine finds: (where, letter) as two i32 each, at most 8192
;;   212992 line starts, as indexLines writes them (at most 12288 a call)
;;   262144 the data: one chunk of whole lines, then at least 128 bytes that may be read (and
;;         whose contents never matter)
;; Positions given and returned are absolute (scan.ts converts).

(module
  (memory (export "memory") 5)

  ;; simple escapes: " \ / b f n r t
  (data (i32.const 8226) "\01") ;; '"'
  (data (i32.const 8284) "\01") ;; '\\'
  (data (i32.const 8239) "\01") ;; '/'
  ;; hex digits 0-9, A-F, a-f ('b' and 'f' are both: 3)
  (data (i32.const 8240) "\02\02\02\02\02\02\02\02\02\02")
  (data (i32.const 8257) "\02\02\02\02\02\02")
  (data (i32.const 8289) "\02\03\02\02\02\03")
  (data (i32.const 8302) "\01") ;; 'n'
  (data (i32.const 8306) "\01") ;; 'r'
  (data (i32.const 8308) "\01") ;; 't'
  (data (i32.const 8309) "\04") ;; 'u'

  ;; what the last scanLine found besides its answer
  (global $end (mut i32) (i32.const 0))
  (global $ncuts (mut i32) (i32.const 0))
  (global $nescapes (mut i32) (i32.const 0))
  (global $trap (mut i32) (i32.const 0))

  (func (export "lineEnd") (result i32) (global.get $end))
  (func (export "cuts") (result i32) (global.get $ncuts))
  (func (export "escapes") (result i32) (global.get $nescapes))
  (func (export "caseTrap") (result i32) (global.get $trap))

  ;; 1 when the needle at $needle ($n bytes) matches at $p, under its mask
  (func $matchAt (param $needle i32) (param $n i32) (param $p i32) (result i32)
    (local $j i32)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (if (i32.ne
              (i32.or (i32.load8_u (i32.add (local.get $p) (local.get $j)))
                      (i32.load8_u offset=1024 (i32.add (local.get $needle) (local.get $j))))
              (i32.load8_u (i32.add (local.get $needle) (local.get $j))))
          (then (return (i32.const 0))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $each)))
    (i32.const 1))

  ;; The first position p in [from, to) where the needle at $needle ($n bytes) matches whole
  ;; before `to`, else -1. Sixteen starts at a time: the first and the last needle byte must
  ;; both match there (under their masks), and only those starts are compared whole.
  (func (export "find") (param $needle i32) (param $n i32) (param $from i32) (param $to i32) (result i32)
    (local $i i32) (local $last i32) (local $bits i32) (local $p i32)
    (local $f v128) (local $fm v128) (local $l v128) (local $lm v128)
    (if (i32.eqz (local.get $n)) (then (return (local.get $from))))
    (local.set $last (i32.sub (local.get $n) (i32.const 1)))
    (local.set $f (i8x16.splat (i32.load8_u (local.get $needle))))
    (local.set $fm (i8x16.splat (i32.load8_u offset=1024 (local.get $needle))))
    (local.set $l (i8x16.splat (i32.load8_u (i32.add (local.get $needle) (local.get $last)))))
    (local.set $lm (i8x16.splat (i32.load8_u offset=1024 (i32.add (local.get $needle) (local.get $last)))))
    (local.set $i (local.get $from))
    (block $rest
      (loop $blocks
        (br_if $rest (i32.gt_s (i32.add (i32.add (local.get $i) (i32.const 16)) (local.get $last)) (local.get $to)))
        (local.set $bits
          (i8x16.bitmask
            (v128.and
              (i8x16.eq (v128.or (v128.load (local.get $i)) (local.get $fm)) (local.get $f))
              (i8x16.eq (v128.or (v128.load (i32.add (local.get $i) (local.get $last))) (local.get $lm)) (local.get $l)))))
        (block $none
          (loop $each
            (br_if $none (i32.eqz (local.get $bits)))
            (local.set $p (i32.add (local.get $i) (i32.ctz (local.get $bits))))
            (if (call $matchAt (local.get $needle) (local.get $n) (local.get $p)) (then (return (local.get $p))))
            (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
            (br $each)))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $blocks)))
    (block $out
      (loop $tail
        (br_if $out (i32.gt_s (i32.add (local.get $i) (local.get $n)) (local.get $to)))
        (if (call $matchAt (local.get $needle) (local.get $n) (local.get $i)) (then (return (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $tail)))
    (i32.const -1))

  ;; 1 when the bytes at $p (before $to) are the UTF-8 of U+0130 (C4 B0), U+017F (C5 BF) or
  ;; U+212A (E2 84 AA): the characters whose case folding makes an ASCII word match other bytes
  ;; (search.ts).
  (func $trapAt (param $p i32) (param $to i32) (result i32)
    (local $c i32)
    (local.set $c (i32.load8_u (local.get $p)))
    (if (i32.and (i32.eq (local.get $c) (i32.const 0xc4)) (i32.le_s (i32.add (local.get $p) (i32.const 2)) (local.get $to)))
      (then (return (i32.eq (i32.load8_u offset=1 (local.get $p)) (i32.const 0xb0)))))
    (if (i32.and (i32.eq (local.get $c) (i32.const 0xc5)) (i32.le_s (i32.add (local.get $p) (i32.const 2)) (local.get $to)))
      (then (return (i32.eq (i32.load8_u offset=1 (local.get $p)) (i32.const 0xbf)))))
    (if (i32.and (i32.eq (local.get $c) (i32.const 0xe2)) (i32.le_s (i32.add (local.get $p) (i32.const 3)) (local.get $to)))
      (then (return (i32.and (i32.eq (i32.load8_u offset=1 (local.get $p)) (i32.const 0x84))
                             (i32.eq (i32.load8_u offset=2 (local.get $p)) (i32.const 0xaa))))))
    (i32.const 0))

  ;; The first '\n' in [from, to), else to.
  (func $nextLine (param $from i32) (param $to i32) (result i32)
    (local $i i32) (local $bits i32) (local $nl v128)
    (local.set $nl (i8x16.splat (i32.const 10)))
    (local.set $i (local.get $from))
    (block $rest
      (loop $blocks
        (br_if $rest (i32.gt_s (i32.add (local.get $i) (i32.const 16)) (local.get $to)))
        (local.set $bits (i8x16.bitmask (i8x16.eq (v128.load (local.get $i)) (local.get $nl))))
        (if (local.get $bits) (then (return (i32.add (local.get $i) (i32.ctz (local.get $bits))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $blocks)))
    (block $out
      (loop $tail
        (br_if $out (i32.ge_s (local.get $i) (local.get $to)))
        (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 10)) (then (return (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $tail)))
    (local.get $to))

  ;; Sets $trap when the block $v (at $at) holds the lead byte of a case trap that is one.
  (func $traps (param $v v128) (param $at i32) (param $to i32)
    (local $bits i32)
    (local.set $bits
      (i8x16.bitmask
        (v128.or
          (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0xc4))) (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0xc5))))
          (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0xe2))))))
    (block $none
      (loop $each
        (br_if $none (i32.eqz (local.get $bits)))
        (if (call $trapAt (i32.add (local.get $at) (i32.ctz (local.get $bits))) (local.get $to))
          (then
            (global.set $trap (i32.const 1))
            (return)))
        (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
        (br $each))))

  ;; The starts of the lines after each '\n' in [from, to), written as i32 at $out, at most $max
  ;; of them; returns how many were written (fewer than $max: all of them).
  (func (export "indexLines") (param $from i32) (param $to i32) (param $out i32) (param $max i32) (result i32)
    (local $i i32) (local $bits i32) (local $n i32) (local $nl v128)
    (local.set $nl (i8x16.splat (i32.const 10)))
    (local.set $i (local.get $from))
    (block $full
      (block $rest
        (loop $blocks
          (br_if $rest (i32.gt_s (i32.add (local.get $i) (i32.const 16)) (local.get $to)))
          (local.set $bits (i8x16.bitmask (i8x16.eq (v128.load (local.get $i)) (local.get $nl))))
          (block $none
            (loop $each
              (br_if $none (i32.eqz (local.get $bits)))
              (br_if $full (i32.ge_s (local.get $n) (local.get $max)))
              (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2)))
                         (i32.add (i32.add (local.get $i) (i32.ctz (local.get $bits))) (i32.const 1)))
              (local.set $n (i32.add (local.get $n) (i32.const 1)))
              (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
              (br $each)))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br $blocks)))
      (loop $tail
        (br_if $full (i32.ge_s (local.get $i) (local.get $to)))
        (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 10))
          (then
            (br_if $full (i32.ge_s (local.get $n) (local.get $max)))
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))) (i32.add (local.get $i) (i32.const 1)))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $tail)))
    (local.get $n))

  ;; The escaped bytes of a 64-byte block whose backslashes are $b: the letter after each odd
  ;; run of backslashes, odd and even runs told apart by integer arithmetic as simdjson does.
  ;; $carry says the block's first byte is escaped by the block before (0 at a scan's start),
  ;; and is left saying the same of the next block.
  (global $carry (mut i64) (i64.const 0))
  (func $escapes (param $b i64) (result i64)
    (local $pot i64) (local $code i64) (local $esc i64)
    (if (i64.eqz (local.get $b))
      (then
        (local.set $esc (global.get $carry))
        (global.set $carry (i64.const 0))
        (return (local.get $esc))))
    (local.set $pot (i64.and (local.get $b) (i64.xor (global.get $carry) (i64.const -1))))
    (local.set $code
      (i64.xor
        (i64.sub
          (i64.or (i64.shl (local.get $pot) (i64.const 1)) (i64.const 0xAAAAAAAAAAAAAAAA))
          (local.get $pot))
        (i64.const 0xAAAAAAAAAAAAAAAA)))
    (local.set $esc (i64.xor (local.get $code) (i64.or (local.get $b) (global.get $carry))))
    (global.set $carry (i64.shr_u (i64.and (local.get $code) (local.get $b)) (i64.const 63)))
    (local.get $esc))

  ;; The number of escaped bytes (each the letter after an odd run of backslashes) in [from, to),
  ;; where no backslash before `from` escapes it: a string body, `from` just after its opening
  ;; quote. A well-formed body without \u escapes decodes to (to - from) minus this many bytes of
  ;; UTF-8, every other escape being two bytes for one ($escapes, as scanLine finds them). Whole
  ;; 64-byte blocks are read (at most 63 bytes past `to`), nothing from `to` on is counted.
  (func (export "escaped") (param $from i32) (param $to i32) (result i32)
    (local $pos i32) (local $n i64) (local $b i64) (local $lim i64) (local $esc i64) (local $vb v128)
    (local.set $vb (i8x16.splat (i32.const 92)))
    (global.set $carry (i64.const 0))
    (local.set $pos (local.get $from))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_s (local.get $pos) (local.get $to)))
        (local.set $b
          (i64.or
            (i64.or
              (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (v128.load (local.get $pos)) (local.get $vb))))
              (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (v128.load offset=16 (local.get $pos)) (local.get $vb)))) (i64.const 16)))
            (i64.or
              (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (v128.load offset=32 (local.get $pos)) (local.get $vb)))) (i64.const 32))
              (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (v128.load offset=48 (local.get $pos)) (local.get $vb)))) (i64.const 48)))))
        (local.set $lim (i64.const -1))
        (if (i32.lt_s (i32.sub (local.get $to) (local.get $pos)) (i32.const 64))
          (then
            (local.set $lim
              (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (i32.sub (local.get $to) (local.get $pos)))) (i64.const 1)))
            (local.set $b (i64.and (local.get $b) (local.get $lim)))))
        (local.set $esc (call $escapes (local.get $b)))
        (local.set $n (i64.add (local.get $n) (i64.popcnt (i64.and (local.get $esc) (local.get $lim)))))
        (local.set $pos (i32.add (local.get $pos) (i32.const 64)))
        (br $blocks)))
    (i32.wrap_i64 (local.get $n)))

    ;; The JSON strings of the line starting at `start` (it ends at the first '\n', or at `to`,
  ;; the end of the data), as search-skeleton.ts needs them: 0 when the line's strings are all
  ;; well formed, with the string values to cut written at 16384 (see skeletonOf) and the \u and
  ;; \/ escapes in any string at 147456; -1 when the line needs the slow path: a byte below 0x20
  ;; in it, a bad escape, a backslash outside a string, a string without an end, or more cuts or
  ;; escapes than fit. Either way the line's end is left in $end, and $trap tells whether the
  ;; line may hold a case trap (see trapAt; blocks are read whole, so one after its end may set
  ;; it).
  ;;
  ;; Sixteen bytes a vector, four vectors a block: a block's quotes, backslashes and bytes below
  ;; 0x20 become three 64-bit masks. The escaped bytes follow from the backslashes with a few
  ;; integer operations (odd and even runs told apart by a carry, as simdjson does), and only the
  ;; escaped bytes and the unescaped quotes are then taken one by one. Blocks may read past the
  ;; data (into the bytes scan.ts keeps after it), but nothing from `to` on is taken: those bytes
  ;; count as the end of the data, and an escape read past it can only be in a string that the
  ;; data ends inside (-1 either way).
  (func (export "scanLine") (param $start i32) (param $to i32) (result i32)
    (local $pos i32) (local $p i32) (local $c i32) (local $k i32) (local $out i32) (local $f i32)
    (local $open i32) (local $inside i32) (local $last i32) (local $ok i32)
    (local $q i64) (local $b i64) (local $ctl i64) (local $lim i64) (local $esc i64)
    (local $e i64) (local $s i64)
    (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128)
    (local $vq v128) (local $vb v128) (local $vc v128)
    (local.set $vq (i8x16.splat (i32.const 34)))
    (local.set $vb (i8x16.splat (i32.const 92)))
    (local.set $vc (i8x16.splat (i32.const 32)))
    (global.set $ncuts (i32.const 0))
    (global.set $carry (i64.const 0))
    (global.set $nescapes (i32.const 0))
    (global.set $trap (i32.const 0))
    (local.set $pos (local.get $start))
    (local.set $ok (i32.const 1))
    (block $done
      (block $bad
        (loop $blocks
          (local.set $v0 (v128.load (local.get $pos)))
          (local.set $v1 (v128.load offset=16 (local.get $pos)))
          (local.set $v2 (v128.load offset=32 (local.get $pos)))
          (local.set $v3 (v128.load offset=48 (local.get $pos)))
          ;; bytes of 0x80 or above: look for case traps among them
          (if (i32.eqz (global.get $trap))
            (then
              (if (i8x16.bitmask (v128.or (v128.or (local.get $v0) (local.get $v1)) (v128.or (local.get $v2) (local.get $v3))))
                (then
                  (call $traps (local.get $v0) (local.get $pos) (local.get $to))
                  (call $traps (local.get $v1) (i32.add (local.get $pos) (i32.const 16)) (local.get $to))
                  (call $traps (local.get $v2) (i32.add (local.get $pos) (i32.const 32)) (local.get $to))
                  (call $traps (local.get $v3) (i32.add (local.get $pos) (i32.const 48)) (local.get $to))))))
          (local.set $q
            (i64.or
              (i64.or
                (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v0) (local.get $vq))))
                (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v1) (local.get $vq)))) (i64.const 16)))
              (i64.or
                (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v2) (local.get $vq)))) (i64.const 32))
                (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v3) (local.get $vq)))) (i64.const 48)))))
          (local.set $b
            (i64.or
              (i64.or
                (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v0) (local.get $vb))))
                (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v1) (local.get $vb)))) (i64.const 16)))
              (i64.or
                (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v2) (local.get $vb)))) (i64.const 32))
                (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v3) (local.get $vb)))) (i64.const 48)))))
          (local.set $ctl
            (i64.or
              (i64.or
                (i64.extend_i32_u (i8x16.bitmask (i8x16.lt_u (local.get $v0) (local.get $vc))))
                (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.lt_u (local.get $v1) (local.get $vc)))) (i64.const 16)))
              (i64.or
                (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.lt_u (local.get $v2) (local.get $vc)))) (i64.const 32))
                (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.lt_u (local.get $v3) (local.get $vc)))) (i64.const 48)))))
          ;; the line's end: the first byte below 0x20 must be its '\n', or the end of the data
          ;; (the bytes from `to` on count as such bytes, whatever they hold)
          (if (i32.lt_s (i32.sub (local.get $to) (local.get $pos)) (i32.const 64))
            (then
              (local.set $ctl
                (i64.or (local.get $ctl)
                        (i64.shl (i64.const -1) (i64.extend_i32_u (i32.sub (local.get $to) (local.get $pos))))))))
          (local.set $lim (i64.const -1))
          (if (i64.ne (local.get $ctl) (i64.const 0))
            (then
              (local.set $f (i32.wrap_i64 (i64.ctz (local.get $ctl))))
              (local.set $p (i32.add (local.get $pos) (local.get $f)))
              (if (i32.ge_s (local.get $p) (local.get $to))
                (then (global.set $end (local.get $to)))
                (else
                  (br_if $bad (i32.ne (i32.load8_u (local.get $p)) (i32.const 10)))
                  (global.set $end (local.get $p))))
              (local.set $lim (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (local.get $f))) (i64.const 1)))
              (local.set $last (i32.const 1))))
          (local.set $q (i64.and (local.get $q) (local.get $lim)))
          (local.set $b (i64.and (local.get $b) (local.get $lim)))
          ;; $esc: the escaped bytes (the letter after an odd run of backslashes)
          (local.set $esc (call $escapes (local.get $b)))
          (local.set $esc (i64.and (local.get $esc) (local.get $lim)))
          ;; every escape valid; \u (four hex digits) and \/ are noted
          (local.set $e (local.get $esc))
          (block $escaped
            (loop $each
              (br_if $escaped (i64.eqz (local.get $e)))
              (local.set $p (i32.add (local.get $pos) (i32.wrap_i64 (i64.ctz (local.get $e)))))
              (local.set $e (i64.and (local.get $e) (i64.sub (local.get $e) (i64.const 1))))
              (local.set $c (i32.load8_u (local.get $p)))
              (local.set $k (i32.load8_u offset=8192 (local.get $c)))
              (local.set $ok (i32.and (local.get $ok) (i32.ne (i32.and (local.get $k) (i32.const 5)) (i32.const 0))))
              (if (i32.or (i32.eq (local.get $c) (i32.const 117)) (i32.eq (local.get $c) (i32.const 47)))
                (then
                  (if (i32.eq (local.get $c) (i32.const 117))
                    (then
                      (local.set $k
                        (i32.and
                          (i32.and (i32.load8_u offset=8192 (i32.load8_u offset=1 (local.get $p)))
                                   (i32.load8_u offset=8192 (i32.load8_u offset=2 (local.get $p))))
                          (i32.and (i32.load8_u offset=8192 (i32.load8_u offset=3 (local.get $p)))
                                   (i32.load8_u offset=8192 (i32.load8_u offset=4 (local.get $p))))))
                      (local.set $ok (i32.and (local.get $ok) (i32.ne (i32.and (local.get $k) (i32.const 2)) (i32.const 0))))))
                  (br_if $bad (i32.ge_u (global.get $nescapes) (i32.const 8192)))
                  (local.set $out (i32.add (i32.const 147456) (i32.shl (global.get $nescapes) (i32.const 3))))
                  (i32.store (local.get $out) (local.get $p))
                  (i32.store offset=4 (local.get $out) (local.get $c))
                  (global.set $nescapes (i32.add (global.get $nescapes) (i32.const 1)))))
              (br $each)))
          (br_if $bad (i32.eqz (local.get $ok)))
          ;; the unescaped quotes, and what is inside strings (from an opening quote to just
          ;; before its closing one): no backslash may be outside
          (local.set $q (i64.and (local.get $q) (i64.xor (local.get $esc) (i64.const -1))))
          (local.set $s (local.get $q))
          (local.set $s (i64.xor (local.get $s) (i64.shl (local.get $s) (i64.const 1))))
          (local.set $s (i64.xor (local.get $s) (i64.shl (local.get $s) (i64.const 2))))
          (local.set $s (i64.xor (local.get $s) (i64.shl (local.get $s) (i64.const 4))))
          (local.set $s (i64.xor (local.get $s) (i64.shl (local.get $s) (i64.const 8))))
          (local.set $s (i64.xor (local.get $s) (i64.shl (local.get $s) (i64.const 16))))
          (local.set $s (i64.xor (local.get $s) (i64.shl (local.get $s) (i64.const 32))))
          (if (local.get $inside) (then (local.set $s (i64.xor (local.get $s) (i64.const -1)))))
          (br_if $bad (i64.ne (i64.and (local.get $b) (i64.xor (local.get $s) (i64.const -1))) (i64.const 0)))
          ;; each string: open, or close (a value to cut when long enough, not a key)
          (block $quoted
            (loop $each
              (br_if $quoted (i64.eqz (local.get $q)))
              (local.set $p (i32.add (local.get $pos) (i32.wrap_i64 (i64.ctz (local.get $q)))))
              (local.set $q (i64.and (local.get $q) (i64.sub (local.get $q) (i64.const 1))))
              (if (i32.eqz (local.get $inside))
                (then
                  (local.set $inside (i32.const 1))
                  (local.set $open (i32.add (local.get $p) (i32.const 1)))
                  (br $each)))
              (local.set $inside (i32.const 0))
              ;; a key when the next byte but spaces is ':'
              (local.set $k (i32.add (local.get $p) (i32.const 1)))
              (loop $spaces
                (if (i32.eq (i32.load8_u (local.get $k)) (i32.const 32))
                  (then
                    (local.set $k (i32.add (local.get $k) (i32.const 1)))
                    (br $spaces))))
              (br_if $each (i32.and (i32.lt_s (local.get $k) (local.get $to))
                                    (i32.eq (i32.load8_u (local.get $k)) (i32.const 58))))
              ;; a value: cut when longer than 24 bytes (KEEP_MAX in scan.ts) or starting with \u0000
              (br_if $each (i32.eqz
                (i32.or
                  (i32.gt_s (i32.sub (local.get $p) (local.get $open)) (i32.const 24))
                  (i32.and
                    (i32.ge_s (i32.sub (local.get $p) (local.get $open)) (i32.const 6))
                    (i32.and
                      (i32.eq (i32.load16_u align=1 (local.get $open)) (i32.const 0x755c)) ;; "\u"
                      (i32.eq (i32.load offset=2 align=1 (local.get $open)) (i32.const 0x30303030)))))))
              (br_if $bad (i32.ge_u (global.get $ncuts) (i32.const 16384)))
              (local.set $out (i32.add (i32.const 16384) (i32.shl (global.get $ncuts) (i32.const 3))))
              (i32.store (local.get $out) (local.get $open))
              (i32.store offset=4 (local.get $out) (local.get $p))
              (global.set $ncuts (i32.add (global.get $ncuts) (i32.const 1)))
              (br $each)))
          (br_if $done (local.get $last))
          (local.set $pos (i32.add (local.get $pos) (i32.const 64)))
          (br $blocks)))
      ;; $bad: the line's end, for the slow path
      (global.set $end (call $nextLine (local.get $pos) (local.get $to)))
      (return (i32.const -1)))
    ;; $done: sure unless a string is still open
    (if (result i32) (local.get $inside) (then (i32.const -1)) (else (i32.const 0)))))
