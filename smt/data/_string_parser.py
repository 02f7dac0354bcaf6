"""The tokenizer and recursive parser behind :func:`smt.data.values.parse_string`.

A port of the grammar of Kafka's ``Values.ValueParser``: the text is split on
the unescaped delimiters ``: , { } [ ] "``; arrays and maps hold quoted
strings, numbers, booleans, ``null`` and ISO temporal literals; an embedded
token that is none of these makes the whole text a plain string.

Three deliberate differences, so that no header text is silently cut short
and every parsed value fits its schema: a top-level value followed by more
non-blank text (``1,2``) is the string ``"1,2"`` where Kafka keeps just
``1``; ``\\"`` and ``\\\\`` inside a quoted string are unescaped, mirroring how
values are printed; and an array or map holding ``null`` gets an optional
element schema (Kafka's is required, which its own validation then rejects).
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import re
import struct as _struct
from typing import Any

from smt.data.builder import SchemaBuilder
from smt.data.logical import Date, Decimal, Time, Timestamp
from smt.data.nesting import MAX_NESTING_DEPTH, NestingTooDeep
from smt.data.schema import Schema, Type
from smt.errors import DataError

_DELIMITERS = frozenset(':,{}[]"')
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\Z")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})\Z")
_TIME = re.compile(r"(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z\Z")
_TIMESTAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z\Z")
_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1
_INT_TYPES = (
    (Schema.INT8_SCHEMA, 1 << 7),
    (Schema.INT16_SCHEMA, 1 << 15),
    (Schema.INT32_SCHEMA, 1 << 31),
    (Schema.INT64_SCHEMA, 1 << 63),
)
_NUMERIC_ORDER = [Type.INT8, Type.INT16, Type.INT32, Type.INT64, Type.FLOAT32, Type.FLOAT64]

Parsed = "tuple[Schema | None, Any] | None"


def tokenize(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each token: runs between delimiters, and each delimiter."""
    tokens: list[tuple[int, int]] = []
    start = 0
    escaped = False
    for i, char in enumerate(text):
        if char == "\\":
            escaped = not escaped
            continue
        if char in _DELIMITERS and not escaped:
            if start < i:
                tokens.append((start, i))
            tokens.append((i, i + 1))
            start = i + 1
        escaped = False
    if start < len(text):
        tokens.append((start, len(text)))
    return tokens


class _Tokens:
    def __init__(self, text: str) -> None:
        self.text = text
        self.spans = tokenize(text)
        self.pos = 0
        #: Arrays and maps open around the token being parsed.
        self.depth = 0

    def enter(self) -> None:
        """One more array or map open; past the nesting limit the text is refused, not read as a string."""
        self.depth += 1
        if self.depth > MAX_NESTING_DEPTH:
            raise NestingTooDeep("text")

    def has_next(self) -> bool:
        return self.pos < len(self.spans)

    def token(self, index: int) -> str:
        start, end = self.spans[index]
        return self.text[start:end]

    def next(self) -> str:
        token = self.token(self.pos)
        self.pos += 1
        return token

    def next_n(self, n: int) -> str | None:
        """The raw text of the next ``n`` tokens, consumed; None (nothing consumed) if fewer."""
        if self.pos + n > len(self.spans):
            return None
        start, end = self.spans[self.pos][0], self.spans[self.pos + n - 1][1]
        self.pos += n
        return self.text[start:end]

    def skip_blank(self) -> None:
        while self.pos < len(self.spans) - 1 and not self.token(self.pos).strip():
            self.pos += 1

    def can_consume(self, expected: str) -> bool:
        """Consume the next non-blank token when, trimmed, it is ``expected``."""
        if not self.has_next():
            return False
        self.skip_blank()
        if self.token(self.pos).strip() == expected:
            self.pos += 1
            return True
        return False

    def only_blank_left(self) -> bool:
        return all(not self.token(i).strip() for i in range(self.pos, len(self.spans)))


