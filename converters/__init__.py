"""Converters: bytes at the boundary to and from the data transforms work on.

Built in (names, then Kafka class aliases): ``bytearray``, ``string``,
``json`` (JsonConverter), ``avro`` (Confluent's AvroConverter, with a schema
registry client in :mod:`converters.schema_registry`) and ``simple``
(SimpleHeaderConverter).  :func:`load` gives a configured one by name, alias
or class; a failed record is a :class:`ConverterError` naming the converter,
its stage and the topic.  The interfaces they implement live in the core
(:mod:`smt.converter`) and are re-exported here.
"""

from __future__ import annotations

from smt.converter import (
    Converter,
    ConverterError,
    HeaderConverter,
    OnError,
    RetriableConverterError,
)
from smt.converter import load_converter as load

__all__ = ["Converter", "ConverterError", "HeaderConverter", "OnError", "RetriableConverterError", "load"]
