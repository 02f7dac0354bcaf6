"""Java ``.properties`` files, read with the rules of ``java.util.Properties.load``.

Pipelines are written as properties files, exactly like Kafka Connect's, so
they must mean here what they mean to Java (checked against a real JVM in
``tests/smt/test_properties.py``):

* A *natural* line ends at ``\\n``, ``\\r``, ``\\r\\n`` or the end of input.
  A *logical* line continues onto the next natural line when it ends with an
  odd number of backslashes; the backslash, the line break and the next
  line's leading white space are dropped.  A logical line whose first
  character is ``#`` or ``!`` (after white space) is a comment; a continued
  line is not checked, so ``#`` there is content.  Blank lines are ignored.
* White space means space, tab and form feed only.
* The key runs to the first unescaped ``=``, ``:`` or white space.  Then
  white space, at most ONE ``=`` or ``:``, and white space again are skipped
  (``key = = v`` gives ``= v``); the rest is the value, trailing white space
  kept.  A key alone maps to ``""``; the last duplicate wins.
* Escapes: ``\\t \\n \\r \\f`` and ``\\uXXXX`` (a malformed one is an error);
  any other escaped character stands for itself (``\\=`` ``\\:`` ``\\ ``
  ``\\\\``; ``\\a`` is ``a``).

Files are decoded as UTF-8 (a leading byte-order mark is dropped).  Java's
``Properties.load(InputStream)`` reads ISO-8859-1 instead; we deliberately
read UTF-8, as ``Properties.load(Reader)`` with a UTF-8 reader does, because
the files people write today are UTF-8.
"""

from __future__ import annotations

import bisect
import os
from typing import Any, Iterator, Mapping

from smt.errors import ConfigError, ConfigProblem

__all__ = ["Properties", "PropertiesError", "with_inline_comment_hints", "load_properties", "parse_properties"]

#: Added to the reason of a problem whose value holds `` #``: a comment written after a value.
INLINE_COMMENT_HINT = (
    "; note: .properties files have no inline comments, so everything after '=' is the value, "
    "' #...' included: put the comment on a line of its own"
)

_WHITE_SPACE = " \t\f"
_LINE_BREAKS = "\r\n"
_SEPARATORS = "=:"
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


class PropertiesError(ConfigError):
    """A properties file cannot be read; the message names the file and line."""

    def __init__(self, source: str, reason: str, line: int | None = None) -> None:
        self.source = source
        self.line = line
        where = source if line is None else f"{source}, line {line}"
        super().__init__(ConfigProblem(where, reason))


class Properties(dict):
    """The properties of a file (a ``dict``), and the keys it sets more than once."""

    def __init__(self) -> None:
        super().__init__()
        #: Key -> the lines setting it, for each key set more than once (the last line wins, as in Java).
        self.duplicates: dict[str, list[int]] = {}


def with_inline_comment_hints(error: ConfigError, props: Mapping[str, Any]) -> ConfigError:
    """``error`` with :data:`INLINE_COMMENT_HINT` added to each problem whose value in ``props`` holds `` #``.

    ``key=value   # note`` is a value of ``value   # note`` in Java: the key's
    check fails on a comment the user never meant as part of the value.
    """
    problems = [
        ConfigProblem(p.key, p.reason + INLINE_COMMENT_HINT, p.value) if _has_inline_comment(props.get(p.key)) else p
        for p in error.problems
    ]
    if problems == list(error.problems):
        return error
    hinted = ConfigError(problems)
    hinted.notices = error.notices
    return hinted


def _has_inline_comment(value: Any) -> bool:
    return isinstance(value, str) and any(f"{space}#" in value for space in _WHITE_SPACE)


def load_properties(path: str | os.PathLike[str]) -> Properties:
    """The properties in the UTF-8 file at ``path``.

    Raises :class:`PropertiesError` naming the path when it cannot be read or
    decoded, or naming the path and line when its content is malformed.
    """
    source = os.fspath(path)
    try:
        with open(source, "rb") as file:
            data = file.read()
    except OSError as exc:
        reason = f"cannot read properties file: {exc.strerror or exc}"
        raise PropertiesError(source, reason) from exc
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8-sig")
        line = _LineIndex(before).line_of(len(before))
        raise PropertiesError(source, f"not valid UTF-8: {exc.reason}", line) from exc
    return parse_properties(text, source=source)


