"""Casting one value to a Kafka Connect primitive type, with Java's conversion rules.

Integers narrow by wrapping (``(byte) 300 == 44``), floating-point values
truncate toward zero and saturate (NaN is 0), strings parse, numbers become
booleans by ``!= 0`` and booleans numbers as 1/0.  Bytes become strings as
base64; dates, times and timestamps become ISO-like strings in UTC.
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal
import math
import struct
from typing import Any

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


def _to_float32(value: float) -> float:
    try:
        return struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def _java_double_string(value: float) -> str:
    """Java's ``Double.toString``: plain between 1e-3 and 1e7, else ``d.dddE<n>``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        text = repr(float(value))
        return text if "e" not in text else f"{value:f}"
    digits, exponent = f"{value:e}".split("e")
    shortest = repr(float(value))
    if "e" in shortest:
        digits, exponent = shortest.split("e")
    else:
        exponent_value = len(shortest.split(".")[0].lstrip("-")) - 1
        sign = "-" if value < 0 else ""
        raw = shortest.lstrip("-").replace(".", "").rstrip("0") or "0"
        digits = sign + raw[0] + "." + (raw[1:] or "0")
        exponent = str(exponent_value)
    if "." not in digits:
        digits += ".0"
    return f"{digits}E{int(exponent)}"


def _date_string(value: Any) -> str:
    if isinstance(value, _dt.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc)
        utc = aware.astimezone(_dt.timezone.utc)
        return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
    if isinstance(value, _dt.date):
        return value.strftime("%Y-%m-%d")
    return value.strftime("%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def _as_string(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _java_double_string(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (_dt.date, _dt.time)):
        return _date_string(value)
    return str(value)


def cast_value(value: Any, target: str, source_is_float32: bool = False) -> Any:
    """``value`` cast to ``target``; raises DataError when it cannot be."""
    if value is None:
        return None
    if target == "string":
        if isinstance(value, float) and source_is_float32:
            return _java_double_string(value)
        return _as_string(value)
    if isinstance(value, (bytes, bytearray)):
        raise DataError(f"Cast transformation does not support casting from bytes to {target}")
    if isinstance(value, str):
        return _parse(value, target)
    if isinstance(value, bool):
        value = 1 if value else 0
    if target == "boolean":
        return value != 0
    if isinstance(value, decimal.Decimal):
        value = float(value) if target.startswith("float") else int(value)
    if target in _BITS:
        if isinstance(value, float):
            return _float_to_int(value, _BITS[target])
        return _wrap(int(value), _BITS[target])
    if target == "float32":
        return _to_float32(float(value))
    if target == "float64":
        return float(value)
    raise DataError(f"{target} is not supported in the Cast transformation.")


def _parse(text: str, target: str) -> Any:
    try:
        if target == "boolean":
            lowered = text.strip().lower()
            if lowered in ("true", "false"):
                return lowered == "true"
            raise ValueError(text)
        if target in _BITS:
            number = int(text.strip())
            limit = 1 << (_BITS[target] - 1)
            if not -limit <= number < limit:
                raise ValueError(text)
            return number
        number = float(text.strip())
        return _to_float32(number) if target == "float32" else number
    except ValueError:
        raise DataError(f"Value ({text}) was out of range for requested data type") from None
