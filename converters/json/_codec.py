"""Per-schema functions between Connect values and JSON values (JsonConverter's rules).

``compile_writer(schema)`` and ``compile_reader(schema)`` walk a schema once
and return a closure tree, so converting a record does no schema dispatch.
Writers produce what ``orjson.dumps`` takes (a NUMERIC decimal becomes an
``orjson.Fragment`` so its digits are written exactly); readers take what
``orjson.loads`` gives.  Errors are :class:`smt.errors.DataError` with
Kafka's messages where it has one.
"""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import decimal as _decimal
from typing import Any, Callable

import orjson

from smt.data import Date, Decimal, Schema, Struct, Time, Timestamp, Type
from smt.data.logical import datetime_to_millis
from smt.errors import DataError

Writer = Callable[[Any], Any]
Reader = Callable[[Any], Any]

_INT_BOUNDS = {
    Type.INT8: 1 << 7,
    Type.INT16: 1 << 15,
    Type.INT32: 1 << 31,
    Type.INT64: 1 << 63,
}


class CodecOptions:
    """The JsonConverter settings that change how values are written and read."""

    __slots__ = ("decimal_numeric", "replace_null_with_default")

    def __init__(self, decimal_numeric: bool = False, replace_null_with_default: bool = True) -> None:
        self.decimal_numeric = decimal_numeric
        self.replace_null_with_default = replace_null_with_default


