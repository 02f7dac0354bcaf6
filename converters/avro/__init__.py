"""Avro converter (``io.confluent.connect.avro.AvroConverter``) with a schema registry client."""

from converters.avro.converter import MAGIC_BYTE, AvroConverter

__all__ = ["MAGIC_BYTE", "AvroConverter"]
