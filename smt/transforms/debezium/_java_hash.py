"""Java's ``hashCode`` of Connect values, and Debezium's ``MurmurHash3``: what PartitionRouting sums.

A value's Java class follows from its Connect schema (INT8 is a ``Byte``, INT64 a ``Long``,
Date/Time/Timestamp a ``java.util.Date``, Decimal a ``BigDecimal``), so each hash takes the
schema along with the value. Java's hash of a ``byte[]`` is its identity (different in every
JVM); bytes here hash by content, with ``Arrays.hashCode``. A struct's Java hash includes its
schema's enum identity hashes, so no run reproduces another's: structs are refused.
"""

from __future__ import annotations

import decimal as _decimal
import struct as _struct
from typing import Any

from smt.data import Date, Decimal, Schema, Time, Timestamp, Type
from smt.data.logical import temporal_millis
from smt.errors import DataError

_M32 = 0xFFFFFFFF
_M64 = 0xFFFFFFFFFFFFFFFF


def int32(value: int) -> int:
    """``value`` wrapped to a signed 32-bit int, as Java's int arithmetic leaves it."""
    value &= _M32
    return value - 0x100000000 if value & 0x80000000 else value


def _long_hash(value: int) -> int:
    value &= _M64
    return int32(value ^ (value >> 32))


def _string_hash(text: str) -> int:
    h = 0
    data = text.encode("utf-16-be", "surrogatepass")
    for index in range(0, len(data), 2):  # one UTF-16 code unit at a time, as String.hashCode
        h = (31 * h + ((data[index] << 8) | data[index + 1])) & _M32
    return int32(h)


def _bytes_hash(data: bytes) -> int:
    h = 1
    for byte in data:
        h = (31 * h + (byte - 256 if byte > 127 else byte)) & _M32
    return int32(h)


def _big_integer_hash(number: int) -> int:
    magnitude, h = abs(number), 0
    words = []
    while magnitude:
        words.append(magnitude & _M32)
        magnitude >>= 32
    for word in reversed(words):
        h = (31 * h + word) & _M32
    return int32(int32(h) * (-1 if number < 0 else 1))


def java_hash(schema: Schema, value: Any) -> int:
    """``value.hashCode()`` of the Java object Kafka Connect holds for ``value`` under ``schema``."""
    if value is None:
        return 0
    name = schema.name
    if name == Decimal.LOGICAL_NAME:
        scale = Decimal.scale(schema)
        unscaled = int(_decimal.Decimal(value).scaleb(scale).to_integral_value())
        return int32(31 * _big_integer_hash(unscaled) + scale)
    if name in (Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME):
        return _long_hash(temporal_millis(value))
    kind = schema.type
    if kind in (Type.INT8, Type.INT16, Type.INT32):
        return int32(value)
    if kind is Type.INT64:
        return _long_hash(value)
    if kind is Type.FLOAT32:
        return int32(_float_bits(value))
    if kind is Type.FLOAT64:
        return _long_hash(_double_bits(value))
    if kind is Type.BOOLEAN:
        return 1231 if value else 1237
    if kind is Type.STRING:
        return _string_hash(value)
    if kind is Type.BYTES:
        return _bytes_hash(bytes(value))
    if kind is Type.ARRAY:
        h = 1
        for item in value:
            h = (31 * h + java_hash(schema.value_schema, item)) & _M32
        return int32(h)
    if kind is Type.MAP:
        total = 0
        for key, item in value.items():
            total += java_hash(schema.key_schema, key) ^ java_hash(schema.value_schema, item)
        return int32(total)
    raise DataError("a struct has no Java hash that is the same from one run to the next")


def _float_bits(value: float) -> int:
    if value != value:
        return 0x7FC00000  # Float.floatToIntBits: every NaN is the canonical one
    return _struct.unpack(">i", _struct.pack(">f", value))[0]


def _double_bits(value: float) -> int:
    if value != value:
        return 0x7FF8000000000000
    return _struct.unpack(">q", _struct.pack(">d", value))[0]


# --- Debezium's MurmurHash3 (x64, 64-bit result, seed 9001; the int is its upper half) ---------


def _rotl(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (64 - bits))) & _M64


def _signed_byte(byte: int) -> int:
    # Java sign-extends a tail byte before shifting it into place.
    return (byte - 256 if byte > 127 else byte) & _M64


class _State:
    __slots__ = ("h1", "h2", "c1", "c2")

    def __init__(self, seed: int) -> None:
        self.h1 = 0x9368E53C2F6AF274 ^ seed
        self.h2 = 0x586DCD208F7CD3FD ^ seed
        self.c1 = 0x87C37B91114253D5
        self.c2 = 0x4CF5AD432745937F

    def mix(self, k1: int, k2: int) -> None:
        k1 = _rotl((k1 * self.c1) & _M64, 23)
        k1 = (k1 * self.c2) & _M64
        self.h1 = ((self.h1 ^ k1) + self.h2) & _M64
        self.h2 = _rotl(self.h2, 41)
        k2 = _rotl((k2 * self.c2) & _M64, 23)
        k2 = (k2 * self.c1) & _M64
        self.h2 = ((self.h2 ^ k2) + self.h1) & _M64
        self.h1 = (self.h1 * 3 + 0x52DCE729) & _M64
        self.h2 = (self.h2 * 3 + 0x38495AB5) & _M64
        self.c1 = (self.c1 * 5 + 0x7B7D159C) & _M64
        self.c2 = (self.c2 * 5 + 0x6BCE6396) & _M64


def _fmix(k: int) -> int:
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & _M64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & _M64
    return k ^ (k >> 33)


def murmur3_x64_64(data: bytes, seed: int = 9001) -> int:
    """Debezium's ``MurmurHash3_x64_64(byte[], seed)`` as an unsigned 64-bit number."""
    state = _State(seed)
    blocks = len(data) // 16
    for index in range(blocks):
        block = data[index * 16 : index * 16 + 16]
        state.mix(int.from_bytes(block[:8], "little"), int.from_bytes(block[8:], "little"))
    tail = data[blocks * 16 :]
    if tail:
        k1 = k2 = 0
        for index, byte in enumerate(tail):
            if index < 8:
                k1 ^= (_signed_byte(byte) << (8 * index)) & _M64
            else:
                k2 ^= (_signed_byte(byte) << (8 * (index - 8))) & _M64
        state.mix(k1, k2)
    state.h2 ^= len(data)
    state.h1 = (state.h1 + state.h2) & _M64
    state.h2 = (state.h2 + state.h1) & _M64
    state.h1, state.h2 = _fmix(state.h1), _fmix(state.h2)
    return (state.h1 + state.h2) & _M64


def _murmur32(data: bytes) -> int:
    return int32(murmur3_x64_64(data) >> 32)


def murmur_hash(schema: Schema, value: Any) -> int:
    """Debezium's ``MurmurHash3.hash(Object)``: bytes and strings (UTF-8, a lone surrogate as ``?``)
    by content, anything else by its Java hash's four little-endian bytes."""
    if schema.type is Type.BYTES and schema.name != Decimal.LOGICAL_NAME:
        return _murmur32(bytes(value))
    if schema.type is Type.STRING:
        return _murmur32(value.encode("utf-8", "replace"))
    return _murmur32((java_hash(schema, value) & _M32).to_bytes(4, "little"))
