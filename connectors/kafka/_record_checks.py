"""Records Kafka would refuse, found per batch before Spark's Kafka writer sees them.

Spark's Kafka writer fails the whole write (after sending part of it) when the
producer refuses one record.  These checks find such records up front, on the
executors, with whole-column Arrow and numpy operations, so that each fails on
its own at the TASK_PUT stage (see :meth:`connectors.base.Sink.record_errors`):

- no topic (null or empty) while ``sink.topic`` is not set: Spark's writer
  stops with "null topic present in the data";
- a topic name Kafka does not allow (1 to 249 of ``[a-zA-Z0-9._-]``, not
  ``.`` or ``..``): the producer's metadata request fails;
- with ``keep.partition``, a negative partition: ``ProducerRecord`` refuses it;
- a header with a null name: Kafka's ``RecordHeader`` refuses it;
- a record larger than the producer accepts: the producer's own estimate
  (``DefaultRecordBatch.estimateBatchSizeUpperBound``: 61 bytes of batch
  overhead, 21 bytes of record overhead, then key, value and every header
  name and value, each after its varint length) compared, as
  ``KafkaProducer.ensureValidRecordSize`` does, with ``max.request.size``
  (default 1048576) and ``buffer.memory`` (default 33554432).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from connectors.base import SinkRecordError
from smt.errors import ConfigError

__all__ = ["KafkaRecordChecks", "RecordTooLargeError", "legal_topic_name", "serialized_sizes"]

#: Kafka's producer defaults for the two size limits.
DEFAULT_MAX_REQUEST_SIZE = 1048576
DEFAULT_BUFFER_MEMORY = 33554432

#: DefaultRecordBatch.RECORD_BATCH_OVERHEAD and DefaultRecord.MAX_RECORD_OVERHEAD.
_BATCH_OVERHEAD = 61
_RECORD_OVERHEAD = 21

#: ByteUtils.sizeOfVarint(-1): a null key, value or header value.
_NULL_LENGTH_BYTES = 1

#: Kafka's rule for topic names (org.apache.kafka.common.internals.Topic).
_TOPIC_PATTERN = r"^[a-zA-Z0-9._-]{1,249}$"
_MAX_TOPIC_LENGTH = 249
_TOPIC_RULE = "1 to 249 ASCII letters, digits, '.', '_' or '-', and not '.' or '..'"


class RecordTooLargeError(SinkRecordError):
    """A record is larger than the Kafka producer accepts (Kafka's RecordTooLargeException)."""


def legal_topic_name(name: str) -> None:
    """A validator: raises ValueError naming Kafka's rule when ``name`` is not a legal topic."""
    if name in ("", ".", "..") or len(name) > _MAX_TOPIC_LENGTH or not all(
        c.isascii() and (c.isalnum() or c in "._-") for c in name
    ):
        raise ValueError(f"'{name}' is not a legal Kafka topic name: {_TOPIC_RULE}")


@dataclasses.dataclass(frozen=True)
class KafkaRecordChecks:
    """The checks for one sink's settings; small and picklable (it runs on the executors)."""

    prefix: str
    default_topic: str | None
    keep_partition: bool
    max_request_size: int = DEFAULT_MAX_REQUEST_SIZE
    buffer_memory: int = DEFAULT_BUFFER_MEMORY

    @classmethod
    def from_settings(cls, config: Mapping[str, Any], kafka_params: Mapping[str, str], prefix: str) -> "KafkaRecordChecks":
        """Read the limits the producer will use; raises :class:`ConfigError` naming a bad one."""
        return cls(
            prefix=prefix,
            default_topic=config["topic"] or None,
            keep_partition=config["keep.partition"],
            max_request_size=_size_setting(kafka_params, "max.request.size", DEFAULT_MAX_REQUEST_SIZE, prefix),
            buffer_memory=_size_setting(kafka_params, "buffer.memory", DEFAULT_BUFFER_MEMORY, prefix),
        )

    def record_errors(self, records: pa.RecordBatch) -> list[tuple[int, BaseException]]:
        """``(row, error)`` for each record of ``records`` Kafka would refuse; the first reason per row."""
        found: dict[int, BaseException] = {}
        for check in (self._topic_errors, self._partition_errors, self._header_name_errors, self._size_errors):
            for row, exc in check(records):
                found.setdefault(row, exc)
        return sorted(found.items(), key=lambda item: item[0])

    # --- the checks -----------------------------------------------------------

    def _topic_errors(self, records: pa.RecordBatch):
        if "topic" not in records.schema.names:
            return
        topics = records.column("topic")
        missing = pc.or_kleene(pc.is_null(topics), pc.equal(topics, ""))
        if self.default_topic is None:
            for row in _rows(missing):
                yield row, SinkRecordError(
                    f"the record has no topic and {self.prefix}topic is not set; route every record "
                    f"to a topic or set {self.prefix}topic")
        illegal = pc.and_(pc.invert(missing), pc.invert(pc.match_substring_regex(topics, _TOPIC_PATTERN)))
        illegal = pc.or_(illegal, pc.is_in(topics, pa.array([".", ".."])))
        for row in _rows(illegal):
            name = topics[row].as_py()
            yield row, SinkRecordError(f"'{name}' is not a legal Kafka topic name: {_TOPIC_RULE}")

    def _partition_errors(self, records: pa.RecordBatch):
        if not self.keep_partition or "partition" not in records.schema.names:
            return
        partitions = records.column("partition")
        for row in _rows(pc.less(partitions, 0)):
            yield row, SinkRecordError(
                f"partition {partitions[row].as_py()} is negative; with {self.prefix}keep.partition=true "
                f"a record's partition must be null or at least 0")

    def _header_name_errors(self, records: pa.RecordBatch):
        if "headers" not in records.schema.names:
            return
        headers = records.column("headers")
        names = pc.list_flatten(headers).flatten()[0]
        if not names.null_count:
            return
        parents = pc.list_parent_indices(headers).to_numpy()
        unnamed = np.unique(parents[_mask(pc.is_null(names))])
        for row in unnamed:
            yield int(row), SinkRecordError("a header has a null name; Kafka headers must have a name")

    def _size_errors(self, records: pa.RecordBatch):
        # The producer checks max.request.size first, then buffer.memory.
        if self.max_request_size <= self.buffer_memory:
            limit, setting = self.max_request_size, "max.request.size"
        else:
            limit, setting = self.buffer_memory, "buffer.memory"
        sizes = serialized_sizes(records)
        for row in np.flatnonzero(sizes > limit):
            yield int(row), RecordTooLargeError(
                f"the record is {int(sizes[row])} bytes when serialized (Kafka producer's estimate: key, "
                f"value and headers plus {_BATCH_OVERHEAD + _RECORD_OVERHEAD} bytes of overhead), larger than "
                f"{limit}, the value of {self.prefix}kafka.{setting}")


def serialized_sizes(records: pa.RecordBatch) -> np.ndarray:
    """Kafka producer's size estimate of each record (bytes), as ``ensureValidRecordSize`` sees it."""
    rows = records.num_rows
    sizes = np.full(rows, _BATCH_OVERHEAD + _RECORD_OVERHEAD, dtype=np.int64)
    names = records.schema.names
    for field in ("key", "value"):
        sizes += _length_prefixed_sizes(records.column(field)) if field in names else _NULL_LENGTH_BYTES
    if "headers" not in names:
        sizes += _varint_sizes(np.zeros(rows, dtype=np.int64))
        return sizes
    headers = records.column("headers")
    counts = pc.fill_null(pc.list_value_length(headers), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    sizes += _varint_sizes(counts)
    flat = pc.list_flatten(headers)
    if len(flat):
        header_names, header_values = flat.flatten()
        per_header = _length_prefixed_sizes(header_names) + _length_prefixed_sizes(header_values)
        parents = pc.list_parent_indices(headers).to_numpy()
        sizes += np.bincount(parents, weights=per_header, minlength=rows).astype(np.int64)
    return sizes


def _length_prefixed_sizes(column: pa.Array) -> np.ndarray:
    """Bytes of each value after its varint length; a null is the 1-byte length -1."""
    lengths = pc.fill_null(pc.binary_length(column), -1).to_numpy(zero_copy_only=False).astype(np.int64)
    return np.where(lengths < 0, _NULL_LENGTH_BYTES, _varint_sizes(np.maximum(lengths, 0)) + lengths)


def _varint_sizes(values: np.ndarray) -> np.ndarray:
    """ByteUtils.sizeOfVarint of non-negative ints: zig-zag (2n), then 7 bits a byte."""
    zigzag = values * 2
    return 1 + sum((zigzag >= (1 << bits)).astype(np.int64) for bits in (7, 14, 21, 28))


def _rows(mask: pa.Array) -> list[int]:
    return [int(row) for row in np.flatnonzero(_mask(mask))]


def _mask(mask: pa.Array) -> np.ndarray:
    return pc.fill_null(mask, False).to_numpy(zero_copy_only=False)


def _size_setting(kafka_params: Mapping[str, str], name: str, default: int, prefix: str) -> int:
    text = kafka_params.get(name)
    if text is None or text == "":
        return default
    try:
        value = int(text)
    except ValueError:
        raise ConfigError.for_key(f"{prefix}kafka.{name}", f"must be a whole number of bytes, got '{text}'", text) from None
    if value < 0:
        raise ConfigError.for_key(f"{prefix}kafka.{name}", f"must be at least 0, got {value}", text)
    return value
