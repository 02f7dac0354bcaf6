"""Lines of text-file pieces: every line read once, by the piece it starts in, bytes kept exactly."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectors.file._lines import line_number, read_lines


def lines_by_python(content: bytes) -> list[bytes]:
    """The oracle: split on "\\n", drop one trailing "\\r" per line, no line after a final break."""
    if not content:
        return []
    lines = content.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


def read_in_pieces(path, size: int, cuts: list[int], chunk_bytes: int) -> list[bytes]:
    bounds = [0, *cuts, size]
    lines = []
    for start, end in zip(bounds, bounds[1:]):
        for array in read_lines(str(path), start, end, chunk_bytes):
            lines.extend(array.to_pylist())
    return lines


@settings(max_examples=400, deadline=None)
@given(
    content=st.binary(max_size=80).map(lambda b: bytes(b"ab\n\r\xff"[x % 5] for x in b)),
    cut_fractions=st.lists(st.floats(0, 1), max_size=4),
    chunk_bytes=st.sampled_from([1, 2, 3, 7, 64]),
)
def test_pieces_read_every_line_exactly_once(tmp_path_factory, content, cut_fractions, chunk_bytes):
    path = tmp_path_factory.mktemp("lines") / "f.txt"
    path.write_bytes(content)
    cuts = sorted(int(f * len(content)) for f in cut_fractions)
    assert read_in_pieces(path, len(content), cuts, chunk_bytes) == lines_by_python(content)


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"", []),
        (b"\n", [b""]),
        (b"a", [b"a"]),
        (b"a\r\nb\r\n", [b"a", b"b"]),
        (b"a\rb\n", [b"a\rb"]),  # a lone carriage return is part of the line
        (b"\xff\xfe\n\n", [b"\xff\xfe", b""]),
    ],
)
def test_line_breaks_and_bytes(tmp_path, content, expected):
    path = tmp_path / "f.txt"
    path.write_bytes(content)
    assert read_in_pieces(path, len(content), [], 8) == expected


def test_a_piece_that_starts_inside_a_line_leaves_it_to_the_piece_before(tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(b"first line\nsecond\nthird\n")
    assert [a.to_pylist() for a in read_lines(str(path), 3, 12)] == [[b"second"]]
    assert [a.to_pylist() for a in read_lines(str(path), 0, 3)] == [[b"first line"]]


@settings(max_examples=200, deadline=None)
@given(
    content=st.binary(max_size=60).map(lambda b: bytes(b"ab\n"[x % 3] for x in b)),
    cut_fraction=st.floats(0, 1),
    chunk_bytes=st.sampled_from([1, 2, 5, 64]),
)
def test_line_number_names_each_owned_line_of_a_piece_as_an_editor_counts(
    tmp_path_factory, content, cut_fraction, chunk_bytes
):
    path = tmp_path_factory.mktemp("lines") / "f.txt"
    path.write_bytes(content)
    start = int(cut_fraction * len(content))
    owned = [line for array in read_lines(str(path), start, len(content), chunk_bytes) for line in array.to_pylist()]
    every = lines_by_python(content)
    numbers = [line_number(str(path), start, index, chunk_bytes) for index in range(len(owned))]
    assert [every[number - 1] for number in numbers] == owned
    assert numbers == list(range(len(every) - len(owned) + 1, len(every) + 1))
