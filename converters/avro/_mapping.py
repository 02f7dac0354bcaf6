"""Avro schemas and values to and from the Connect data model.

Avro → Connect: records are structs (named by their full name), ``int`` is
INT32 (INT8/INT16 when the schema carries Confluent's ``connect.type``),
``long`` INT64, ``float``/``double`` FLOAT32/FLOAT64, ``bytes``/``fixed``
BYTES, ``string``/``enum`` STRING, arrays and maps as such, ``[null, T]``
unions an optional T (other unions: see ``_unions``).  Logical types: decimal → Decimal, date → Date,
time-millis/-micros → Time, timestamp-millis/-micros → Timestamp (``-micros``
keep their microseconds in Python and are marked by the parameter
``connect.avro.logicalType``), uuid → STRING.

Connect → Avro writes the reverse; structs without a name become records
named ``ConnectDefault``, ``ConnectDefault2``, ...; maps whose keys are not
strings become arrays of ``{key, value}`` records, as Confluent's AvroData does.
"""

from __future__ import annotations

import uuid
from typing import Any, Callable

from converters.avro._unions import is_union, union_reader, union_to_avro, union_to_connect, union_writer
from smt.data import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp, Type
from smt.data.schema import SchemaMatch
from smt.errors import DataError

LOGICAL_PARAMETER = "connect.avro.logicalType"
PRECISION_PARAMETER = "connect.decimal.precision"
ENUM_PARAMETER = "io.confluent.connect.avro.Enum"
FIXED_SIZE_PARAMETER = "connect.avro.fixed.size"
_PRIMITIVES = {
    "boolean": Type.BOOLEAN,
    "int": Type.INT32,
    "long": Type.INT64,
    "float": Type.FLOAT32,
    "double": Type.FLOAT64,
    "bytes": Type.BYTES,
    "string": Type.STRING,
}
_CONNECT_TYPES = {"int8": Type.INT8, "int16": Type.INT16}

Convert = Callable[[Any], Any]


def _identity(value: Any) -> Any:
    return value


# ------------------------------------------------------------ Avro → Connect --


class _AvroNames:
    """Named Avro types seen so far, to resolve references by (full) name."""

    def __init__(self) -> None:
        self.named: dict[str, Any] = {}
        self.in_progress: set[str] = set()


def _full_name(node: dict, namespace: str | None) -> str:
    name = node["name"]
    if "." in name:
        return name
    space = node.get("namespace", namespace)
    return f"{space}.{name}" if space else name


def to_connect_schema(avro: Any) -> Schema:
    """The Connect schema for a (JSON-decoded) Avro schema."""
    return _to_connect(avro, _AvroNames(), None, optional=False)


def _to_connect(avro: Any, names: _AvroNames, namespace: str | None, optional: bool) -> Schema:
    if isinstance(avro, list):
        return _union_to_connect(avro, names, namespace, optional)
    if isinstance(avro, str):
        if avro in _PRIMITIVES:
            return _finish(SchemaBuilder(_PRIMITIVES[avro]), optional)
        return _reference_to_connect(avro, names, namespace, optional)
    if not isinstance(avro, dict) or "type" not in avro:
        raise DataError(f"not an Avro schema: {avro!r}")
    logical = avro.get("logicalType")
    if logical is not None:
        builder = _logical_builder(avro, logical)
        if builder is not None:
            return _finish(builder, optional)
    type_name = avro["type"]
    if isinstance(type_name, (dict, list)):
        return _to_connect(type_name, names, namespace, optional)
    if type_name in _PRIMITIVES:
        connect_type = _CONNECT_TYPES.get(avro.get("connect.type"), _PRIMITIVES[type_name])
        return _finish(SchemaBuilder(connect_type), optional)
    if type_name == "record":
        return _record_to_connect(avro, names, namespace, optional)
    if type_name == "enum":
        full = _full_name(avro, namespace)
        names.named[full] = avro
        # Confluent's parameters: the enum's name, then one per symbol, in order.
        builder = SchemaBuilder.string().name(full).parameter(ENUM_PARAMETER, full)
        for symbol in avro["symbols"]:
            builder.parameter(f"{ENUM_PARAMETER}.{symbol}", symbol)
        return _finish(builder, optional)
    if type_name == "fixed":
        full = _full_name(avro, namespace)
        names.named[full] = avro
        builder = SchemaBuilder.bytes_().name(full).parameter(FIXED_SIZE_PARAMETER, str(avro["size"]))
        return _finish(builder, optional)
    if type_name == "array":
        entry = _map_entry(avro["items"])
        if entry is not None:
            key = _to_connect(entry["fields"][0]["type"], names, namespace, False)
            value = _to_connect(entry["fields"][1]["type"], names, namespace, False)
            return _finish(SchemaBuilder.map(key, value), optional)
        return _finish(SchemaBuilder.array(_to_connect(avro["items"], names, namespace, False)), optional)
    if type_name == "map":
        values = _to_connect(avro["values"], names, namespace, False)
        return _finish(SchemaBuilder.map(Schema.STRING_SCHEMA, values), optional)
    if isinstance(type_name, str):
        return _reference_to_connect(type_name, names, namespace, optional)
    raise DataError(f"unsupported Avro type {type_name!r}")


