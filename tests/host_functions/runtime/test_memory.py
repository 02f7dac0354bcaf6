"""GuestMemory: the one bounds-checked view of a Wasm linear memory every ABI copies through."""

from __future__ import annotations

import numpy as np
import pytest
import wasmtime

from host_functions.runtime.memory import PAGE, GuestMemory
from host_functions.runtime.sandbox import Failure, Settings

_GROWS = '(module (memory (export "memory") 1) (func (export "grow") (drop (memory.grow (i32.const 1)))))'


def _settings(memory_max_bytes: int = 4 * PAGE) -> Settings:
    return Settings("t", "guest.wasm", "f", 1000, memory_max_bytes, False, {}, "test")


def _guest(limit: int = 4 * PAGE) -> tuple[GuestMemory, wasmtime.Func, wasmtime.Store]:
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    store.set_limits(memory_size=limit)
    exports = wasmtime.Instance(store, wasmtime.Module(engine, _GROWS), []).exports(store)
    return GuestMemory(exports["memory"], store), exports["grow"], store


def test_bytes_and_buffers_go_in_and_come_out_unchanged():
    memory, _, _ = _guest()

    memory.write(8, b"abc")
    memory.write(16, np.array([1, -2], dtype="<i4"))
    memory.write(24, memoryview(b"xyz")[1:])

    assert memory.read(8, 3) == b"abc"
    assert (memory.i32(16), memory.i32(20)) == (1, -2)
    assert memory.read(24, 2) == b"yz"
    assert memory.read(PAGE - 1, 0) == b""


def test_words_and_bulk_copies_to_host_buffers():
    memory, _, _ = _guest()
    memory.set_i32(0, 7)
    memory.set_i64(8, -1)
    out = np.empty(16, dtype=np.uint8)

    memory.copy_to(out.ctypes.data, 0, 16)
    memory.zero(8, 8)

    assert out.view("<i4")[0] == 7 and out.view("<i8")[1] == -1
    assert memory.read(8, 8) == bytes(8)


@pytest.mark.parametrize(("at", "length"), [(PAGE - 2, 4), (-1, 1), (0, -1), (PAGE, 1)])
def test_an_access_outside_the_memory_names_the_range_and_the_size(at, length):
    memory, _, _ = _guest()

    with pytest.raises(Failure, match=rf"^bad pointer: \({at}, {length}\) is outside guest memory of 65536 bytes$"):
        memory.read(at, length)


def test_the_label_names_the_memory_in_errors():
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    raw = wasmtime.Memory(store, wasmtime.MemoryType(wasmtime.Limits(1, None)))

    with pytest.raises(Failure, match=r"is outside the adapter's \$in of 65536 bytes"):
        GuestMemory(raw, store, "the adapter's $in").write(PAGE, b"x")


def test_memory_the_guest_grew_is_in_bounds_without_a_new_view():
    memory, grow, store = _guest()

    grow(store)

    assert memory.contains(PAGE, PAGE)
    memory.write(PAGE + 8, b"late")
    assert memory.read(PAGE + 8, 4) == b"late"


def test_growing_past_memory_max_bytes_fails_naming_what_needed_the_room():
    memory, _, _ = _guest(limit=2 * PAGE)

    memory.grow_to(2 * PAGE, "the staged input", _settings(2 * PAGE))
    with pytest.raises(Failure, match=r"^the staged input exceeds memory.max.bytes=131072$"):
        memory.grow_to(2 * PAGE + 1, "the staged input", _settings(2 * PAGE))
    assert memory.size == 2 * PAGE


def test_the_watchdog_reader_follows_the_word_without_the_store():
    memory, _, _ = _guest()
    read = memory.i32_reader(4)

    memory.set_i32(4, 41)
    first = read()
    memory.set_i32(4, 42)

    assert (first, read()) == (41, 42)
