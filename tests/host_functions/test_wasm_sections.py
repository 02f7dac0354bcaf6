"""host_functions.wasm_sections: a module's sections read and written back, LEB128 numbers both ways."""

import pytest
import wasmtime

from host_functions.wasm_sections import MAGIC, WasmFormatError, encode_section, encode_uleb, read_uleb, sections

MODULE = wasmtime.wat2wasm(
    """(module $named
      (memory (export "memory") 1)
      (func $f (export "f") (result i32) (i32.const 7))
      (data (i32.const 0) "x"))"""
)


def test_sections_written_back_give_the_same_module():
    parts = list(sections(MODULE))

    assert MODULE.startswith(MAGIC)
    assert [section_id for section_id, _ in parts][:2] == [1, 3]  # type, function: the binary's fixed order
    assert MAGIC + b"".join(encode_section(section_id, payload) for section_id, payload in parts) == MODULE


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 624485, 2**32 - 1, 2**64 - 1])
def test_uleb_numbers_read_back_what_was_written(value):
    data = b"\xff" + encode_uleb(value) + b"tail"

    assert read_uleb(data, 1) == (value, len(data) - 4)


def test_uleb_has_the_spec_example_encoding():
    assert encode_uleb(624485) == bytes([0xE5, 0x8E, 0x26])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (MODULE + b"\x00\x05ab", "truncated section"),
        (MODULE + b"\x00\x80", "truncated LEB128 number"),
    ],
)
def test_truncated_modules_are_named(data, message):
    with pytest.raises(WasmFormatError, match=message):
        list(sections(data))
