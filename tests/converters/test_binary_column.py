"""binary_column: byte strings copied into one Arrow buffer as they are made."""

import pyarrow as pa
import pytest

from converters._binary import binary_column, with_nulls
from converters.json.converter import JsonConverter


def test_byte_strings_become_one_binary_array():
    column = binary_column(iter([b"ab", b"", b"\x00xyz"]), 3)
    assert column.type == pa.binary() and column.null_count == 0
    assert column.to_pylist() == [b"ab", b"", b"\x00xyz"]


def test_an_empty_column():
    assert binary_column(iter([]), 0).to_pylist() == []


def test_an_error_while_producing_propagates():
    def produce():
        yield b"a"
        raise TypeError("cannot write row 1")

    with pytest.raises(TypeError, match="cannot write row 1"):
        binary_column(produce(), 2)


def test_with_nulls_marks_rows_null_and_keeps_the_rest():
    column = with_nulls(binary_column(iter([b"a", b"null", b"c", b"null"]), 4), [1, 3])
    assert column.to_pylist() == [b"a", None, b"c", None] and column.null_count == 2
    assert column.validate(full=True) is None


def json_writer():
    converter = JsonConverter()
    converter.configure({"schemas.enable": "false"})
    return converter


def test_schemaless_json_column_writes_none_as_null_and_null_text_as_text():
    written = json_writer().from_connect_column(["t"] * 4, None, [None, {"a": None}, "null", [None]])
    assert written.to_pylist() == [None, b'{"a":null}', b'"null"', b"[null]"]


@pytest.mark.parametrize(
    "text, found",
    [
        (b"", False),
        (b"nul", False),
        (b"null", True),
        (b"xnull", True),
        (b"xxnull", True),
        (b"xxxnull", True),
        (b'{"a":1,"b":"nulL"}', False),
        (b'{"a":1,"b":null}', True),
        (b"nu ll" * 3, False),
    ],
)
def test_null_text_is_found_at_every_alignment(text, found):
    from converters.json.converter import _has_null_text

    assert _has_null_text(pa.py_buffer(text)) is found
