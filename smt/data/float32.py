"""FLOAT32 values: 32-bit floats that print as Java prints a ``float``; doubles as Java prints a ``double``.

Python has one float type, a double.  Kafka Connect keeps ``Float`` and
``Double`` apart, and prints a ``Float`` with the shortest digits that read
back to the same 32-bit value (``10.03``), where the same number as a double
prints ``10.029999732971191``.  A :class:`Float32` is a ``float`` holding a
value rounded to 32 bits that remembers it is one, so that converters and
``Values.convertToString`` print it the way Kafka does, with or without a
schema.  Arithmetic on it gives plain floats.  Both printers live here,
since a ``float`` prints through the ``double`` layout.
"""

from __future__ import annotations

import decimal as _decimal
import math
import struct

__all__ = ["Float32", "format_double", "format_float", "to_float32"]

_PACK = struct.Struct("<f")


def to_float32(value: float) -> float:
    """``value`` rounded to the nearest 32-bit float (±infinity past its range), as Java's ``(float)``."""
    try:
        return _PACK.unpack(_PACK.pack(value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


class Float32(float):
    """A FLOAT32 value (see the module docstring); ``Float32(x)`` rounds ``x`` to 32 bits."""

    __slots__ = ()

    def __new__(cls, value: float) -> "Float32":
        return super().__new__(cls, to_float32(float(value)))

    def __repr__(self) -> str:
        return format_float(self)

    __str__ = __repr__

    def __reduce__(self):
        return (Float32, (float(self),))


def format_float(value: float) -> str:
    """``value`` as Java's ``Float.toString`` writes it (``10.03``, ``1.0E10``, ``NaN``)."""
    value = to_float32(float(value))
    if value != value or math.isinf(value) or value == 0:
        return format_double(value)
    # The shortest decimal that reads back to this float32, printed with Java's layout.  A
    # decimal of at most 9 digits reads back to itself as a double too, so repr(double) of
    # it has the same digits and format_double lays it out.
    # Java always prints two significant digits at least (d.d), and then picks the two closest
    # to the value: a subnormal 1e-45 prints as 1.4E-45.
    for precision in range(2, 10):
        candidate = float(f"{value:.{precision}g}")
        if to_float32(candidate) == value:
            return format_double(candidate)
    return format_double(value)  # pragma: no cover - 9 digits always identify a float32


def format_double(value: float) -> str:
    """``value`` as Java's ``Double.toString`` writes it (``1.5``, ``1.0E7``, ``1.0E-5``, ``NaN``).

    Both pick the shortest digits that read back to the same double; Java
    switches to ``d.dddE±n`` outside [10⁻³, 10⁷) where Python switches elsewhere.
    """
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    magnitude = abs(value)
    if value == 0 or 1e-3 <= magnitude < 1e7:
        return repr(value)  # Python writes this range in plain notation too, with ".0" when integral
    shortest = repr(value)
    if magnitude < 1e-307 and len(_decimal.Decimal(shortest).as_tuple().digits) == 1:
        # Java prints two significant digits at least, the two closest to the value: 4.9E-324.
        two = f"{value:.2g}"
        shortest = two if float(two) == value else shortest
    sign, digits, exponent = _decimal.Decimal(shortest).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    scientific = len(digits) - 1 + exponent
    return f"{'-' if sign else ''}{text[0]}.{text[1:] or '0'}E{scientific}"
