"""The JSON converter's compiled reader: envelope records decoded by Spark's ``from_json``, in the JVM.

Used by the pipeline's compiled path (:mod:`smt.compiled`).  A record takes
it only when Spark's reading is provably Kafka's:

- its bytes start with ``{"schema":<S>,"payload":`` for the exact schema
  text ``S`` (compact, as Kafka's JsonConverter writes it) and end with
  ``}``;
- the payload, parsed with the schema's Spark types and written back with
  ``to_json``, gives back the payload's text byte for byte.  That one check
  refuses every token Spark would coerce where Kafka reads another value or
  fails: a number in a string field (or the reverse), a float in an integer
  field, an integer out of range, ``"NaN"``, escapes, a missing or extra
  field, a duplicate key, whitespace, invalid UTF-8, trailing text;
- no required field, and no field with a default, is null (Kafka fails the
  first and reads the second as its default).

Only flat structs of primitive fields, ``Timestamp`` (in years 1900 to 9999)
and ``Date`` compile; any other schema takes the Python path.
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
    Type.FLOAT32: "float",
    Type.FLOAT64: "double",
    Type.BOOLEAN: "boolean",
    Type.STRING: "string",
}

# Kafka reads no non-numeric numbers (NaN, Infinity) nor any other leniency Jackson could allow.
_PARSE_OPTIONS = {"mode": "PERMISSIVE", "allowNonNumericNumbers": "false"}
_WRITE_OPTIONS = {"ignoreNullFields": "false"}

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

    def schema_text(self, text: Any) -> Any:
        """Each record's schema object as compact text (null when there is none)."""
        return self.F.from_json(text, "struct<schema:string>", {"mode": "PERMISSIVE"})["schema"]

    def read(self, text: Any, schema_text: str, parsed_as: Any) -> CompiledRead:
        """The records of ``text`` (a string column) with schema ``schema_text``; raises NotCompilable.

        ``parsed_as`` is the column the caller gives :attr:`CompiledRead.parsed`, computed once.
        """
        try:
            schema = from_json_schema(orjson.loads(schema_text), self.options)
        except Exception as exc:  # the Python path reports it, record by record
            raise NotCompilable(f"the schema does not parse: {exc}") from None
        if schema is None or schema.type is not Type.STRUCT:
            raise NotCompilable("the value schema is not a struct")
        F, guards = self.F, []
        parse_type = ", ".join(f"`{f.name.replace('`', '``')}`: {_parse_type(f.name, f.schema)}" for f in schema.fields)
        prefix = f"{_HEAD}{schema_text}{_PAYLOAD}"
        payload = text.substr(F.lit(len(prefix) + 1), F.length(text) - len(prefix) - 1)
        framed = text.startswith(prefix) & text.endswith("}")
        parsing = F.when(framed, F.from_json(payload, f"struct<{parse_type}>", _PARSE_OPTIONS))
        parsed = parsed_as
        guards.append(F.to_json(parsed, _WRITE_OPTIONS) == payload)
        columns = {}
        for field in schema.fields:
            column = parsed[field.name]
            if not field.schema.optional or field.schema.default is not None:
                guards.append(column.isNotNull())
            column, in_range = _logical(F, field.schema.name, column)
            if in_range is not None:
                guards.append(column.isNull() | in_range)
            columns[field.name] = column
        exact = framed
        for guard in guards:
            exact = exact & guard
        rest = text.substr(F.lit(len(prefix) + 1), F.length(text))
        # Another "schema" key (spelled plainly or escaped) could replace S in a full parse.
        same_schema = framed & ~rest.contains("schema") & ~rest.contains("\\u")
        return CompiledRead(
            parsing,
            CompiledValue(schema, columns),
            F.coalesce(exact, F.lit(False)),
            F.coalesce(same_schema, F.lit(False)),
        )


def _parse_type(name: str, schema: Any) -> str:
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