def parse_properties(text: str, source: str = "<string>") -> Properties:
    """The properties in ``text``; ``source`` names it in error messages."""
    lines = _LineIndex(text)
    properties = Properties()
    first_lines: dict[str, int] = {}
    for chars, offsets in _logical_lines(text):
        key_end, value_start = _split_key_value(chars)
        try:
            key = _unescape(chars, 0, key_end)
            value = _unescape(chars, value_start, len(chars))
        except _MalformedEscape as exc:
            line = lines.line_of(offsets[exc.index])
            raise PropertiesError(source, str(exc), line) from None
        if key in properties:
            where = lines.line_of(offsets[0]) if offsets else 0
            properties.duplicates.setdefault(key, [first_lines[key]]).append(where)
        else:
            first_lines[key] = lines.line_of(offsets[0]) if offsets else 0
        properties[key] = value
    return properties


def _logical_lines(text: str) -> Iterator[tuple[str, list[int]]]:
    """Each logical line's characters and, for each, its offset in ``text``.

    A port of the JDK 17 ``Properties.LineReader`` state machine: its quirks
    (a blank line ends a continuation; a backslash at the very end of input
    is dropped) are the ones Java users rely on without knowing it.
    """
    chars: list[str] = []
    offsets: list[int] = []
    skip_white_space = True
    continued = False  # just crossed an escaped line break
    preceding_backslash = False
    pos, end = 0, len(text)
    while pos < end:
        c = text[pos]
        pos += 1
        if skip_white_space:
            if c in _WHITE_SPACE or (not continued and c in _LINE_BREAKS):
                continue
            skip_white_space = continued = False
        if not chars and c in "#!":
            while pos < end and text[pos] not in _LINE_BREAKS:
                pos += 1
            skip_white_space = True
            continue
        if c not in _LINE_BREAKS:
            chars.append(c)
            offsets.append(pos - 1)
            preceding_backslash = not preceding_backslash if c == "\\" else False
            continue
        if not chars:
            skip_white_space = True
            continue
        if preceding_backslash:
            if pos == end:  # an escaped line break ends the input: no next line
                break
            del chars[-1], offsets[-1]
            if c == "\r" and text[pos] == "\n":
                pos += 1
            skip_white_space = continued = True
            preceding_backslash = False
            continue
        yield "".join(chars), offsets
        chars, offsets = [], []
        skip_white_space = True
    if chars:
        if preceding_backslash:  # Java drops a backslash that ends the input
            del chars[-1], offsets[-1]
        yield "".join(chars), offsets


def _split_key_value(line: str) -> tuple[int, int]:
    """Where the key ends and the value starts (Java's one-separator rule)."""
    key_end, limit = 0, len(line)
    value_start = limit
    has_separator = False
    preceding_backslash = False
    while key_end < limit:
        c = line[key_end]
        if not preceding_backslash and (c in _SEPARATORS or c in _WHITE_SPACE):
            value_start = key_end + 1
            has_separator = c in _SEPARATORS
            break
        preceding_backslash = not preceding_backslash if c == "\\" else False
        key_end += 1
    while value_start < limit:
        c = line[value_start]
        if c not in _WHITE_SPACE:
            if has_separator or c not in _SEPARATORS:
                break
            has_separator = True
        value_start += 1
    return key_end, value_start


class _MalformedEscape(ValueError):
    def __init__(self, reason: str, index: int) -> None:
        super().__init__(reason)
        self.index = index


def _unescape(line: str, start: int, end: int) -> str:
    """``line[start:end]`` with its backslash escapes resolved."""
    if "\\" not in line[start:end]:
        return line[start:end]
    out: list[str] = []
    surrogates = False
    pos = start
    while pos < end:
        c = line[pos]
        pos += 1
        if c != "\\":
            out.append(c)
            continue
        # The line reader never leaves an unescaped backslash last, but a key
        # ends where its value's separator starts: guard anyway.
        c = line[pos] if pos < end else ""
        pos += 1
        if c != "u":
            out.append(_ESCAPES.get(c, c))
            continue
        digits = line[pos : pos + 4] if pos + 4 <= end else line[pos:end]
        if len(digits) < 4 or not _HEX_DIGITS.issuperset(digits):
            raise _MalformedEscape(f"malformed \\uxxxx escape '\\u{digits}'", pos - 2)
        code_unit = int(digits, 16)
        surrogates = surrogates or 0xD800 <= code_unit <= 0xDFFF
        out.append(chr(code_unit))
        pos += 4
    text = "".join(out)
    if surrogates:
        # \uD83D\uDE00 are two UTF-16 code units of one character, as in Java.
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return text


class _LineIndex:
    """Maps an offset in the text to its 1-based natural line number."""

    def __init__(self, text: str) -> None:
        self._starts = [0]
        for index, c in enumerate(text):
            if c == "\n" or (c == "\r" and text[index + 1 : index + 2] != "\n"):
                self._starts.append(index + 1)

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)
