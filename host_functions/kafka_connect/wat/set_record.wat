;; set_record in Wasm: the adapter parses the common record documents itself.
;; Read with ../_adapter_set_record.py, whose docstring says which documents it accepts and why
;; everything else goes to Python (the fallback at the end of $set_record).
;; Holes: {{check_guest}} fails the record unless [p, p + l) lies in guest memory;
;; {{SET_TOPIC}} and {{SET_MASK}} are the control block's "set" bits (layout.py).
  (global $s0 (mut i32) (i32.const 0)) (global $s1 (mut i32) (i32.const 0))
  (func $member_is_headers (result i32)
    (if (i32.ne (i32.sub (global.get $s1) (global.get $s0)) (i32.const 7)) (then (return (i32.const 0))))
    (if (i32.ne (i32.load8_u $g offset=0 (global.get $s0)) (i32.const 104)) (then (return (i32.const 0))))  ;; h
    (if (i32.ne (i32.load8_u $g offset=1 (global.get $s0)) (i32.const 101)) (then (return (i32.const 0))))  ;; e
    (if (i32.ne (i32.load8_u $g offset=2 (global.get $s0)) (i32.const 97)) (then (return (i32.const 0))))  ;; a
    (if (i32.ne (i32.load8_u $g offset=3 (global.get $s0)) (i32.const 100)) (then (return (i32.const 0))))  ;; d
    (if (i32.ne (i32.load8_u $g offset=4 (global.get $s0)) (i32.const 101)) (then (return (i32.const 0))))  ;; e
    (if (i32.ne (i32.load8_u $g offset=5 (global.get $s0)) (i32.const 114)) (then (return (i32.const 0))))  ;; r
    (if (i32.ne (i32.load8_u $g offset=6 (global.get $s0)) (i32.const 115)) (then (return (i32.const 0))))  ;; s
    (i32.const 1))
  (func $member_is_topic (result i32)
    (if (i32.ne (i32.sub (global.get $s1) (global.get $s0)) (i32.const 5)) (then (return (i32.const 0))))
    (if (i32.ne (i32.load8_u $g offset=0 (global.get $s0)) (i32.const 116)) (then (return (i32.const 0))))  ;; t
    (if (i32.ne (i32.load8_u $g offset=1 (global.get $s0)) (i32.const 111)) (then (return (i32.const 0))))  ;; o
    (if (i32.ne (i32.load8_u $g offset=2 (global.get $s0)) (i32.const 112)) (then (return (i32.const 0))))  ;; p
    (if (i32.ne (i32.load8_u $g offset=3 (global.get $s0)) (i32.const 105)) (then (return (i32.const 0))))  ;; i
    (if (i32.ne (i32.load8_u $g offset=4 (global.get $s0)) (i32.const 99)) (then (return (i32.const 0))))  ;; c
    (i32.const 1))
  (func $member_is_key (result i32)
    (if (i32.ne (i32.sub (global.get $s1) (global.get $s0)) (i32.const 3)) (then (return (i32.const 0))))
    (if (i32.ne (i32.load8_u $g offset=0 (global.get $s0)) (i32.const 107)) (then (return (i32.const 0))))  ;; k
    (if (i32.ne (i32.load8_u $g offset=1 (global.get $s0)) (i32.const 101)) (then (return (i32.const 0))))  ;; e
    (if (i32.ne (i32.load8_u $g offset=2 (global.get $s0)) (i32.const 121)) (then (return (i32.const 0))))  ;; y
    (i32.const 1))
  (func $member_is_value (result i32)
    (if (i32.ne (i32.sub (global.get $s1) (global.get $s0)) (i32.const 5)) (then (return (i32.const 0))))
    (if (i32.ne (i32.load8_u $g offset=0 (global.get $s0)) (i32.const 118)) (then (return (i32.const 0))))  ;; v
    (if (i32.ne (i32.load8_u $g offset=1 (global.get $s0)) (i32.const 97)) (then (return (i32.const 0))))  ;; a
    (if (i32.ne (i32.load8_u $g offset=2 (global.get $s0)) (i32.const 108)) (then (return (i32.const 0))))  ;; l
    (if (i32.ne (i32.load8_u $g offset=3 (global.get $s0)) (i32.const 117)) (then (return (i32.const 0))))  ;; u
    (if (i32.ne (i32.load8_u $g offset=4 (global.get $s0)) (i32.const 101)) (then (return (i32.const 0))))  ;; e
    (i32.const 1))
  ;; the byte at i of the document, -1 past its end
  (func $byte (param $i i32) (param $e i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $i) (local.get $e))
      (then (i32.load8_u $g (local.get $i))) (else (i32.const -1))))

  (func $space (param $i i32) (param $e i32) (result i32)
    (local $c i32)
    (block $done (loop $next
      (local.set $c (call $byte (local.get $i) (local.get $e)))
      (br_if $done (i32.eqz (i32.or (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 9)))
                                    (i32.or (i32.eq (local.get $c) (i32.const 10)) (i32.eq (local.get $c) (i32.const 13))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $i))

  (func $is_null (param $i i32) (param $e i32) (result i32)
    (i32.and (i32.le_u (i32.add (local.get $i) (i32.const 4)) (local.get $e))
             (i32.eq (i32.load $g (local.get $i)) (i32.const 0x6c6c756e))))

  ;; a string without escapes at i (its quote): [s0, s1) is its content; returns the position after it, -1 if not plain
  (func $string (param $i i32) (param $e i32) (result i32)
    (local $c i32)
    (if (i32.ne (call $byte (local.get $i) (local.get $e)) (i32.const 34)) (then (return (i32.const -1))))
    (local.set $i (i32.add (local.get $i) (i32.const 1)))
    (global.set $s0 (local.get $i))
    (block $done (loop $next
      (local.set $c (call $byte (local.get $i) (local.get $e)))
      (br_if $done (i32.eq (local.get $c) (i32.const 34)))
      ;; the end, a control character, a backslash or non-ASCII: not a plain string
      (if (i32.or (i32.or (i32.lt_s (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 92)))
                  (i32.ge_s (local.get $c) (i32.const 127)))
        (then (return (i32.const -1))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (global.set $s1 (local.get $i))
    (i32.add (local.get $i) (i32.const 1)))

  (func $b64value (param $c i32) (result i32)
    (if (i32.lt_u (i32.sub (local.get $c) (i32.const 65)) (i32.const 26)) (then (return (i32.sub (local.get $c) (i32.const 65)))))
    (if (i32.lt_u (i32.sub (local.get $c) (i32.const 97)) (i32.const 26)) (then (return (i32.sub (local.get $c) (i32.const 71)))))
    (if (i32.lt_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 10)) (then (return (i32.add (local.get $c) (i32.const 4)))))
    (if (i32.eq (local.get $c) (i32.const 43)) (then (return (i32.const 62))))
    (if (i32.eq (local.get $c) (i32.const 47)) (then (return (i32.const 63))))
    (i32.const -1))

  ;; the decoded length of canonical base64 [s, t) in guest memory, -1 when it is not
  (func $b64length (param $s i32) (param $t i32) (result i32)
    (local $n i32) (local $pad i32) (local $i i32)
    (local.set $n (i32.sub (local.get $t) (local.get $s)))
    (if (i32.and (local.get $n) (i32.const 3)) (then (return (i32.const -1))))
    (if (local.get $n)
      (then
        (if (i32.eq (i32.load8_u $g (i32.sub (local.get $t) (i32.const 1))) (i32.const 61))
          (then (local.set $pad (i32.const 1))
                (if (i32.eq (i32.load8_u $g (i32.sub (local.get $t) (i32.const 2))) (i32.const 61))
                  (then (local.set $pad (i32.const 2))))))))
    (local.set $i (local.get $s))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (i32.sub (local.get $t) (local.get $pad))))
      (if (i32.lt_s (call $b64value (i32.load8_u $g (local.get $i))) (i32.const 0)) (then (return (i32.const -1))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (i32.sub (i32.mul (i32.shr_u (local.get $n) (i32.const 2)) (i32.const 3)) (local.get $pad)))

  ;; decode checked base64 [s, t) of guest memory into $in at d
  (func $unbase64 (param $s i32) (param $t i32) (param $d i32)
    (local $x i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $s) (local.get $t)))
      ;; padding reads as 63: it only fills bytes past the decoded end (scratch, overwritten next)
      (local.set $x (i32.or (i32.or (i32.shl (call $b64value (i32.load8_u $g (local.get $s))) (i32.const 18))
                                    (i32.shl (call $b64value (i32.load8_u $g offset=1 (local.get $s))) (i32.const 12)))
                            (i32.or (i32.shl (i32.and (call $b64value (i32.load8_u $g offset=2 (local.get $s))) (i32.const 63)) (i32.const 6))
                                    (i32.and (call $b64value (i32.load8_u $g offset=3 (local.get $s))) (i32.const 63)))))
      (i32.store8 $in (local.get $d) (i32.shr_u (local.get $x) (i32.const 16)))
      (i32.store8 $in offset=1 (local.get $d) (i32.shr_u (local.get $x) (i32.const 8)))
      (i32.store8 $in offset=2 (local.get $d) (local.get $x))
      (local.set $s (i32.add (local.get $s) (i32.const 4)))
      (local.set $d (i32.add (local.get $d) (i32.const 3)))
      (br $next))))

  (func $set_record (param $p i32) (param $l i32)
    (local $i i32) (local $e i32) (local $c i32) (local $which i32) (local $seen i32) (local $n i32) (local $h i32)
    (local $j i32) (local $d i32) (local $end i32) (local $len i32)
    (local $k0 i32) (local $k1 i32) (local $v0 i32) (local $v1 i32) (local $t0 i32) (local $t1 i32)
    (local $x0 i32) (local $x1 i32) (local $hd i32)
    {{check_guest}}
    (local.set $k0 (i32.const -1)) (local.set $v0 (i32.const -1)) (local.set $t0 (i32.const -1))
    (local.set $e (i32.add (local.get $p) (local.get $l)))
    (block $py
      ;; --- check the document; headers go to $ch as (name, base64) positions in guest memory
      (local.set $i (call $space (local.get $p) (local.get $e)))
      (br_if $py (i32.eqz (i32.eq (call $byte (local.get $i) (local.get $e)) (i32.const 123))))
      (local.set $i (call $space (i32.add (local.get $i) (i32.const 1)) (local.get $e)))
      (if (i32.eqz (i32.eq (call $byte (local.get $i) (local.get $e)) (i32.const 125)))
        (then (loop $member
          (local.set $i (call $string (local.get $i) (local.get $e)))
          (br_if $py (i32.lt_s (local.get $i) (i32.const 0)))
          ;; which: 1 headers, 2 topic, 4 key, 8 value, 0 any other (ignored)
          (local.set $which (i32.or (i32.or (i32.or (i32.mul (call $member_is_headers) (i32.const 1))
                                    (i32.mul (call $member_is_topic) (i32.const 2)))
                                    (i32.mul (call $member_is_key) (i32.const 4)))
                                    (i32.mul (call $member_is_value) (i32.const 8))))
          ;; json.loads keeps the last of repeated keys (and the first one's place): Python's business
          (br_if $py (i32.and (local.get $seen) (local.get $which)))
          (local.set $seen (i32.or (local.get $seen) (local.get $which)))
          (local.set $i (call $space (local.get $i) (local.get $e)))
          (br_if $py (i32.eqz (i32.eq (call $byte (local.get $i) (local.get $e)) (i32.const 58))))
          (local.set $i (call $space (i32.add (local.get $i) (i32.const 1)) (local.get $e)))
          (if (i32.and (i32.eq (local.get $which) (i32.const 1)) (i32.eq (call $byte (local.get $i) (local.get $e)) (i32.const 123)))
            (then
              (local.set $i (call $space (i32.add (local.get $i) (i32.const 1)) (local.get $e)))
              (if (i32.eqz (i32.eq (call $byte (local.get $i) (local.get $e)) (i32.const 125)))
                (then (loop $header
                  (local.set $i (call $string (local.get $i) (local.get $e)))
                  (br_if $py (i32.lt_s (local.get $i) (i32.const 0)))
                  (local.set $h (i32.shl (local.get $n) (i32.const 4)))
                  (local.set $end (i32.add (local.get $h) (i32.const 16)))
                  (if (i32.gt_u (local.get $end) (i32.shl (memory.size $ch) (i32.const 16))) (then (call $grow_ch (local.get $end))))
                  (i32.store $ch (local.get $h) (global.get $s0))
                  (i32.store $ch offset=4 (local.get $h) (i32.sub (global.get $s1) (global.get $s0)))
                  ;; a repeated name: Python's business
                  (local.set $j (i32.const 0))
                  (block $unique (loop $earlier
                    (br_if $unique (i32.ge_u (local.get $j) (local.get $h)))
                    (if (i32.eq (i32.load $ch offset=4 (local.get $j)) (i32.load $ch offset=4 (local.get $h)))
                      (then (br_if $py (call $eq_guest (i32.load $ch (local.get $j)) (i32.load $ch (local.get $h))
                                                       (i32.load $ch offset=4 (local.get $h))))))
                    (local.set $j (i32.add (local.get $j) (i32.const 16)))
                    (br $earlier)))
                  (local.set $i (call $space (local.get $i) (local.get $e)))
                  (br_if $py (i32.eqz (i32.eq (call $byte (local.get $i) (local.get $e)) (i32.const 58))))
                  (local.set $i (call $space (i32.add (local.get $i) (i32.const 1)) (local.get $e)))
                  (if (i32.eq (call $byte (local.get $i) (local.get $e)) (i32.const 110))
          (then
            (br_if $py (i32.eqz (call $is_null (local.get $i) (local.get $e))))
            (local.set $x0 (i32.const -1))
            (local.set $i (i32.add (local.get $i) (i32.const 4))))
          (else
            (local.set $i (call $string (local.get $i) (local.get $e)))
            (br_if $py (i32.lt_s (local.get $i) (i32.const 0)))
            (local.set $x0 (global.get $s0)) (local.set $x1 (global.get $s1))))
                  (if (i32.ge_s (local.get $x0) (i32.const 0))
                    (then (br_if $py (i32.lt_s (call $b64length (local.get $x0) (local.get $x1)) (i32.const 0)))))
                  (i32.store $ch offset=8 (local.get $h) (local.get $x0))
                  (i32.store $ch offset=12 (local.get $h) (local.get $x1))
                  (local.set $n (i32.add (local.get $n) (i32.const 1)))
                  (local.set $i (call $space (local.get $i) (local.get $e)))
                  (if (i32.eq (call $byte (local.get $i) (local.get $e)) (i32.const 44))
                    (then (local.set $i (call $space (i32.add (local.get $i) (i32.const 1)) (local.get $e)))
                          (br $header)))
                  (br_if $py (i32.eqz (i32.eq (call $byte (local.get $i) (local.get $e)) (i32.const 125)))))))
              (local.set $i (i32.add (local.get $i) (i32.const 1))))
            (else
              (if (i32.eq (call $byte (local.get $i) (local.get $e)) (i32.const 110))
          (then
            (br_if $py (i32.eqz (call $is_null (local.get $i) (local.get $e))))
            (local.set $x0 (i32.const -1))
            (local.set $i (i32.add (local.get $i) (i32.const 4))))
          (else
            (local.set $i (call $string (local.get $i) (local.get $e)))
            (br_if $py (i32.lt_s (local.get $i) (i32.const 0)))
            (local.set $x0 (global.get $s0)) (local.set $x1 (global.get $s1))))
              ;; headers given as a string: Python's business ("" means none, anything else fails)
              (br_if $py (i32.and (i32.eq (local.get $which) (i32.const 1)) (i32.ge_s (local.get $x0) (i32.const 0))))
              (if (i32.eq (local.get $which) (i32.const 2)) (then (local.set $t0 (local.get $x0)) (local.set $t1 (local.get $x1))))
              (if (i32.eq (local.get $which) (i32.const 4)) (then (local.set $k0 (local.get $x0)) (local.set $k1 (local.get $x1))))
              (if (i32.eq (local.get $which) (i32.const 8)) (then (local.set $v0 (local.get $x0)) (local.set $v1 (local.get $x1))))
              (if (i32.and (i32.ge_s (local.get $x0) (i32.const 0)) (i32.ne (i32.and (local.get $which) (i32.const 12)) (i32.const 0)))
                (then (br_if $py (i32.lt_s (call $b64length (local.get $x0) (local.get $x1)) (i32.const 0)))))))
          (local.set $i (call $space (local.get $i) (local.get $e)))
          (if (i32.eq (call $byte (local.get $i) (local.get $e)) (i32.const 44))
            (then (local.set $i (call $space (i32.add (local.get $i) (i32.const 1)) (local.get $e)))
                  (br $member)))
          (br_if $py (i32.eqz (i32.eq (call $byte (local.get $i) (local.get $e)) (i32.const 125)))))))
      (br_if $py (i32.ne (call $space (i32.add (local.get $i) (i32.const 1)) (local.get $e)) (local.get $e)))
      ;; --- apply: the decoded bytes go to scratch (never longer than the document)
      (local.set $d (global.get $sc))
      (local.set $end (i32.add (local.get $d) (i32.add (local.get $l) (i32.const 4))))
      (if (i32.gt_u (local.get $end) (i32.shl (memory.size $in) (i32.const 16))) (then (call $grow_in (local.get $end))))
      (global.set $kl (i32.const -1)) (global.set $kw (i32.const 0)) (global.set $kp (local.get $d))
      (if (i32.ge_s (local.get $k0) (i32.const 0))
        (then (global.set $kl (call $b64length (local.get $k0) (local.get $k1)))
              (call $unbase64 (local.get $k0) (local.get $k1) (local.get $d))
              (local.set $d (i32.add (local.get $d) (global.get $kl)))))
      (global.set $vl (i32.const -1)) (global.set $vw (i32.const 0)) (global.set $vp (local.get $d))
      (if (i32.ge_s (local.get $v0) (i32.const 0))
        (then (global.set $vl (call $b64length (local.get $v0) (local.get $v1)))
              (call $unbase64 (local.get $v0) (local.get $v1) (local.get $d))
              (local.set $d (i32.add (local.get $d) (global.get $vl)))))
      ;; no topic (or null): the record keeps its topic
      (if (i32.ge_s (local.get $t0) (i32.const 0))
        (then (local.set $len (i32.sub (local.get $t1) (local.get $t0)))
              (memory.copy $in $g (local.get $d) (local.get $t0) (local.get $len))
              (global.set $tp (local.get $d)) (global.set $tl (local.get $len)) (global.set $tw (i32.const 0))
              (global.set $mask (i32.or (global.get $mask) (i32.const {{SET_TOPIC}})))
              (local.set $d (i32.add (local.get $d) (local.get $len)))))
      (local.set $h (i32.const 0))
      (block $done (loop $next
        (br_if $done (i32.ge_u (local.get $h) (i32.shl (local.get $n) (i32.const 4))))
        (local.set $len (i32.load $ch offset=4 (local.get $h)))
        (memory.copy $in $g (local.get $d) (i32.load $ch (local.get $h)) (local.get $len))
        (i32.store $ch (local.get $h) (local.get $d))
        (local.set $d (i32.add (local.get $d) (local.get $len)))
        (local.set $x0 (i32.load $ch offset=8 (local.get $h)))
        (i32.store $ch offset=8 (local.get $h) (local.get $d))
        (if (i32.lt_s (local.get $x0) (i32.const 0))
          (then (i32.store $ch offset=12 (local.get $h) (i32.const -1)))
          (else (local.set $x1 (i32.load $ch offset=12 (local.get $h)))
                (local.set $len (call $b64length (local.get $x0) (local.get $x1)))
                (call $unbase64 (local.get $x0) (local.get $x1) (local.get $d))
                (i32.store $ch offset=12 (local.get $h) (local.get $len))
                (local.set $d (i32.add (local.get $d) (local.get $len)))))
        (local.set $h (i32.add (local.get $h) (i32.const 16)))
        (br $next)))
      (global.set $hn (local.get $n))
      (global.set $sc (local.get $d))
      (global.set $mask (i32.or (global.get $mask) (i32.const {{SET_MASK}})))
      (return))
    (call $spill) (call $py_set_record (local.get $p) (local.get $l)) (call $reload) (return))

  (func $eq_guest (param $a i32) (param $b i32) (param $n i32) (result i32)
    (local $i i32)
    (block $no (loop $next
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const 1))))
      (br_if $no (i32.ne (i32.load8_u $g (i32.add (local.get $a) (local.get $i)))
                         (i32.load8_u $g (i32.add (local.get $b) (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (i32.const 0))