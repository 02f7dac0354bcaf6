"""Spark DDL column lists (``sink.value.schema``) parsed without a Spark session.

The pipeline file is checked before Spark starts, so a declared schema is
parsed here: ``id BIGINT NOT NULL, amount DECIMAL(10,2), tags ARRAY<STRING>,
address STRUCT<city: STRING, zip: STRING>``.  The types are those the table
sink writes (see :mod:`connectors.table.types`); names may be back-quoted.
Errors say where the text went wrong.
"""

from __future__ import annotations

import re

from pyspark.sql import types as T

__all__ = ["DdlError", "parse_columns"]

_NAMED = {
    "tinyint": T.ByteType(),
    "byte": T.ByteType(),
    "smallint": T.ShortType(),
    "short": T.ShortType(),
    "int": T.IntegerType(),
    "integer": T.IntegerType(),
    "bigint": T.LongType(),
    "long": T.LongType(),
    "float": T.FloatType(),
    "real": T.FloatType(),
    "double": T.DoubleType(),
    "boolean": T.BooleanType(),
    "string": T.StringType(),
    "binary": T.BinaryType(),
    "date": T.DateType(),
    "timestamp": T.TimestampType(),
}

_TOKEN = re.compile(r"\s*(`(?:[^`]|``)*`|[A-Za-z_][A-Za-z0-9_]*|\d+|[<>(),:])")


class DdlError(ValueError):
    """The text is not a column list this parser knows; the message says where."""


def parse_columns(text: str) -> T.StructType:
    """The ``StructType`` of a comma-separated column list; raises :class:`DdlError`."""
    parser = _Parser(text)
    columns = parser.fields(top_level=True)
    parser.expect_end()
    if not columns.fields:
        raise DdlError("no columns declared")
    return columns


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[int, str]] = []
        at = 0
        while at < len(text):
            if text[at:].strip() == "":
                break
            match = _TOKEN.match(text, at)
            if match is None:
                raise DdlError(f"unexpected {text[at:].strip()[:20]!r} at character {at + 1}")
            self.tokens.append((match.start(1), match.group(1)))
            at = match.end()
        self.position = 0

    def peek(self) -> str | None:
        return self.tokens[self.position][1] if self.position < len(self.tokens) else None

    def take(self) -> str:
        if self.position >= len(self.tokens):
            raise DdlError(f"'{self.text}' ends too early")
        token = self.tokens[self.position][1]
        self.position += 1
        return token

    def expect(self, wanted: str) -> None:
        if self.peek() is None:
            raise DdlError(f"expected '{wanted}' at the end of '{self.text}'")
        at = self.tokens[self.position][0] + 1
        token = self.take()
        if token.lower() != wanted:
            raise DdlError(f"expected '{wanted}' at character {at}, found '{token}'")

    def expect_end(self) -> None:
        if self.peek() is not None:
            at = self.tokens[self.position][0] + 1
            raise DdlError(f"unexpected '{self.peek()}' at character {at}")

    def fields(self, top_level: bool) -> T.StructType:
        fields = []
        while True:
            name = self.take()
            if name.startswith("`"):
                name = name[1:-1].replace("``", "`")
            if not top_level and self.peek() == ":":
                self.take()
            data_type = self.data_type()
            nullable = True
            if self.peek() is not None and self.peek().lower() == "not":
                self.take()
                self.expect("null")
                nullable = False
            if name in {f.name for f in fields}:
                raise DdlError(f"column '{name}' is declared twice")
            fields.append(T.StructField(name, data_type, nullable))
            if self.peek() != ",":
                return T.StructType(fields)
            self.take()

    def data_type(self) -> T.DataType:
        name = self.take().lower()
        if name in _NAMED:
            return _NAMED[name]
        if name in ("decimal", "dec", "numeric"):
            if self.peek() != "(":
                return T.DecimalType(10, 0)
            self.take()
            precision = int(self.take())
            scale = 0
            if self.peek() == ",":
                self.take()
                scale = int(self.take())
            self.expect(")")
            return T.DecimalType(precision, scale)
        if name == "array":
            self.expect("<")
            element = self.data_type()
            self.expect(">")
            return T.ArrayType(element, True)
        if name == "map":
            self.expect("<")
            key = self.data_type()
            self.expect(",")
            value = self.data_type()
            self.expect(">")
            return T.MapType(key, value, True)
        if name == "struct":
            self.expect("<")
            fields = self.fields(top_level=False)
            self.expect(">")
            return fields
        raise DdlError(f"unknown type '{name}'")
