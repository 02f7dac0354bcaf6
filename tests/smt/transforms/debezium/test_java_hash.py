"""Java hashCode and Debezium's MurmurHash3 of Connect values: golden tables.

The expected numbers were printed by a JDK 17 run of Debezium 3.6.1.Final's ``MurmurHash3``
(``hash(Object)``) and of the JDK classes' ``hashCode``; each row is one value.
"""

import datetime
import decimal

import pytest

from smt.data import Decimal, Schema, SchemaBuilder, Struct, Timestamp
from smt.errors import DataError
from smt.transforms.debezium._java_hash import java_hash, murmur_hash

S, I32, I64, B = Schema.STRING_SCHEMA, Schema.INT32_SCHEMA, Schema.INT64_SCHEMA, Schema.BYTES_SCHEMA
LONG_BYTES = bytes([1, 2, 3, 0xFF, 0x90, 5, 6, 7, 8, 9, 0xA0, 11, 12, 13, 14, 15, 16, 0xF7, 0x81])

MURMUR = [
    (S, "", 89125410),
    (S, "a", -1119243492),
    (S, "orange", -1471092080),
    (S, "héllo wörld, ünïcode", 906342960),
    (S, "0123456789abcdef", 26898387),
    (S, "0123456789abcdefXYZ\u00ff\u00fe", -980431627),
    (S, "\U0001f600 emoji \u20ac", 1650320527),
    (I32, 0, 1805505889),
    (I32, 1, -1931162451),
    (I32, -1, 171705313),
    (I32, 255, 1267635083),
    (I32, -128, -1726399188),
    (I32, 123456789, 1798169500),
    (I32, -(2**31), -797218156),
    (B, b"", 89125410),
    (B, bytes([0x80]), -1816053548),
    (B, LONG_BYTES, -1409385203),
    (I64, 1, -1931162451),
    (I64, -1, 1805505889),
    (I64, 1 << 40, -1356379757),
    (I64, -123456789012, 1836097579),
]

JAVA = [
    (S, "", 0),
    (S, "a", 97),
    (S, "orange", -1008851410),
    (S, "héllo wörld, ünïcode", 1989314301),
    (S, "\U0001f600 emoji \u20ac", 545145237),
    (I64, 1, 1),
    (I64, -1, 0),
    (I64, 1 << 40, 256),
    (I64, -123456789012, -1097262577),
    (Schema.FLOAT64_SCHEMA, 1.5, 1073217536),
    (Schema.FLOAT32_SCHEMA, -2.25, -1072693248),
    (Decimal.schema(2), decimal.Decimal("-12345678901234567890.12"), -494185779),
    (Timestamp.SCHEMA, datetime.datetime(1969, 12, 31, 23, 39, 25, 433000, tzinfo=datetime.timezone.utc), 1234566),
    (Schema.BOOLEAN_SCHEMA, True, 1231),
    (Schema.BOOLEAN_SCHEMA, False, 1237),
    (SchemaBuilder.array(S).build(), ["a", None], 31 * (31 + 97)),
]


@pytest.mark.parametrize(("schema", "value", "expected"), MURMUR)
def test_murmur_hash_matches_debezium(schema, value, expected):
    assert murmur_hash(schema, value) == expected


@pytest.mark.parametrize(("schema", "value", "expected"), JAVA)
def test_java_hash_matches_the_jdk(schema, value, expected):
    assert java_hash(schema, value) == expected


def test_structs_have_no_stable_java_hash():
    schema = SchemaBuilder.struct().field("id", I32).build()
    with pytest.raises(DataError, match="a struct has no Java hash that is the same from one run to the next"):
        java_hash(schema, Struct(schema).put("id", 1))
