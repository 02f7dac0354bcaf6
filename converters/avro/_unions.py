"""Avro unions other than ``[null, T]``, as Confluent's AvroData maps them.

A union becomes a STRUCT named ``io.confluent.connect.avro.Union`` with one
optional field per non-null branch, named by the branch's type (``int``,
``string``, ``array``, ...) or, for records, enums and fixed, by its simple
name; a value has exactly one field set.  The parameter
``connect.avro.union.<field>`` records the branch (``record:ns.Name`` for
named types), so writes pick the same branch again (fastavro's tuple
notation) and reads can tell named branches apart (fastavro's
``return_named_type``).
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import uuid
from typing import Any, Callable

from smt.data import Decimal, Schema, SchemaBuilder, Struct, Type
from smt.errors import DataError

UNION_NAME = "io.confluent.connect.avro.Union"
BRANCH_PARAMETER = "connect.avro.union."
_NAMED = ("record", "enum", "fixed")
_INT32 = 1 << 31


def is_union(schema: Schema | None) -> bool:
    return schema is not None and schema.type is Type.STRUCT and schema.name == UNION_NAME


def union_to_connect(
    branches: list, namespace: str | None, optional: bool, to_connect: Callable, full_name: Callable
) -> Schema:
    """The union struct for ``branches`` (``to_connect(branch)`` maps one branch)."""
    builder = SchemaBuilder.struct().name(UNION_NAME)
    for branch in branches:
        if branch == "null":
            continue
        field_name, branch_id = _branch_identity(branch, namespace, full_name)
        builder.field(field_name, to_connect(branch))
        builder.parameter(BRANCH_PARAMETER + field_name, branch_id)
    if optional or "null" in branches:
        builder.optional()
    return builder.build()


def _branch_identity(branch: Any, namespace: str | None, full_name: Callable) -> tuple[str, str]:
    if isinstance(branch, str):
        if "." in branch or branch not in _PRIMITIVE_NAMES:
            name = branch if "." in branch or not namespace else f"{namespace}.{branch}"
            return name.rsplit(".", 1)[-1], f"named:{name}"
        return branch, branch
    kind = branch["type"]
    if kind in _NAMED:
        name = full_name(branch, namespace)
        return name.rsplit(".", 1)[-1], f"{kind}:{name}"
    return str(kind), str(kind)


_PRIMITIVE_NAMES = {"boolean", "int", "long", "float", "double", "bytes", "string"}


def union_reader(schema: Schema, reader_for: Callable) -> Callable[[Any], Any]:
    """Turns what fastavro read for the union (a value, or a ``(name, value)`` pair) into the struct."""
    size = len(schema.fields)
    by_name: dict[str, tuple[int, Callable]] = {}
    branches: list[tuple[int, Schema, Callable]] = []
    for field in schema.fields:
        read = reader_for(field.schema)
        branch_id = schema.parameters.get(BRANCH_PARAMETER + field.name, field.name)
        if ":" in branch_id:
            by_name[branch_id.split(":", 1)[1]] = (field.index, read)
        branches.append((field.index, field.schema, read))

    def read_union(value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, tuple):
            name, value = value
            index, read = by_name[name]
        else:
            index, read = _pick_branch(branches, value)
        values: list[Any] = [None] * size
        values[index] = read(value)
        return Struct.from_values(schema, values, validate=False)

    return read_union


def _pick_branch(branches: list, value: Any) -> tuple[int, Callable]:
    for index, branch_schema, read in branches:
        if _accepts(branch_schema, value):
            return index, read
    raise DataError(f"no branch of the Avro union fits the value {value!r}")


def _accepts(schema: Schema, value: Any) -> bool:
    name, type_ = schema.name, schema.type
    if name == Decimal.LOGICAL_NAME:
        return isinstance(value, _decimal.Decimal)
    if name and name.startswith("org.apache.kafka.connect.data."):
        expected = {"Date": _dt.date, "Time": _dt.time, "Timestamp": _dt.datetime}[name.rsplit(".", 1)[-1]]
        if expected is _dt.date:
            return isinstance(value, _dt.date) and not isinstance(value, _dt.datetime)
        return isinstance(value, expected)
    if isinstance(value, bool):
        return type_ is Type.BOOLEAN
    if isinstance(value, int):
        if type_ in (Type.INT8, Type.INT16, Type.INT32):
            return -_INT32 <= value < _INT32
        return type_ is Type.INT64
    if isinstance(value, float):
        return type_ in (Type.FLOAT32, Type.FLOAT64)
    if isinstance(value, (str, uuid.UUID)):
        return type_ is Type.STRING
    if isinstance(value, (bytes, bytearray)):
        return type_ is Type.BYTES
    if isinstance(value, list):
        return type_ is Type.ARRAY or type_ is Type.MAP  # MAP: an array of MapEntry records
    if isinstance(value, dict):
        return type_ is Type.STRUCT or type_ is Type.MAP
    return False


def union_writer(schema: Schema, writer_for: Callable) -> Callable[[Any], Any]:
    """Turns a union struct into the branch value fastavro writes (named branches as ``(name, value)``)."""
    branches = []
    for field in schema.fields:
        branch_id = schema.parameters.get(BRANCH_PARAMETER + field.name, field.name)
        named = branch_id.split(":", 1)[1] if ":" in branch_id else None
        branches.append((field.index, named, writer_for(field.schema)))

    def write_union(value: Any) -> Any:
        if not isinstance(value, Struct):
            return value  # a plain value: fastavro picks the branch
        raw = value._values
        for index, named, write in branches:
            if raw[index] is not None:
                written = write(raw[index])
                return (named, written) if named else written
        return None

    return write_union


def union_to_avro(schema: Schema, to_avro_required: Callable) -> list:
    """The Avro union for a union struct (``null`` first when the struct is optional)."""
    union: list = ["null"] if schema.optional else []
    for field in schema.fields:
        union.append(to_avro_required(field.schema))
    return union
