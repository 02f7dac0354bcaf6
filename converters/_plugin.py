"""Registers the built-in converters."""

from converters.avro import AvroConverter
from converters.bytearray import ByteArrayConverter
from converters.header import SimpleHeaderConverter
from converters.json import JsonConverter
from converters.number import (
    BooleanConverter,
    DoubleConverter,
    FloatConverter,
    IntegerConverter,
    LongConverter,
    ShortConverter,
)
from converters.string import StringConverter
from smt.plugins import hookimpl


@hookimpl
def smt_converters():
    return [
        ByteArrayConverter,
        StringConverter,
        JsonConverter,
        AvroConverter,
        SimpleHeaderConverter,
        ShortConverter,
        IntegerConverter,
        LongConverter,
        FloatConverter,
        DoubleConverter,
        BooleanConverter,
    ]
