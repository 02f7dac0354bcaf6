"""The JSON converter's compiled reader: envelope records decoded by Spark's ``from_json``, in the JVM.

Used by the pipeline's compiled path (:mod:`smt.compiled`).  A record takes
it only when Spark's reading is provably Kafka's:

- its bytes start with ``{"schema":<S>,"payload":`` for the exact schema
  text ``S`` (compact, as Kafka's JsonConverter writes it) and end with
  ``}``;
- its payload holds no backslash (so no escape: every string is its
  literal text), and the values Spark parsed, written back in their
  canonical forms (``Long.toString`` for an integer, ``Double.toString``
  for a double, the string between quotes, ``null``) in the schema's field
  order, give back the payload's bytes exactly.  The payload is then the
  object ``{"f1":t1,...}`` of exactly the schema's fields, once each, and
  each token ``ti`` is the canonical text of the value Spark holds, which
  Kafka reads as that very value.  That one check refuses every token Spark
  would coerce where Kafka reads another value or fails: a number in a
  string field (or the reverse), a float in an integer field, an integer
  out of range, ``"NaN"``, a missing, extra or repeated field, whitespace,
  invalid UTF-8, trailing text;
- no required field, and no field with a default, is null (Kafka fails the
  first and reads the second as its default).

Only structs of integer, ``float64``, boolean and string fields,
``Timestamp`` (in years 1900 to 9999) and ``Date``, and of structs of those
(one level: a Debezium envelope's ``before``/``after``/``source``) compile; any other schema
(``float32``, whose rounding the check cannot vouch for, included) takes the
Python path.  The payload is cut out of the record by byte offsets, not
characters: Spark's character offsets scan the whole record.
"""

from __future__ import annotations

from typing import Any

import orjson

from converters.json._codec import CodecOptions
from converters.json._schema_json import from_json_schema
from smt.compiled import CompiledRead, CompiledValue, NotCompilable
from smt.data import Type
from smt.data.logical import Date, Timestamp

__all__ = ["EnvelopeReader"]

_HEAD = '{"schema":'
_PAYLOAD = ',"payload":'

#: Spark SQL types (DDL) that read each Connect primitive.
_PRIMITIVES = {
    Type.INT8: "tinyint",
    Type.INT16: "smallint",
    Type.INT32: "int",
    Type.INT64: "bigint",
    Type.FLOAT64: "double",
    Type.BOOLEAN: "boolean",
    Type.STRING: "string",
}

# Kafka reads no non-numeric numbers (NaN, Infinity) nor any other leniency Jackson could allow.
_PARSE_OPTIONS = {"mode": "PERMISSIVE", "allowNonNumericNumbers": "false"}

#: Timestamps (ms) and dates (days) in 1900-01-01 .. 9999-12-31: both paths hold them alike.
_TIMESTAMP_RANGE = (-2_208_988_800_000, 253_402_300_799_999)
_DATE_RANGE = (-25_567, 2_932_896)


class EnvelopeReader:
    """Reads ``{"schema": ..., "payload": ...}`` records of known schema texts as Spark columns.

    ``functions`` is ``pyspark.sql.functions``, given by the caller (the converter itself runs without Spark).
    """

    def __init__(self, options: CodecOptions, functions: Any) -> None:
        self.options = options
        self.F = functions

    def schema_text(self, value: Any) -> Any:
        """Each record's schema object as compact text, where the record starts with it (see :meth:`read`),
        else null; ``value`` is binary."""
        F, text = self.F, value.cast("string")
        schema = F.from_json(text, "struct<schema:string>", {"mode": "PERMISSIVE"})["schema"]
        return F.when(text.startswith(F.concat(F.lit(_HEAD), schema, F.lit(_PAYLOAD))), schema)

    def read(self, value: Any, schema_text: str, parsed_as: Any) -> CompiledRead:
        """The records of ``value`` (a binary column) with schema ``schema_text``; raises NotCompilable.

        ``parsed_as`` is the column the caller gives :attr:`CompiledRead.parsed`, computed once.
        """
        schema = _compilable_struct(schema_text, self.options)
        F = self.F
        text = value.cast("string")
        prefix = f"{_HEAD}{schema_text}{_PAYLOAD}"
        start = len(prefix.encode("utf-8"))
        cut = value.substr(F.lit(start + 1), F.length(value) - start - 1).cast("string")
        framed = text.startswith(prefix) & text.endswith("}")
        parse_type = _struct_parse_type(schema)
        parsing = F.struct(
            framed.alias("framed"),
            F.when(framed, F.from_json(cut, f"struct<{parse_type}>", _PARSE_OPTIONS)).alias("value"),
            cut.alias("payload"),
        )
        # From here on, the framing, the parse and the payload as computed once (the caller's column).
        framed, parsed, payload = parsed_as["framed"], parsed_as["value"], parsed_as["payload"]
        # contains, not instr: instr walks the text character by character.
        guards = [~payload.contains("\\"), _rendered(F, schema, parsed) == payload]
        columns = {}
        for field in schema.fields:
            columns[field.name] = _field_column(F, field, parsed[field.name], guards)
        exact = framed
        for guard in guards:
            exact = exact & guard
        # Another "schema" key (spelled plainly or escaped) could replace S in a full parse.
        same_schema = framed & ~payload.contains("schema") & ~payload.contains("\\u")
        return CompiledRead(
            parsing,
            CompiledValue(schema, columns),
            F.coalesce(exact, F.lit(False)),
            F.coalesce(same_schema, F.lit(False)),
        )


