"""Per-schema writers: Connect values to JSON values (JsonConverter's rules).

``compile_writer(schema)`` walks a schema once and returns a closure tree, so
writing a record does no schema dispatch.  Writers produce what
``orjson.dumps`` takes (a NUMERIC decimal becomes an ``orjson.Fragment`` so
its digits are written exactly).  Errors are :class:`smt.errors.DataError`
with Kafka's messages where it has one.
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal as _decimal
from typing import Any, Callable

import orjson

from converters.json._codec import CodecOptions
from smt.data import Date, Decimal, Float32, Schema, Struct, Time, Timestamp, Type, format_float
from smt.data.logical import datetime_to_millis
from smt.data.schema import SchemaMatch
from smt.errors import DataError

Writer = Callable[[Any], Any]

_INT_BOUNDS = {
    Type.INT8: 1 << 7,
    Type.INT16: 1 << 15,
    Type.INT32: 1 << 31,
    Type.INT64: 1 << 63,
}


def compile_writer(schema: Schema | None, options: CodecOptions) -> Writer:
    """A function turning a Connect value described by ``schema`` into a JSON value."""
    if schema is None:
        return write_schemaless
    write = _writer_for_type(schema, options)
    default_json = write(schema.default) if schema.default is not None else None
    replace = options.replace_null_with_default and schema.default is not None
    optional = schema.optional

    def write_nullable(value: Any) -> Any:
        if value is None:
            if replace:
                return default_json
            if optional:
                return None
            raise DataError("Conversion error: null value for field that is required and has no default value")
        return write(value)

    return write_nullable


def _invalid(schema: Schema, value: Any) -> DataError:
    return DataError(f"Invalid type for {schema.type}: {type(value).__name__}")


def _writer_for_type(schema: Schema, options: CodecOptions) -> Writer:
    name = schema.name
    if name == Decimal.LOGICAL_NAME:
        return _decimal_writer(schema, options)
    if name in (Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME):
        return _temporal_writer(schema)
    type_ = schema.type
    if type_ in _INT_BOUNDS:
        bound = _INT_BOUNDS[type_]

        def write_int(value: Any) -> Any:
            if type(value) is int and -bound <= value < bound:
                return value
            if not isinstance(value, int) or isinstance(value, bool):
                raise _invalid(schema, value)
            if not -bound <= value < bound:
                raise DataError(f"Invalid value for {type_}: {value} is out of range")
            return int(value)

        return write_int
    if type_ is Type.FLOAT32 or type_ is Type.FLOAT64:

        def write_float(value: Any) -> Any:
            if type(value) is not float:
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    raise _invalid(schema, value)
                value = float(value)
            if value - value != 0.0:  # NaN or ±infinity: JSON has no way to write them
                raise DataError(f"Invalid value for {type_}: {value} cannot be written as JSON")
            return value

        if type_ is Type.FLOAT32:
            return lambda value: _float32_json(write_float(value))
        return write_float
    if type_ is Type.BOOLEAN:
        return _exact_type_writer(schema, bool)
    if type_ is Type.STRING:
        return _exact_type_writer(schema, str)
    if type_ is Type.BYTES:

        def write_bytes(value: Any) -> Any:
            if isinstance(value, (bytes, bytearray, memoryview)):
                return base64.b64encode(value).decode("ascii")
            raise DataError(f"Invalid type for bytes type: {type(value).__name__}")

        return write_bytes
    if type_ is Type.ARRAY:
        return _array_writer(schema, options)
    if type_ is Type.MAP:
        return _map_writer(schema, options)
    return _struct_writer(schema, options)


def has_non_finite_float(value: Any) -> bool:
    """True when ``value`` holds a NaN or an infinity anywhere (orjson would write null)."""
    kind = type(value)
    if kind is float:
        return value - value != 0.0
    if kind is dict:
        items = value.values()
    elif kind is list or kind is tuple:
        items = value
    else:
        return False
    for item in items:
        kind = type(item)
        if kind is float:
            if item - item != 0.0:
                return True
        elif (kind is dict or kind is list or kind is tuple) and has_non_finite_float(item):
            return True
    return False


def _exact_type_writer(schema: Schema, cls: type) -> Writer:
    def write(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        raise _invalid(schema, value)

    return write


def _array_writer(schema: Schema, options: CodecOptions) -> Writer:
    element = compile_writer(schema.value_schema, options)

    def write_array(value: Any) -> Any:
        if not isinstance(value, (list, tuple)):
            raise _invalid(schema, value)
        return [element(item) for item in value]

    return write_array


def _map_writer(schema: Schema, options: CodecOptions) -> Writer:
    key_schema = schema.key_schema
    write_key = compile_writer(key_schema, options)
    write_value = compile_writer(schema.value_schema, options)
    object_mode = key_schema is not None and key_schema.type is Type.STRING

    def write_map(value: Any) -> Any:
        if not isinstance(value, dict):
            raise _invalid(schema, value)
        if object_mode:
            return {write_key(k): write_value(v) for k, v in value.items()}
        # Kafka writes maps whose keys are not strings as an array of [key, value] pairs.
        return [[write_key(k), write_value(v)] for k, v in value.items()]

    return write_map


def _struct_writer(schema: Schema, options: CodecOptions) -> Writer:
    fields = [(f.name, f.index, compile_writer(f.schema, options)) for f in schema.fields]

    same_schema = SchemaMatch(schema)

    def write_struct(value: Any) -> Any:
        if not isinstance(value, Struct):
            raise _invalid(schema, value)
        if not same_schema(value.schema):
            raise DataError("Mismatching schema.")
        raw = value._values
        return {name: write(raw[index]) for name, index, write in fields}

    return write_struct


def _decimal_writer(schema: Schema, options: CodecOptions) -> Writer:
    numeric = options.decimal_numeric

    def write_decimal(value: Any) -> Any:
        if not isinstance(value, _decimal.Decimal):
            raise DataError(f"Invalid type for Decimal, expected Decimal but was {type(value).__name__}")
        if numeric:
            return orjson.Fragment(format(value, "f"))
        return base64.b64encode(Decimal.from_logical(schema, value)).decode("ascii")

    return write_decimal


def _temporal_writer(schema: Schema) -> Writer:
    name = schema.name
    if name == Date.LOGICAL_NAME:
        expected, label = _dt.date, "Date"
        encode = lambda v: Date.from_logical(schema, v)  # noqa: E731
    elif name == Time.LOGICAL_NAME:
        expected, label = _dt.time, "Time"
        encode = lambda v: Time.from_logical(schema, v)  # noqa: E731
    else:
        expected, label = _dt.datetime, "Timestamp"
        encode = datetime_to_millis

    def write_temporal(value: Any) -> Any:
        if not isinstance(value, expected):
            raise DataError(f"Invalid type for {label}, expected {expected.__name__} but was {type(value).__name__}")
        return encode(value)

    return write_temporal


def _float32_json(value: float) -> orjson.Fragment:
    """A FLOAT32 as Jackson writes a Java float: ``10.03``, not the double's ``10.029999732971191``."""
    text = format_float(value)
    if text[-1] == "y" or text == "NaN":  # past the float range: ±Infinity has no JSON form
        raise DataError(f"Invalid value for FLOAT32: {value} cannot be written as JSON")
    return orjson.Fragment(text)


def write_schemaless(value: Any) -> Any:
    """A value without a schema, written by what its Python type is."""
    if isinstance(value, float) and value - value != 0.0:
        raise DataError(f"{value} cannot be written as JSON")
    if isinstance(value, Float32):
        return _float32_json(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, (list, tuple)):
        return [write_schemaless(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: write_schemaless(v) for k, v in value.items()}
        return [[write_schemaless(k), write_schemaless(v)] for k, v in value.items()]
    if isinstance(value, Struct):
        raise DataError("Mismatching schema.")
    raise DataError(f"Python type {type(value).__name__} does not have corresponding schema type.")
