"""Per-schema readers: decoded JSON values to Connect values (JsonConverter's rules).

``compile_reader(schema)`` walks a schema once and returns a closure tree
taking what ``orjson.loads`` gives.  A value of the wrong JSON type is a
:class:`smt.errors.DataError` naming what was expected and what was found.
"""

from __future__ import annotations

import base64
import binascii
import decimal as _decimal
from typing import Any, Callable

from converters.json._codec import CodecOptions, json_type_name
from converters.json._writer import _INT_BOUNDS
from smt.data import Date, Decimal, Float32, Schema, Struct, Time, Timestamp, Type
from smt.errors import DataError

Reader = Callable[[Any], Any]


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
                # Kafka reads JSON numbers as BigDecimal, which has no -0.0
                return value if value != 0.0 else 0.0
            if isinstance(value, (int, float, _decimal.Decimal)) and not isinstance(value, bool):
                return float(value)
            raise _expected(schema, "a number", value)

        if type_ is Type.FLOAT32:  # Jackson reads a float: it prints as one from then on
            return lambda value: Float32(read_float(value))
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
                f"Invalid type for {label}, underlying representation should be {what} but was {json_type_name(value)}"
            )
        return decode(schema, value)

    return read_temporal
