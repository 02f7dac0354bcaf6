"""Casting one value to a Kafka Connect primitive type, with Java's conversion rules.

Integers narrow by wrapping (``(byte) 300 == 44``), floating-point values
truncate toward zero and saturate (NaN is 0), strings parse, numbers become
booleans by ``!= 0`` and booleans numbers as 1/0.  Bytes become strings as
base64; dates, times and timestamps become ISO-like strings in UTC.
"""

from __future__ import annotations

import base64
import datetime as _dt
import math
import re
from typing import Any

from smt.data.float32 import Float32, format_double, format_float
from smt.data.logical import MILLIS_PER_DAY, temporal_millis
from smt.data.values import format_java_date
from smt.errors import DataError

__all__ = ["cast_value", "TARGET_TYPES"]

TARGET_TYPES = ("int8", "int16", "int32", "int64", "float32", "float64", "boolean", "string")
_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


def _wrap(value: int, bits: int) -> int:
    mask = (1 << bits) - 1
    value &= mask
    return value - (1 << bits) if value >> (bits - 1) else value


def _float_to_int(value: float, bits: int) -> int:
    if math.isnan(value):
        return 0
    wide = 64 if bits == 64 else 32
    limit = 1 << (wide - 1)
    whole = -limit if value <= -limit else limit - 1 if value >= limit else int(value)
    return whole if bits == wide else _wrap(whole, bits)


_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_CONNECT_TYPES = {
    bool: "BOOLEAN",
    int: "INT64",
    float: "FLOAT64",
    str: "STRING",
    bytes: "BYTES",
    bytearray: "BYTES",
    list: "ARRAY",
    dict: "MAP",
}
_SUPPORTED_INPUT = "[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]"


def _as_string(value: Any, float32: bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return format_float(value) if float32 or isinstance(value, Float32) else format_double(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (_dt.date, _dt.time)):
        return format_java_date(value)
    return str(value)


def check_schemaless_input(value: Any) -> None:
    """Kafka infers a schemaless value's type from its class and accepts only primitives."""
    kind = _CONNECT_TYPES.get(type(value))
    if kind is None:
        raise DataError(
            f"Cast transformation was passed a value of type {type(value).__name__} "
            "which is not supported by Connect's data API"
        )
    if kind in ("ARRAY", "MAP"):
        raise DataError(
            f"Cast transformation does not support casting from {kind}; supported types are {_SUPPORTED_INPUT}"
        )


def cast_value(value: Any, target: str, float32: bool = False) -> Any:
    """``value`` cast to ``target``; raises DataError when it cannot be.

    ``float32`` says the value is a FLOAT32 (it prints with float precision).
    Logical values (date, time, datetime) are cast through their encoded numbers,
    except to string.
    """
    if value is None:
        return None
    if target == "string":
        return _as_string(value, float32)
    if isinstance(value, (_dt.date, _dt.time)):
        value = temporal_millis(value) // (MILLIS_PER_DAY if type(value) is _dt.date else 1)
    if isinstance(value, (bytes, bytearray)):
        raise DataError(f"Unexpected type in Cast transformation: {type(value).__name__}")
    if isinstance(value, str):
        return _parse(value, target)
    if isinstance(value, bool):
        value = 1 if value else 0
    if target == "boolean":
        return _truncate_to_long(value) != 0
    if target in _BITS:
        if isinstance(value, float):
            return _float_to_int(value, _BITS[target])
        return _wrap(int(value), _BITS[target])
    if target == "float32":
        return Float32(value)
    if target == "float64":
        return float(value)
    raise DataError(f"{target} is not supported in the Cast transformation.")


def _truncate_to_long(value: Any) -> int:
    return _float_to_int(value, 64) if isinstance(value, float) else _wrap(int(value), 64)


def _parse(text: str, target: str) -> Any:
    if target == "boolean":
        return text.lower() == "true"  # Java's Boolean.parseBoolean: anything else is false
    try:
        if target in _BITS:
            if not _INTEGER_TEXT.fullmatch(text):
                raise ValueError(text)
            number = int(text)
            limit = 1 << (_BITS[target] - 1)
            if not -limit <= number < limit:
                raise ValueError(text)
            return number
        number = float(text.strip())
        return Float32(number) if target == "float32" else number
    except ValueError:
        raise DataError(f"Value ({text}) was out of range for requested data type") from None
