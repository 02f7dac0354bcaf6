"""The SDKs' guest side without a host: the alloc/dealloc exports and the error packing."""

from pathlib import Path

import pytest
import wasmtime

from host_functions.sdk import build_guest

GUESTS = Path(__file__).parents[1] / "guests"
PAGE = 65536


class Guest:
    """A guest instance with no host functions, called straight through wasmtime.

    Go guests get WASI (and initialize themselves: their start function runs the Go runtime's
    ``_initialize``); the others import nothing.
    """

    def __init__(self, wasm: Path, language: str) -> None:
        self.language = language
        engine = wasmtime.Engine()
        self.store = wasmtime.Store(engine)
        linker = wasmtime.Linker(engine)
        module = wasmtime.Module.from_file(engine, str(wasm))
        if any(imported.module == "wasi_snapshot_preview1" for imported in module.imports):
            self.store.set_wasi(wasmtime.WasiConfig())
            linker.define_wasi()
        self.exports = linker.instantiate(self.store, module).exports(self.store)
        self.memory = self.exports["memory"]

    def call(self, name: str, *args: int) -> int:
        return self.exports[name](self.store, *args)

    def write(self, ptr: int, data: bytes) -> None:
        self.memory.write(self.store, data, ptr)

    def read(self, ptr: int, length: int) -> bytes:
        return bytes(self.memory.read(self.store, ptr, ptr + length))

    def memory_bytes(self) -> int:
        return self.memory.data_len(self.store)


@pytest.fixture(scope="module", params=["c", "zig", "go"])
def guest(request, tmp_path_factory, require_guest_toolchains):
    require_guest_toolchains(request.param)
    out_dir = tmp_path_factory.mktemp(f"sdk-memory-{request.param}")
    return Guest(build_guest(GUESTS / f"noop.{request.param}", out_dir), request.param)


def test_live_allocations_never_overlap(guest):
    sizes = [0, 1, 7, 8, 100, 4096, 70000]
    blocks = [(guest.call("alloc", size), size) for size in sizes]
    for index, (ptr, size) in enumerate(blocks):
        guest.write(ptr, bytes([index + 1]) * size)

    for index, (ptr, size) in enumerate(blocks):
        assert ptr != 0
        assert guest.read(ptr, size) == bytes([index + 1]) * size


def test_a_large_allocation_grows_memory(guest):
    before = guest.memory_bytes()
    ptr = guest.call("alloc", 3 * PAGE)
    guest.write(ptr + 3 * PAGE - 1, b"x")  # the last byte is addressable

    assert guest.memory_bytes() >= before + 2 * PAGE
    guest.call("dealloc", ptr, 3 * PAGE)


def test_freed_buffers_are_reused_so_memory_stays_flat(guest):
    for _ in range(50):  # warm up: let the allocator reach its steady state
        guest.call("dealloc", guest.call("alloc", 5000), 5000)
    steady = guest.memory_bytes()

    for _ in range(4000):  # a getter's buffer per record, freed by the guest: 20 MB in all
        ptr = guest.call("alloc", 5000)
        guest.write(ptr, b"y" * 5000)
        guest.call("dealloc", ptr, 5000)

    if guest.language == "go":  # the GC lets the heap grow before it collects, but it does collect
        assert guest.memory_bytes() < steady + 10_000_000
    else:  # free lists hand the same block back every time
        assert guest.memory_bytes() == steady


def test_the_error_helper_packs_pointer_length_and_the_error_bit(guest):
    packed = guest.call("fail") & 0xFFFF_FFFF_FFFF_FFFF
    ptr, length = packed >> 32, packed & 0xFFFF_FFFF

    assert length & 0x8000_0000
    assert guest.read(ptr, length & 0x7FFF_FFFF) == b"noop: failed on purpose"


def test_the_guest_declares_the_abi_version_the_host_implements(guest):
    from host_functions.kafka_connect.abi import ABI_VERSION

    assert guest.call("smt_abi_version") == ABI_VERSION


def test_success_is_zero(guest):
    assert guest.call("noop") == 0


def test_error_messages_live_in_allocated_buffers_the_host_can_dealloc(guest):
    for _ in range(20):  # warm up
        packed = guest.call("fail") & 0xFFFF_FFFF_FFFF_FFFF
        guest.call("dealloc", packed >> 32, packed & 0xFFFF_FFFF)
    steady = guest.memory_bytes()

    for _ in range(1000):  # the host deallocs with the error bit still in the length
        packed = guest.call("fail") & 0xFFFF_FFFF_FFFF_FFFF
        assert guest.read(packed >> 32, packed & 0x7FFF_FFFF) == b"noop: failed on purpose"
        guest.call("dealloc", packed >> 32, packed & 0xFFFF_FFFF)

    assert guest.memory_bytes() <= steady + (PAGE if guest.language == "go" else 0)
    assert guest.call("noop") == 0


def test_a_zero_byte_allocation_is_a_real_address_inside_memory(guest):
    ptr = guest.call("alloc", 0)

    assert 0 < ptr < guest.memory_bytes()
    guest.call("dealloc", ptr, 0)
