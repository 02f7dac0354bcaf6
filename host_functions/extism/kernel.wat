;; The Extism kernel (the `extism:host/env` memory functions), written for this host, plus the
;; batch driver that calls the plug-in once per record without leaving Wasm.
;;
;; Kernel ABI (what plug-ins built with the Extism PDKs import; see ABI.md, "Extism plug-ins"):
;; handles are i64 offsets into the kernel memory `memory` (0 is null); `alloc(n)` returns a
;; block of n bytes (0 when n is 0 or memory.max.bytes is reached), `length(h)` its size (0 for
;; anything that is not a live block), `free(h)` releases it; `load_*`/`store_*` read and write
;; kernel memory; `input_*` read the call's input; `output_set` and `error_set` name the
;; call's output and error blocks.  `reset` forgets every block: the driver calls it before
;; each record, so a record's allocations never outlive its call.
;;
;; Blocks are bump-allocated from HEAP_BASE.  A block has a 16-byte header: a tag (ACTIVE xor
;; the reset generation, so a handle kept across calls is no longer live), its capacity and its
;; length.  Freeing the newest block gives its room back; older freed blocks wait for the reset.
;;
;; Driver (memory `io`, written by the host): a control block at 0, the chunk's input
;; documents (offset table + data), then the bytes of each record's result, comma-separated;
;; memory `entries` holds one entry per record: [row, rc, kind, length].  kind 0: the output;
;; 1: an error (the Extism error message, or none when only the return code was non-zero);
;; 2: the output named a range outside kernel memory.
;; KERNEL.md (beside this file) documents the layout, with a glossary.
(module
  (type $returns_rc (func (result i32)))
  (type $returns_nothing (func))

  (memory $heap (export "memory") 1)
  (memory $io (export "io") 1)
  (memory $entries (export "entries") 1)
  ;; slot 0: the plug-in's export, set by the host after the plug-in is instantiated
  (table $entry (export "entry") 1 funcref)

  ;; the log level below which log_* calls are skipped (i32 max: logging off); set by the host
  (global $log_level (export "log_level") (mut i32) (i32.const 2147483647))
  (global $top (mut i64) (i64.const 64))
  (global $generation (mut i32) (i32.const 1))
  (global $input_offset (mut i64) (i64.const 0))
  (global $input_length (mut i64) (i64.const 0))
  (global $output_offset (mut i64) (i64.const 0))
  (global $output_length (mut i64) (i64.const 0))
  (global $error (mut i64) (i64.const 0))

  ;; ---- kernel ---------------------------------------------------------------------------

  (func $heap_bytes (result i64)
    (i64.shl (i64.extend_i32_u (memory.size $heap)) (i64.const 16)))

  ;; 1 when h is a live block of the current generation
  (func $live (param $h i64) (result i32)
    (if (i64.lt_u (local.get $h) (i64.const 80)) (then (return (i32.const 0))))
    (if (i64.gt_u (local.get $h) (global.get $top)) (then (return (i32.const 0))))
    (i32.eq (i32.load $heap (i32.wrap_i64 (i64.sub (local.get $h) (i64.const 16))))
            (i32.xor (global.get $generation) (i32.const 0x5e7b10c0))))

  (func $alloc (export "alloc") (param $n i64) (result i64)
    (local $capacity i64) (local $h i64) (local $end i64) (local $missing i64)
    (if (i64.eqz (local.get $n)) (then (return (i64.const 0))))
    (if (i64.gt_u (local.get $n) (i64.const 0xfff00000)) (then (return (i64.const 0))))
    (local.set $capacity (i64.and (i64.add (local.get $n) (i64.const 7)) (i64.const -8)))
    (local.set $h (i64.add (global.get $top) (i64.const 16)))
    (local.set $end (i64.add (local.get $h) (local.get $capacity)))
    (if (i64.gt_u (local.get $end) (call $heap_bytes))
      (then
        (local.set $missing (i64.sub (local.get $end) (call $heap_bytes)))
        ;; grow by at least a quarter of the memory: few grows for a plug-in that allocates a lot
        (if (i32.eq (memory.grow $heap
                      (i32.wrap_i64 (select (i64.shr_u (i64.add (local.get $missing) (i64.const 65535)) (i64.const 16))
                                            (i64.extend_i32_u (i32.shr_u (memory.size $heap) (i32.const 2)))
                                            (i64.gt_u (i64.shr_u (i64.add (local.get $missing) (i64.const 65535)) (i64.const 16))
                                                      (i64.extend_i32_u (i32.shr_u (memory.size $heap) (i32.const 2)))))))
                    (i32.const -1))
          (then
            ;; the generous grow failed: try exactly what is missing
            (if (i32.eq (memory.grow $heap (i32.wrap_i64 (i64.shr_u (i64.add (local.get $missing) (i64.const 65535))
                                                                       (i64.const 16))))
                        (i32.const -1))
              (then (return (i64.const 0))))))))
    (i32.store $heap (i32.wrap_i64 (global.get $top)) (i32.xor (global.get $generation) (i32.const 0x5e7b10c0)))
    (i32.store $heap offset=4 (i32.wrap_i64 (global.get $top)) (i32.wrap_i64 (local.get $capacity)))
    (i64.store $heap offset=8 (i32.wrap_i64 (global.get $top)) (local.get $n))
    (global.set $top (local.get $end))
    (local.get $h))

  (func $free (export "free") (param $h i64)
    (local $header i32)
    (if (i32.eqz (call $live (local.get $h))) (then (return)))
    (local.set $header (i32.wrap_i64 (i64.sub (local.get $h) (i64.const 16))))
    (if (i64.eq (i64.add (local.get $h) (i64.extend_i32_u (i32.load $heap offset=4 (local.get $header))))
                (global.get $top))
      (then (global.set $top (i64.extend_i32_u (local.get $header))))
      (else (i32.store $heap (local.get $header) (i32.const 0))))
    (if (i64.eq (local.get $h) (global.get $input_offset)) (then (global.set $input_length (i64.const 0)))))

  (func $length (export "length") (param $h i64) (result i64)
    (if (result i64) (call $live (local.get $h))
      (then (i64.load $heap (i32.wrap_i64 (i64.sub (local.get $h) (i64.const 8)))))
      (else (i64.const 0))))

  (func (export "length_unsafe") (param $h i64) (result i64)
    (call $length (local.get $h)))

  ;; the 32-bit address of a pointer; one past 4 GiB, which would wrap, becomes the last address
  ;; instead, so that the access traps as out of bounds (kernel memory never reaches 4 GiB)
  (func $address (param $p i64) (result i32)
    (if (result i32) (i64.gt_u (local.get $p) (i64.const 0xffffffff))
      (then (i32.const -1))
      (else (i32.wrap_i64 (local.get $p)))))

  (func (export "load_u8") (param $p i64) (result i32)
    (i32.load8_u $heap (call $address (local.get $p))))

  (func (export "load_u64") (param $p i64) (result i64)
    (i64.load $heap (call $address (local.get $p))))

  (func (export "store_u8") (param $p i64) (param $v i32)
    (i32.store8 $heap (call $address (local.get $p)) (local.get $v)))

  (func (export "store_u64") (param $p i64) (param $v i64)
    (i64.store $heap (call $address (local.get $p)) (local.get $v)))

  (func (export "input_load_u8") (param $offset i64) (result i32)
    (if (i64.ge_u (local.get $offset) (global.get $input_length)) (then (return (i32.const 0))))
    (i32.load8_u $heap (call $address (i64.add (global.get $input_offset) (local.get $offset)))))

  (func (export "input_load_u64") (param $offset i64) (result i64)
    (if (i64.gt_u (i64.add (local.get $offset) (i64.const 8)) (global.get $input_length))
      (then (return (i64.const 0))))
    (i64.load $heap (call $address (i64.add (global.get $input_offset) (local.get $offset)))))

  (func $input_set (export "input_set") (param $h i64) (param $n i64)
    (global.set $input_offset (local.get $h))
    (global.set $input_length (local.get $n)))

  (func (export "output_set") (param $p i64) (param $n i64)
    (global.set $output_offset (local.get $p))
    (global.set $output_length (local.get $n)))

  (func (export "input_length") (result i64) (global.get $input_length))
  (func (export "input_offset") (result i64) (global.get $input_offset))
  (func (export "output_length") (result i64) (global.get $output_length))
  (func (export "output_offset") (result i64) (global.get $output_offset))
  (func (export "error_set") (param $h i64) (global.set $error (local.get $h)))
  (func (export "error_get") (result i64) (global.get $error))
  (func (export "memory_bytes") (result i64) (call $heap_bytes))
  (func (export "get_log_level") (result i32) (global.get $log_level))

  (func $reset (export "reset")
    (global.set $top (i64.const 64))
    (global.set $generation (i32.add (global.get $generation) (i32.const 1)))
    (global.set $input_offset (i64.const 0))
    (global.set $input_length (i64.const 0))
    (global.set $output_offset (i64.const 0))
    (global.set $output_length (i64.const 0))
    (global.set $error (i64.const 0)))

  ;; ---- driver ---------------------------------------------------------------------------
  ;; control block in `io`: 0 row being run (the watchdog's progress, and the row host
  ;; functions serve); 4 status (0 done, 2 output area full: row's result pending, 3 input does
  ;; not fit in kernel memory); 8 offset of the input offset table; 12 offset of the input data;
  ;; 16 output area start; 20 output cursor; 24 entries committed; 28 pending return code.

  (func $run (export "smt_run") (param $start i32) (param $end i32) (param $returns_rc i32) (result i32)
    (local $row i32) (local $at i32) (local $length i32) (local $h i64) (local $rc i32)
    (local.set $row (local.get $start))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        (i32.store $io (i32.const 0) (local.get $row))
        (call $reset)
        (local.set $at (i32.add (i32.load $io (i32.const 8)) (i32.shl (local.get $row) (i32.const 2))))
        (local.set $length (i32.sub (i32.load $io offset=4 (local.get $at)) (i32.load $io (local.get $at))))
        (local.set $h (i64.const 0))
        (if (local.get $length)
          (then
            (local.set $h (call $alloc (i64.extend_i32_u (local.get $length))))
            (if (i64.eqz (local.get $h))
              (then
                (i32.store $io (i32.const 4) (i32.const 3))
                (return (local.get $row))))
            (memory.copy $heap $io
              (i32.wrap_i64 (local.get $h))
              (i32.add (i32.load $io (i32.const 12)) (i32.load $io (local.get $at)))
              (local.get $length))))
        (call $input_set (local.get $h) (i64.extend_i32_u (local.get $length)))
        (if (local.get $returns_rc)
          (then (local.set $rc (call_indirect $entry (type $returns_rc) (i32.const 0))))
          (else
            (call_indirect $entry (type $returns_nothing) (i32.const 0))
            (local.set $rc (i32.const 0))))
        (if (i32.eqz (call $commit (local.get $row) (local.get $rc)))
          (then
            (i32.store $io (i32.const 28) (local.get $rc))
            (i32.store $io (i32.const 4) (i32.const 2))
            (return (local.get $row))))
        (local.set $row (i32.add (local.get $row) (i32.const 1)))
        (br $rows)))
    (i32.store $io (i32.const 4) (i32.const 0))
    (local.get $row))

  ;; Append the record's result; 0 when it does not fit (memory.max.bytes).  Its entry
  ;; [row, rc, kind, length] goes to `entries`; its bytes to the output area of `io`, after a
  ;; comma when the area is not empty, so that outputs that are JSON read as one array.
  (func $commit (export "smt_commit") (param $row i32) (param $rc i32) (result i32)
    (local $kind i32) (local $from i64) (local $length i64) (local $cursor i32) (local $end i64)
    (local $entry i32)
    (if (i64.ne (global.get $error) (i64.const 0))
      (then
        (local.set $kind (i32.const 1))
        (local.set $from (global.get $error))
        (local.set $length (call $length (global.get $error))))
      (else
        (if (local.get $rc)
          (then (local.set $kind (i32.const 1)))
          (else
            (local.set $from (global.get $output_offset))
            (local.set $length (global.get $output_length))
            (if (i64.gt_u (i64.add (local.get $from) (local.get $length)) (call $heap_bytes))
              (then
                (local.set $kind (i32.const 2))
                (local.set $length (i64.const 0))))))))
    ;; memory.copy bounds-checks its source even for 0 bytes
    (if (i64.eqz (local.get $length)) (then (local.set $from (i64.const 0))))
    (local.set $cursor (i32.load $io (i32.const 20)))
    (if (i32.ne (local.get $cursor) (i32.load $io (i32.const 16)))
      (then (local.set $cursor (i32.add (local.get $cursor) (i32.const 1)))))
    (local.set $end (i64.add (i64.extend_i32_u (local.get $cursor)) (local.get $length)))
    (local.set $entry (i32.shl (i32.load $io (i32.const 24)) (i32.const 4)))
    (if (i32.eqz (call $room (i32.const 0) (local.get $end)))
      (then (return (i32.const 0))))
    (if (i32.eqz (call $room (i32.const 1) (i64.extend_i32_u (i32.add (local.get $entry) (i32.const 16)))))
      (then (return (i32.const 0))))
    (if (i32.ne (local.get $cursor) (i32.load $io (i32.const 20)))
      (then (i32.store8 $io (i32.load $io (i32.const 20)) (i32.const 44))))  ;; ','
    (memory.copy $io $heap (local.get $cursor) (i32.wrap_i64 (local.get $from)) (i32.wrap_i64 (local.get $length)))
    (i32.store $entries (local.get $entry) (local.get $row))
    (i32.store $entries offset=4 (local.get $entry) (local.get $rc))
    (i32.store $entries offset=8 (local.get $entry) (local.get $kind))
    (i32.store $entries offset=12 (local.get $entry) (i32.wrap_i64 (local.get $length)))
    (i32.store $io (i32.const 20) (i32.wrap_i64 (local.get $end)))
    (i32.store $io (i32.const 24) (i32.add (i32.load $io (i32.const 24)) (i32.const 1)))
    (i32.const 1))

  ;; 1 when memory `which` (0: io, 1: entries) holds `size` bytes, growing it if needed
  (func $room (param $which i32) (param $size i64) (result i32)
    (local $have i64) (local $pages i32)
    (local.set $have (i64.shl (i64.extend_i32_u
      (if (result i32) (local.get $which) (then (memory.size $entries)) (else (memory.size $io)))) (i64.const 16)))
    (if (i64.le_u (local.get $size) (local.get $have)) (then (return (i32.const 1))))
    (if (i64.gt_u (local.get $size) (i64.const 0xffff0000)) (then (return (i32.const 0))))
    (local.set $pages (i32.wrap_i64 (i64.shr_u (i64.add (i64.sub (local.get $size) (local.get $have)) (i64.const 65535))
                                               (i64.const 16))))
    (i32.ne (if (result i32) (local.get $which)
              (then (memory.grow $entries (local.get $pages)))
              (else (memory.grow $io (local.get $pages))))
            (i32.const -1)))
)