def _compilable_struct(schema_text: str, options: CodecOptions) -> Any:
    """The Connect schema of ``schema_text`` if it is a struct the compiled path reads; raises NotCompilable."""
    try:
        schema = from_json_schema(orjson.loads(schema_text), options)
    except Exception as exc:  # the Python path reports it, record by record
        raise NotCompilable(f"the schema does not parse: {exc}") from None
    if schema is None or schema.type is not Type.STRUCT:
        raise NotCompilable("the value schema is not a struct")
    _check_names(schema)
    for field in schema.fields:
        if field.schema.type is Type.STRUCT:
            if field.schema.default is not None:
                raise NotCompilable(f"struct field '{field.name}' has a default")
            _check_names(field.schema)
            deeper = next((f.name for f in field.schema.fields if f.schema.type is Type.STRUCT), None)
            if deeper is not None:
                raise NotCompilable(f"field '{field.name}.{deeper}' nests a struct in a struct")
    return schema


def _check_names(schema: Any) -> None:
    seen = set()
    for field in schema.fields:
        if any(c in field.name for c in '"\\`') or any(ord(c) < 0x20 for c in field.name):
            raise NotCompilable(f"field '{field.name}' has a name JSON or Spark SQL would escape")
        if field.name.lower() in seen:
            raise NotCompilable(f"field '{field.name}' differs from another only in case, which Spark SQL ignores")
        seen.add(field.name.lower())


def _field_column(F: Any, field: Any, parsed: Any, guards: list[Any]) -> Any:
    """The value column of ``field`` (``parsed``: what Spark parsed), adding to ``guards`` the checks that
    Kafka reads the same value: a required field or one with a default is not null, a logical value is
    in range.  A struct field's checks hold where the struct is not null."""
    if field.schema.type is Type.STRUCT:
        inner: list[Any] = []
        children = [
            _field_column(F, child, parsed[child.name], inner).alias(child.name) for child in field.schema.fields
        ]
        guards.extend(parsed.isNull() | guard for guard in inner)
        if not field.schema.optional:
            guards.append(parsed.isNotNull())
        return F.when(parsed.isNotNull(), F.struct(*children))
    if not field.schema.optional or field.schema.default is not None:
        guards.append(parsed.isNotNull())
    column, in_range = _logical(F, field.schema.name, parsed)
    if in_range is not None:
        guards.append(column.isNull() | in_range)
    return column


def _rendered(F: Any, schema: Any, parsed: Any) -> Any:
    """The payload's text as Kafka's JsonConverter would write the values Spark parsed (see the module doc)."""
    parts = []
    for i, field in enumerate(schema.fields):
        parts.append(F.lit(("{" if i == 0 else ",") + f'"{field.name}":'))
        column = parsed[field.name]
        if field.schema.type is Type.STRUCT:
            token = F.when(column.isNotNull(), _rendered(F, field.schema, column))
        elif field.schema.type is Type.STRING:
            token = F.concat(F.lit('"'), column, F.lit('"'))
        else:
            token = column.cast("string")
        parts.append(F.coalesce(token, F.lit("null")))
    parts.append(F.lit("}"))
    return F.concat(*parts)


def _struct_parse_type(schema: Any) -> str:
    return ", ".join(f"`{f.name}`: {_parse_type(f.name, f.schema)}" for f in schema.fields)


def _parse_type(name: str, schema: Any) -> str:
    if schema.type is Type.STRUCT:  # named or not (Debezium's Value, Source): no logical type is a struct
        return f"struct<{_struct_parse_type(schema)}>"
    if schema.name == Timestamp.LOGICAL_NAME:
        return "bigint"
    if schema.name == Date.LOGICAL_NAME:
        return "int"
    if schema.name is not None:
        raise NotCompilable(f"field '{name}' has logical type {schema.name}")
    if schema.type not in _PRIMITIVES:
        raise NotCompilable(f"field '{name}' is a {schema.type.value}, not a primitive")
    return _PRIMITIVES[schema.type]


def _logical(F: Any, name: str | None, column: Any) -> tuple[Any, Any]:
    """The column's value for a logical type, and the range check of its encoded value."""
    if name == Timestamp.LOGICAL_NAME:
        low, high = _TIMESTAMP_RANGE
        return F.timestamp_millis(column), column.between(low, high)
    if name == Date.LOGICAL_NAME:
        low, high = _DATE_RANGE
        return F.date_from_unix_date(column), column.between(low, high)
    return column, None