def _map_entry(items: Any) -> dict | None:
    # Confluent writes a map with non-string keys as an array of MapEntry {key, value} records.
    if (
        isinstance(items, dict)
        and items.get("type") == "record"
        and str(items.get("name", "")).startswith("io.confluent.connect.avro.MapEntry")
        and [f.get("name") for f in items.get("fields", [])] == ["key", "value"]
    ):
        return items
    return None


def _finish(builder: SchemaBuilder, optional: bool) -> Schema:
    return (builder.optional() if optional else builder).build()


def _union_to_connect(branches: list, names: _AvroNames, namespace: str | None, optional: bool) -> Schema:
    others = [b for b in branches if b != "null"]
    if len(others) == 1 and len(branches) == 2:
        return _to_connect(others[0], names, namespace, optional=True)
    return union_to_connect(
        branches, namespace, optional, lambda branch: _to_connect(branch, names, namespace, True), _full_name
    )


def _reference_to_connect(name: str, names: _AvroNames, namespace: str | None, optional: bool) -> Schema:
    full = name if "." in name or not namespace else f"{namespace}.{name}"
    if full in names.in_progress or name in names.in_progress:
        raise DataError(f"recursive Avro type '{full}' cannot be represented as a Connect schema")
    node = names.named.get(full) or names.named.get(name)
    if node is None:
        raise DataError(f"unknown Avro type '{name}'")
    return _to_connect(node, names, namespace, optional)


def _record_to_connect(avro: dict, names: _AvroNames, namespace: str | None, optional: bool) -> Schema:
    full = _full_name(avro, namespace)
    names.named[full] = avro
    names.in_progress.add(full)
    inner_namespace = full.rsplit(".", 1)[0] if "." in full else None
    builder = SchemaBuilder.struct().name(full)
    if avro.get("doc"):
        builder.doc(avro["doc"])
    for field in avro["fields"]:
        builder.field(field["name"], _to_connect(field["type"], names, inner_namespace, False))
    names.in_progress.discard(full)
    return _finish(builder, optional)


def _logical_builder(avro: dict, logical: str) -> SchemaBuilder | None:
    base = avro["type"]
    if logical == "decimal" and base in ("bytes", "fixed"):
        builder = Decimal.builder(int(avro.get("scale", 0)))
        if "precision" in avro:
            builder.parameter(PRECISION_PARAMETER, str(avro["precision"]))
        return builder
    if logical == "date" and base == "int":
        return Date.builder()
    if logical == "time-millis" and base == "int":
        return Time.builder()
    if logical == "time-micros" and base == "long":
        return Time.builder().parameter(LOGICAL_PARAMETER, logical)
    if logical == "timestamp-millis" and base == "long":
        return Timestamp.builder()
    if logical in ("timestamp-micros", "local-timestamp-millis", "local-timestamp-micros") and base == "long":
        return Timestamp.builder().parameter(LOGICAL_PARAMETER, logical)
    if logical == "uuid" and base == "string":
        return SchemaBuilder.string().parameter(LOGICAL_PARAMETER, logical)
    return None  # an unknown logical type is read as its underlying type, as the Avro spec says