def parse_text(text: str) -> tuple[Schema | None, Any]:
    """``(schema, value)`` for non-empty ``text``; see :func:`smt.data.values.parse_string`."""
    tokens = _Tokens(text)
    parsed = _parse(tokens, embedded=False)
    if not tokens.only_blank_left():
        return Schema.STRING_SCHEMA, text
    return parsed if parsed is not None else (None, None)


def _single_literal(tokens: _Tokens, embedded: bool, literal: str) -> bool:
    start = tokens.pos
    if tokens.can_consume(literal) and (embedded or not tokens.has_next()):
        return True
    tokens.pos = start
    return False


def _parse(tokens: _Tokens, embedded: bool):
    if not tokens.has_next():
        return None
    if embedded and tokens.can_consume('"'):
        return _parse_quoted(tokens)
    if _single_literal(tokens, embedded, "null"):
        return None
    if _single_literal(tokens, embedded, "true"):
        return Schema.BOOLEAN_SCHEMA, True
    if _single_literal(tokens, embedded, "false"):
        return Schema.BOOLEAN_SCHEMA, False
    start, depth = tokens.pos, tokens.depth
    try:
        if tokens.can_consume("["):
            tokens.enter()
            return _parse_array(tokens)
        if tokens.can_consume("{"):
            tokens.enter()
            return _parse_map(tokens)
    except NestingTooDeep:
        raise
    except DataError:
        # Not a well-formed array or map: the text is a string after all.
        tokens.pos, tokens.depth = start, depth
    tokens.skip_blank()
    token = tokens.next()
    if not token.strip():
        return Schema.STRING_SCHEMA, token
    return _parse_token(tokens, embedded, token.strip())


def _parse_token(tokens: _Tokens, embedded: bool, token: str):
    first = token[0]
    if first.isdigit():
        temporal = _parse_multi_token_temporal(tokens, token)
        if temporal is not None:
            return temporal
    if first.isdigit() or first in "+-":
        number = _parse_number(token)
        if number is not None:
            return number
    if embedded:
        raise DataError("Failed to parse embedded value")
    tokens.pos = len(tokens.spans)
    return Schema.STRING_SCHEMA, tokens.text


def _parse_quoted(tokens: _Tokens):
    parts: list[str] = []
    while tokens.has_next():
        token = tokens.next()
        if token == '"':
            break
        parts.append(token)
    content = "".join(parts)
    temporal = _parse_temporal(content)
    if temporal is not None:
        return temporal
    return Schema.STRING_SCHEMA, content.replace('\\"', '"').replace("\\\\", "\\")


def _parse_array(tokens: _Tokens):
    values: list[Any] = []
    merger = _SchemaMerger()
    while tokens.has_next():
        if tokens.can_consume("]"):
            tokens.depth -= 1
            if merger.common is None:
                return Schema(Type.ARRAY), values
            schema = SchemaBuilder.array(merger.common).build()
            return schema, [_align(merger.common, v) for v in values]
        if tokens.can_consume(","):
            raise DataError(f"Unable to parse an empty array element: {tokens.text}")
        element = _parse(tokens, embedded=True)
        merger.merge(element)
        values.append(element[1] if element is not None else None)
        mark = tokens.pos
        if tokens.can_consume("]"):
            tokens.pos = mark
        elif not tokens.can_consume(","):
            raise DataError("Array elements missing ',' delimiter")
    raise DataError(f"Array is missing terminating ']': {tokens.text}")


def _parse_map(tokens: _Tokens):
    entries: dict[Any, Any] = {}
    keys, items = _SchemaMerger(), _SchemaMerger()
    while tokens.has_next():
        if tokens.can_consume("}"):
            tokens.depth -= 1
            return _map_result(keys.common, items.common, entries)
        if tokens.can_consume(","):
            raise DataError(f"Unable to parse a map entry with no key or value: {tokens.text}")
        key = _parse(tokens, embedded=True)
        if key is None or key[1] is None:
            raise DataError(f"Map entry may not have a null key: {tokens.text}")
        if not tokens.can_consume(":"):
            raise DataError(f"Map entry is missing ':' in {tokens.text}")
        item = _parse(tokens, embedded=True)
        entries[key[1]] = item[1] if item is not None else None
        tokens.can_consume(",")
        keys.merge(key)
        items.merge(item)
    raise DataError(f"Map is missing terminating '}}': {tokens.text}")