def json_type_name(value: Any) -> str:
    """The JSON node type of a decoded value, as Jackson names it in messages."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, (int, float, _decimal.Decimal)):
        return "NUMBER"
    if isinstance(value, str):
        return "STRING"
    if isinstance(value, list):
        return "ARRAY"
    if isinstance(value, dict):
        return "OBJECT"
    return type(value).__name__


# ---------------------------------------------------------------- writing ----


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
            if type(value) is float:
                return value
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
            raise _invalid(schema, value)

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

    def write_struct(value: Any) -> Any:
        if not isinstance(value, Struct):
            raise _invalid(schema, value)
        if value.schema is not schema and value.schema != schema:
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


def write_schemaless(value: Any) -> Any:
    """A value without a schema, written by what its Python type is."""
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


# ---------------------------------------------------------------- reading ----


def compile_reader(schema: Schema | None, options: CodecOptions) -> Reader:
    """A function turning a decoded JSON value into the Connect value ``schema`` describes."""
    if schema is None:
        return _identity
    read = _reader_for_type(schema, options)
    replace = options.replace_null_with_default and schema.default is not None
    default = schema.default
    optional = schema.optional
    type_ = schema.type

    def read_nullable(value: Any) -> Any:
        if value is None:
            if replace:
                return default
            if optional:
                return None
            raise DataError(f"Invalid null value for required {type_} field")
        return read(value)

    return read_nullable


def _identity(value: Any) -> Any:
    return value


def _expected(schema: Schema, what: str, value: Any) -> DataError:
    label = schema.name.rsplit(".", 1)[-1] if schema.name else str(schema.type)
    return DataError(f"Invalid value for {label}: expected {what} but found {json_type_name(value)}")


def _reader_for_type(schema: Schema, options: CodecOptions) -> Reader:
    name = schema.name
    if name == Decimal.LOGICAL_NAME:
        return _decimal_reader(schema)
    if name in (Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME):
        return _temporal_reader(schema)
    type_ = schema.type
    if type_ in _INT_BOUNDS:
        bound = _INT_BOUNDS[type_]

        def read_int(value: Any) -> Any:
            if type(value) is int and -bound <= value < bound:
                return value
            if type(value) is int:
                raise DataError(f"Invalid value for {type_}: {value} is out of range")
            raise _expected(schema, "an integer", value)

        return read_int
    if type_ is Type.FLOAT32 or type_ is Type.FLOAT64:

        def read_float(value: Any) -> Any:
            if type(value) is float:
                return value
            if isinstance(value, (int, float, _decimal.Decimal)) and not isinstance(value, bool):
                return float(value)
            raise _expected(schema, "a number", value)

        return read_float
    if type_ is Type.BOOLEAN:
        return _json_type_reader(schema, bool, "a boolean")
    if type_ is Type.STRING:
        return _json_type_reader(schema, str, "a string")
    if type_ is Type.BYTES:

        def read_bytes(value: Any) -> Any:
            if not isinstance(value, str):
                raise _expected(schema, "a base64 string", value)
            return _b64decode(value, "Invalid bytes field")

        return read_bytes
    if type_ is Type.ARRAY:
        return _array_reader(schema, options)
    if type_ is Type.MAP:
        return _map_reader(schema, options)
    return _struct_reader(schema, options)


def _b64decode(text: str, message: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise DataError(f"{message}: {exc}") from exc


def _json_type_reader(schema: Schema, cls: type, what: str) -> Reader:
    def read(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        raise _expected(schema, what, value)

    return read


def _array_reader(schema: Schema, options: CodecOptions) -> Reader:
    element = compile_reader(schema.value_schema, options)

    def read_array(value: Any) -> Any:
        if not isinstance(value, list):
            raise _expected(schema, "an array", value)
        return [element(item) for item in value]

    return read_array


def _map_reader(schema: Schema, options: CodecOptions) -> Reader:
    key_schema = schema.key_schema
    read_key = compile_reader(key_schema, options)
    read_value = compile_reader(schema.value_schema, options)
    if key_schema is None or key_schema.type is Type.STRING:

        def read_object(value: Any) -> Any:
            if not isinstance(value, dict):
                raise DataError(
                    f"Maps with string fields should be encoded as JSON objects, but found {json_type_name(value)}"
                )
            return {read_key(k): read_value(v) for k, v in value.items()}

        return read_object

    def read_pairs(value: Any) -> Any:
        if not isinstance(value, list):
            raise DataError(
                "Maps with non-string fields should be encoded as JSON array of tuples, "
                f"but found {json_type_name(value)}"
            )
        result = {}
        for entry in value:
            if not isinstance(entry, list):
                raise DataError(f"Found invalid map entry instead of array tuple: {json_type_name(entry)}")
            if len(entry) != 2:
                raise DataError(f"Found invalid map entry, expected length 2 but found :{len(entry)}")
            result[read_key(entry[0])] = read_value(entry[1])
        return result

    return read_pairs


def _struct_reader(schema: Schema, options: CodecOptions) -> Reader:
    fields = [(f.name, compile_reader(f.schema, options)) for f in schema.fields]

    def read_struct(value: Any) -> Any:
        if not isinstance(value, dict):
            raise DataError(f"Structs should be encoded as JSON objects, but found {json_type_name(value)}")
        get = value.get
        values = []
        for name, read in fields:
            try:
                values.append(read(get(name)))
            except DataError as exc:
                raise DataError(f"field '{name}': {exc}") from exc
        # Every value was checked by its field's reader: no second validation pass.
        return Struct.from_values(schema, values, validate=False)

    return read_struct


def _decimal_reader(schema: Schema) -> Reader:
    def read_decimal(value: Any) -> Any:
        if isinstance(value, _decimal.Decimal):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return _decimal.Decimal(value)
        if isinstance(value, float):
            return _decimal.Decimal(repr(value))
        if isinstance(value, str):
            return Decimal.to_logical(schema, _b64decode(value, "Invalid bytes for Decimal field"))
        raise DataError(
            "Invalid type for Decimal, underlying representation should be numeric or bytes "
            f"but was {json_type_name(value)}"
        )

    return read_decimal


def _temporal_reader(schema: Schema) -> Reader:
    name = schema.name
    label = name.rsplit(".", 1)[-1]
    decode = {
        Date.LOGICAL_NAME: Date.to_logical,
        Time.LOGICAL_NAME: Time.to_logical,
        Timestamp.LOGICAL_NAME: Timestamp.to_logical,
    }[name]
    what = "integral" if name == Timestamp.LOGICAL_NAME else "integer"

    def read_temporal(value: Any) -> Any:
        if type(value) is not int:
            raise DataError(
                f"Invalid type for {label}, underlying representation should be {what} "
                f"but was {json_type_name(value)}"
            )
        return decode(schema, value)

    return read_temporal


def needs_exact_numbers(schema: Schema | None) -> bool:
    """True when ``schema`` holds a Decimal, whose JSON numbers must not pass through float."""
    if schema is None:
        return False
    if schema.name == Decimal.LOGICAL_NAME:
        return True
    if schema.type is Type.STRUCT:
        return any(needs_exact_numbers(f.schema) for f in schema.fields)
    if schema.type is Type.MAP:
        return needs_exact_numbers(schema.key_schema) or needs_exact_numbers(schema.value_schema)
    if schema.type is Type.ARRAY:
        return needs_exact_numbers(schema.value_schema)
    return False