def compile_avro_reader(schema: Schema) -> Convert:
    """A function turning what fastavro read into the Connect value ``schema`` describes."""
    convert = _reader(schema)
    return convert if convert is not None else _identity


def _reader(schema: Schema) -> Convert | None:
    # None means "the value is already right": most of a record needs no work.
    if is_union(schema):
        return union_reader(schema, lambda branch: _reader(branch) or _identity)
    if schema.type is Type.STRUCT:
        fields = [(f.name, _reader(f.schema) or _identity) for f in schema.fields]

        def read_record(value: Any) -> Any:
            if value is None:
                return None
            return Struct.from_values(schema, [read(value.get(name)) for name, read in fields], validate=False)

        return read_record
    if schema.type is Type.ARRAY:
        element = _reader(schema.value_schema)
        if element is None:
            return None
        return lambda value: None if value is None else [element(v) for v in value]
    if schema.type is Type.MAP:
        read_key = _reader(schema.key_schema) or _identity
        read_item = _reader(schema.value_schema) or _identity

        def read_map(value: Any) -> Any:
            if value is None:
                return None
            if isinstance(value, list):  # an array of MapEntry records
                return {read_key(entry["key"]): read_item(entry["value"]) for entry in value}
            return {k: read_item(v) for k, v in value.items()}

        return read_map
    if schema.parameters.get(LOGICAL_PARAMETER) == "uuid":
        return lambda value: None if value is None else str(value)
    return None


# ------------------------------------------------------------ Connect → Avro --


def to_avro_schema(schema: Schema) -> Any:
    """The Avro schema (as JSON-ready Python data) for a Connect schema."""
    return _to_avro(schema, {"count": 0, "defined": set()})


def _to_avro(schema: Schema, state: dict) -> Any:
    if is_union(schema):
        return union_to_avro(schema, lambda branch: _to_avro_required(branch, state))
    avro = _to_avro_required(schema, state)
    if schema.optional:
        return ["null", avro]
    return avro


def _to_avro_required(schema: Schema, state: dict) -> Any:
    logical = schema.parameters.get(LOGICAL_PARAMETER)
    if schema.name == Decimal.LOGICAL_NAME:
        precision = int(schema.parameters.get(PRECISION_PARAMETER, "64"))
        return {"type": "bytes", "logicalType": "decimal", "precision": precision, "scale": Decimal.scale(schema)}
    if schema.name == Date.LOGICAL_NAME:
        return {"type": "int", "logicalType": "date"}
    if schema.name == Time.LOGICAL_NAME:
        if logical == "time-micros":
            return {"type": "long", "logicalType": "time-micros"}
        return {"type": "int", "logicalType": "time-millis"}
    if schema.name == Timestamp.LOGICAL_NAME:
        return {"type": "long", "logicalType": logical or "timestamp-millis"}
    type_ = schema.type
    if type_ is Type.INT8 or type_ is Type.INT16:
        return {"type": "int", "connect.type": type_.value}
    if type_ is Type.STRING and logical == "uuid":
        return {"type": "string", "logicalType": "uuid"}
    if schema.name and schema.name in state["defined"]:
        return schema.name  # an Avro named type is defined once, then referred to by name
    if type_ is Type.STRING and ENUM_PARAMETER in schema.parameters:
        state["defined"].add(schema.name)
        prefix = ENUM_PARAMETER + "."
        symbols = [v for k, v in schema.parameters.items() if k.startswith(prefix)]
        return {"type": "enum", "name": schema.name, "symbols": symbols}
    if type_ is Type.BYTES and FIXED_SIZE_PARAMETER in schema.parameters and schema.name:
        state["defined"].add(schema.name)
        return {"type": "fixed", "name": schema.name, "size": int(schema.parameters[FIXED_SIZE_PARAMETER])}
    simple = {
        Type.INT32: "int",
        Type.INT64: "long",
        Type.FLOAT32: "float",
        Type.FLOAT64: "double",
        Type.BOOLEAN: "boolean",
        Type.STRING: "string",
        Type.BYTES: "bytes",
    }.get(type_)
    if simple is not None:
        return simple
    if type_ is Type.ARRAY:
        return {"type": "array", "items": _to_avro(schema.value_schema, state)}
    if type_ is Type.MAP:
        if schema.key_schema.type is Type.STRING and not schema.key_schema.optional:
            return {"type": "map", "values": _to_avro(schema.value_schema, state)}
        entry = {
            "type": "record",
            "name": _record_name(None, state, "MapEntry"),
            "fields": [
                {"name": "key", "type": _to_avro(schema.key_schema, state)},
                {"name": "value", "type": _to_avro(schema.value_schema, state)},
            ],
        }
        return {"type": "array", "items": entry}
    record: dict[str, Any] = {"type": "record", "name": _record_name(schema.name, state, "ConnectDefault")}
    state["defined"].add(record["name"])
    if schema.doc:
        record["doc"] = schema.doc
    record["fields"] = [_avro_field(field.name, field.schema, state) for field in schema.fields]
    return record


