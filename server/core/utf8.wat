;; UTF-8 to UTF-16, for reading session lines (utf8.ts): V8 decodes a line holding any
;; non-ASCII character one character at a time (~340 MB/s on the bench machine); here runs of
;; sixteen ASCII bytes are widened at once. Built into utf8-wasm.ts by tools/build-wasm.mjs.
;;
;; The input must be valid UTF-8 (utf8.ts checks with buffer.isUtf8 first): every lead byte has
;; its continuation bytes, and no sequence is overlong, a surrogate or above U+10FFFF. Nothing
;; here checks, so nothing here has to agree with a decoder's replacement rules.

(module
  (memory (export "memory") 1)

  ;; The UTF-16 code units of the UTF-8 at [src, src + n), written at dst; returns how many.
  (func (export "utf16") (param $src i32) (param $n i32) (param $dst i32) (result i32)
    (local $i i32) (local $end i32) (local $o i32) (local $c i32) (local $cp i32) (local $v v128)
    (local.set $i (local.get $src))
    (local.set $end (i32.add (local.get $src) (local.get $n)))
    (local.set $o (local.get $dst))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        ;; sixteen ASCII bytes: sixteen code units
        (if (i32.le_u (i32.add (local.get $i) (i32.const 16)) (local.get $end))
          (then
            (local.set $v (v128.load (local.get $i)))
            (if (i32.eqz (i8x16.bitmask (local.get $v)))
              (then
                (v128.store (local.get $o) (i16x8.extend_low_i8x16_u (local.get $v)))
                (v128.store offset=16 (local.get $o) (i16x8.extend_high_i8x16_u (local.get $v)))
                (local.set $i (i32.add (local.get $i) (i32.const 16)))
                (local.set $o (i32.add (local.get $o) (i32.const 32)))
                (br $next)))))
        (local.set $c (i32.load8_u (local.get $i)))
        ;; one byte: U+0000 to U+007F
        (if (i32.lt_u (local.get $c) (i32.const 0x80))
          (then
            (i32.store16 (local.get $o) (local.get $c))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (local.set $o (i32.add (local.get $o) (i32.const 2)))
            (br $next)))
        ;; two bytes: to U+07FF
        (if (i32.lt_u (local.get $c) (i32.const 0xe0))
          (then
            (i32.store16 (local.get $o)
              (i32.or (i32.shl (i32.and (local.get $c) (i32.const 0x1f)) (i32.const 6))
                      (i32.and (i32.load8_u offset=1 (local.get $i)) (i32.const 0x3f))))
            (local.set $i (i32.add (local.get $i) (i32.const 2)))
            (local.set $o (i32.add (local.get $o) (i32.const 2)))
            (br $next)))
        ;; three bytes: to U+FFFF
        (if (i32.lt_u (local.get $c) (i32.const 0xf0))
          (then
            (i32.store16 (local.get $o)
              (i32.or
                (i32.or (i32.shl (i32.and (local.get $c) (i32.const 0x0f)) (i32.const 12))
                        (i32.shl (i32.and (i32.load8_u offset=1 (local.get $i)) (i32.const 0x3f)) (i32.const 6)))
                (i32.and (i32.load8_u offset=2 (local.get $i)) (i32.const 0x3f))))
            (local.set $i (i32.add (local.get $i) (i32.const 3)))
            (local.set $o (i32.add (local.get $o) (i32.const 2)))
            (br $next)))
        ;; four bytes: a surrogate pair
        (local.set $cp
          (i32.sub
            (i32.or
              (i32.or (i32.shl (i32.and (local.get $c) (i32.const 0x07)) (i32.const 18))
                      (i32.shl (i32.and (i32.load8_u offset=1 (local.get $i)) (i32.const 0x3f)) (i32.const 12)))
              (i32.or (i32.shl (i32.and (i32.load8_u offset=2 (local.get $i)) (i32.const 0x3f)) (i32.const 6))
                      (i32.and (i32.load8_u offset=3 (local.get $i)) (i32.const 0x3f))))
            (i32.const 0x10000)))
        (i32.store16 (local.get $o) (i32.add (i32.const 0xd800) (i32.shr_u (local.get $cp) (i32.const 10))))
        (i32.store16 offset=2 (local.get $o) (i32.add (i32.const 0xdc00) (i32.and (local.get $cp) (i32.const 0x3ff))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (local.set $o (i32.add (local.get $o) (i32.const 4)))
        (br $next)))
    (i32.shr_u (i32.sub (local.get $o) (local.get $dst)) (i32.const 1))))