def _map_result(key_schema: Schema | None, value_schema: Schema | None, entries: dict):
    if key_schema is None:
        return Schema(Type.MAP), entries
    aligned = {
        _align(key_schema, k): (_align(value_schema, v) if value_schema is not None else v) for k, v in entries.items()
    }
    return Schema(Type.MAP, key_schema=key_schema, value_schema=value_schema), aligned


def _align(schema: Schema, value: Any) -> Any:
    if value is not None and schema.type in (Type.FLOAT32, Type.FLOAT64) and isinstance(value, int):
        return float(value)
    return value


class _SchemaMerger:
    """The common schema of parsed elements (Kafka's ``SchemaMerger``).

    Numbers widen to the larger numeric type; anything else must match
    exactly; a named (logical) schema only merges with an equal one.
    """

    def __init__(self) -> None:
        self._common: Schema | None = None
        self.compatible = True
        self.saw_null = False

    @property
    def common(self) -> Schema | None:
        if self._common is not None and self.saw_null and not self._common.optional:
            return SchemaBuilder.copy_of(self._common).optional().build()
        return self._common

    def merge(self, parsed) -> None:
        if parsed is None or parsed[1] is None:
            self.saw_null = True
            return
        if parsed[0] is None or not self.compatible:
            return
        schema = parsed[0]
        if self._common is None:
            self._common = schema
            return
        self._common = _merge(self._common, schema)
        self.compatible = self._common is not None


def _merge(previous: Schema, new: Schema) -> Schema | None:
    if previous.name or new.name:
        return previous if previous == new else None
    if previous.type is not new.type:
        if previous.type in _NUMERIC_ORDER and new.type in _NUMERIC_ORDER:
            wider = max(_NUMERIC_ORDER.index(previous.type), _NUMERIC_ORDER.index(new.type))
            return previous if _NUMERIC_ORDER.index(previous.type) == wider else new
        return None
    if previous.optional == new.optional:
        return previous
    return previous if previous == new else None


def _parse_multi_token_temporal(tokens: _Tokens, token: str):
    # An unescaped ':' is a delimiter, so a time or timestamp arrives as 5 tokens.
    mark = tokens.pos
    remainder = tokens.next_n(4)
    if remainder is not None:
        temporal = _parse_temporal(token + remainder)
        if temporal is not None:
            return temporal
    tokens.pos = mark
    return _parse_temporal(token)


def _parse_temporal(text: str):
    text = text.replace("\\:", ":")
    try:
        match = _TIMESTAMP.match(text)
        if match:
            y, mo, d, h, mi, s, ms = map(int, match.groups())
            value = _dt.datetime(y, mo, d, h, mi, s, ms * 1000, tzinfo=_dt.timezone.utc)
            return Timestamp.SCHEMA, value
        match = _TIME.match(text)
        if match:
            h, mi, s, ms = map(int, match.groups())
            return Time.SCHEMA, _dt.time(h, mi, s, ms * 1000)
        match = _DATE.match(text)
        if match:
            return Date.SCHEMA, _dt.date(*map(int, match.groups()))
    except ValueError:
        return None  # digits in the right places but not a real date or time
    return None


def _parse_number(token: str):
    if not _NUMBER.match(token):
        return None
    number = _decimal.Decimal(token)
    exponent = number.as_tuple().exponent
    if number == number.to_integral_value():
        integral = int(number)
        if _LONG_MIN <= integral <= _LONG_MAX:
            for schema, bound in _INT_TYPES:
                if -bound <= integral < bound:
                    return schema, integral
    scale = -exponent
    if scale != 0:
        as_float = float(number)
        if _fits_float32(as_float):
            return Schema.FLOAT32_SCHEMA, as_float
        if as_float not in (float("inf"), float("-inf")):
            return Schema.FLOAT64_SCHEMA, as_float
    return Decimal.schema(scale), number


def _fits_float32(value: float) -> bool:
    try:
        _struct.pack("<f", value)
    except OverflowError:
        return False
    return True