def _avro_field(name: str, schema: Schema, state: dict) -> dict:
    field: dict[str, Any] = {"name": name, "type": _to_avro(schema, state)}
    if schema.optional:
        field["default"] = None
    return field


def _record_name(name: str | None, state: dict, fallback: str) -> str:
    if name:
        return name
    state["count"] += 1
    suffix = "" if state["count"] == 1 else str(state["count"])
    return f"io.confluent.connect.avro.{fallback}{suffix}"


def compile_avro_writer(schema: Schema | None) -> Convert:
    """A function turning a Connect value into what fastavro writes for ``to_avro_schema(schema)``."""
    if schema is None:
        return _plain_avro
    convert = _writer(schema)
    return convert if convert is not None else _identity


def _writer(schema: Schema) -> Convert | None:
    if is_union(schema):
        return union_writer(schema, lambda branch: _writer(branch) or _identity)
    if schema.type is Type.STRUCT:
        fields = [(f.name, f.index, f.schema.default, _writer(f.schema) or _identity) for f in schema.fields]
        same_schema = SchemaMatch(schema)

        def write_record(value: Any) -> Any:
            if value is None:
                return None
            if isinstance(value, Struct):
                if same_schema(value.schema):
                    raw = value._values  # a struct of this very schema: values in field order
                    return {
                        name: write(default if raw[index] is None else raw[index])
                        for name, index, default, write in fields
                    }
                value = value.to_dict()  # another schema: match fields by name
            if isinstance(value, dict):
                return {name: write(value.get(name)) for name, _, _, write in fields}
            raise DataError(f"expected a Struct for schema {schema!r}, found {type(value).__name__}")

        return write_record
    if schema.type is Type.ARRAY:
        element = _writer(schema.value_schema)
        if element is None:
            return None
        return lambda value: None if value is None else [element(v) for v in value]
    if schema.type is Type.MAP:
        key, item = _writer(schema.key_schema) or _identity, _writer(schema.value_schema) or _identity
        if schema.key_schema.type is Type.STRING and not schema.key_schema.optional:
            return lambda value: None if value is None else {k: item(v) for k, v in value.items()}
        return lambda value: None if value is None else [{"key": key(k), "value": item(v)} for k, v in value.items()]
    if schema.parameters.get(LOGICAL_PARAMETER) == "uuid":
        return lambda value: value if value is None or isinstance(value, str) else str(uuid.UUID(str(value)))
    if schema.name == Decimal.LOGICAL_NAME:
        # Kafka's minimal two's-complement bytes (BigInteger.toByteArray), byte for byte
        # what Confluent's Java converter writes; fastavro would pad -128 to two bytes.
        return lambda value: value if value is None else Decimal.from_logical(schema, value)
    return None


def _plain_avro(value: Any) -> Any:
    # Values without a Connect schema (dicts, lists) are written as they are; structs become dicts.
    if isinstance(value, Struct):
        return {name: _plain_avro(v) for name, v in value.items()}
    if isinstance(value, list):
        return [_plain_avro(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain_avro(v) for k, v in value.items()}
    return value
