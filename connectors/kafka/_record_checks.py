"""Records Kafka would refuse, found per batch before Spark's Kafka writer sees them.

Spark's Kafka writer fails the whole write (after sending part of it) when the
producer refuses one record.  These checks find such records up front, on the
executors, with whole-column Arrow and numpy operations, so that each fails on
its own at the TASK_PUT stage (see :meth:`smt.connector_roles.RecordChecks.record_errors`):

- no topic (null or empty) while ``sink.topic`` is not set: Spark's writer
  stops with "null topic present in the data";
- a topic name Kafka does not allow (1 to 249 of ``[a-zA-Z0-9._-]``, not
  ``.`` or ``..``): the producer's metadata request fails;
- a topic the pipeline itself reads from the same cluster (unless
  ``allow.source.topics``): not Kafka's rule but ours, so that a pipeline
  never feeds its output back into its input;
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

from connectors.kafka._subscription import Subscription
from smt.connector import SinkRecordError
from smt.errors import ConfigError
from smt.topic_names import TOPIC_PATTERN, TOPIC_RULE, topic_name_problem

__all__ = ["KafkaRecordChecks", "RecordTooLargeError", "SourceTopicError", "legal_topic_name", "serialized_sizes"]

#: Kafka's producer defaults for the two size limits.
DEFAULT_MAX_REQUEST_SIZE = 1048576
DEFAULT_BUFFER_MEMORY = 33554432

#: DefaultRecordBatch.RECORD_BATCH_OVERHEAD and DefaultRecord.MAX_RECORD_OVERHEAD.
_BATCH_OVERHEAD = 61
_RECORD_OVERHEAD = 21

#: ByteUtils.sizeOfVarint(-1): a null key, value or header value.
_NULL_LENGTH_BYTES = 1
_MAX_VARINT_BYTES = 5


class RecordTooLargeError(SinkRecordError):
    """A record is larger than the Kafka producer accepts (Kafka's RecordTooLargeException)."""


class SourceTopicError(SinkRecordError):
    """A record would be written into a topic its own pipeline reads (from the same cluster)."""


def legal_topic_name(name: str) -> None:
    """A validator: raises ValueError naming Kafka's rule when ``name`` is not a legal topic."""
    if topic_name_problem(name) is not None:
        raise ValueError(f"'{name}' is not a legal Kafka topic name: {TOPIC_RULE}")


@dataclasses.dataclass(frozen=True)
class KafkaRecordChecks:
    """The checks for one sink's settings; small and picklable (it runs on the executors)."""

    prefix: str
    default_topic: str | None
    keep_partition: bool
    max_request_size: int = DEFAULT_MAX_REQUEST_SIZE
    buffer_memory: int = DEFAULT_BUFFER_MEMORY
    #: What the pipeline's source reads from this sink's cluster: no record may go there.
    source_topics: Subscription | None = None

    @classmethod
    def from_settings(
        cls, config: Mapping[str, Any], kafka_params: Mapping[str, str], prefix: str
    ) -> "KafkaRecordChecks":
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
        headers = _Headers(records.column("headers")) if "headers" in records.schema.names else None
        for check in (
            self._topic_errors,
            self._source_topic_errors,
            self._partition_errors,
            self._header_name_errors,
            self._size_errors,
        ):
            for row, exc in check(records, headers):
                found.setdefault(row, exc)
        return sorted(found.items(), key=lambda item: item[0])

    # --- the checks -----------------------------------------------------------

    def _topic_errors(self, records: pa.RecordBatch, headers: "_Headers | None"):
        if "topic" not in records.schema.names:
            return
        topics = records.column("topic")
        if self.default_topic is None and (topics.null_count or pc.any(pc.equal(topics, "")).as_py()):
            for row in _rows(pc.or_kleene(pc.is_null(topics), pc.equal(topics, ""))):
                yield (
                    row,
                    SinkRecordError(
                        f"the record has no topic and {self.prefix}topic is not set; route every record "
                        f"to a topic or set {self.prefix}topic"
                    ),
                )
        # A batch holds few distinct topics: check the names once each.
        names = pc.drop_null(pc.unique(topics))
        names = names.filter(pc.not_equal(names, ""))
        illegal = names.filter(
            pc.or_(pc.invert(pc.match_substring_regex(names, TOPIC_PATTERN)), pc.is_in(names, pa.array([".", ".."])))
        )
        if len(illegal):
            for row in _rows(pc.is_in(topics, illegal)):
                yield row, SinkRecordError(f"'{topics[row].as_py()}' is not a legal Kafka topic name: {TOPIC_RULE}")

    def _source_topic_errors(self, records: pa.RecordBatch, headers: "_Headers | None"):
        if self.source_topics is None or "topic" not in records.schema.names:
            return
        topics = records.column("topic")
        refused = [name for name in pc.drop_null(pc.unique(topics)).to_pylist() if self.source_topics.reads(name)]
        if refused:
            for row in _rows(pc.is_in(topics, pa.array(refused, pa.string()))):
                yield (
                    row,
                    SourceTopicError(
                        f"would write into '{topics[row].as_py()}', which this pipeline reads; "
                        f"set {self.prefix}topic or route it"
                    ),
                )

    def _partition_errors(self, records: pa.RecordBatch, headers: "_Headers | None"):
        if not self.keep_partition or "partition" not in records.schema.names:
            return
        partitions = records.column("partition")
        for row in _rows(pc.less(partitions, 0)):
            yield (
                row,
                SinkRecordError(
                    f"partition {partitions[row].as_py()} is negative; with {self.prefix}keep.partition=true "
                    f"a record's partition must be null or at least 0"
                ),
            )

    def _header_name_errors(self, records: pa.RecordBatch, headers: "_Headers | None"):
        if headers is None or not headers.total:
            return
        names = headers.entries.flatten()[0]
        if not names.null_count:
            return
        for row in headers.rows_of(_mask(pc.is_null(names))):
            yield row, SinkRecordError("a header has a null name; Kafka headers must have a name")

    def _size_errors(self, records: pa.RecordBatch, headers: "_Headers | None"):
        # The producer checks max.request.size first, then buffer.memory.
        if self.max_request_size <= self.buffer_memory:
            limit, setting = self.max_request_size, "max.request.size"
        else:
            limit, setting = self.buffer_memory, "buffer.memory"
        if _size_upper_bound(records, headers) <= limit:
            return  # the usual batch: nothing near the limit, no per-record sizes needed
        sizes = serialized_sizes(records, headers)
        for row in np.flatnonzero(sizes > limit):
            yield (
                int(row),
                RecordTooLargeError(
                    f"the record is {int(sizes[row])} bytes when serialized (Kafka producer's estimate: key, "
                    f"value and headers plus {_BATCH_OVERHEAD + _RECORD_OVERHEAD} bytes of overhead), larger than "
                    f"{limit}, the value of {self.prefix}kafka.{setting}"
                ),
            )


def serialized_sizes(records: pa.RecordBatch, headers: "_Headers | None" = None) -> np.ndarray:
    """Kafka producer's size estimate of each record (bytes), as ``ensureValidRecordSize`` sees it.

    ``headers`` is the records' headers column as :class:`_Headers`, when already built.
    """
    rows = records.num_rows
    sizes = np.full(rows, _BATCH_OVERHEAD + _RECORD_OVERHEAD, dtype=np.int64)
    names = records.schema.names
    for field in ("key", "value"):
        sizes += _length_prefixed_sizes(records.column(field)) if field in names else _NULL_LENGTH_BYTES
    if "headers" not in names:
        return sizes + _varint_sizes(np.zeros(rows, dtype=np.int64))
    headers = headers or _Headers(records.column("headers"))
    sizes += _varint_sizes(headers.counts)
    if headers.total:
        header_names, header_values = headers.entries.flatten()
        sizes += headers.per_row(_length_prefixed_sizes(header_names) + _length_prefixed_sizes(header_values))
    return sizes


def _size_upper_bound(records: pa.RecordBatch, headers: "_Headers | None") -> int:
    """At least the largest record's estimated size: column maxima, 5 bytes per varint length."""
    names = records.schema.names
    bound = _BATCH_OVERHEAD + _RECORD_OVERHEAD + 3 * _MAX_VARINT_BYTES
    for field in ("key", "value"):
        if field in names:
            bound += pc.max(pc.binary_length(records.column(field))).as_py() or 0
    if headers is not None and headers.total:
        header_names, header_values = headers.entries.flatten()
        per_row = (
            headers.bytes_per_row(header_names)
            + headers.bytes_per_row(header_values)
            + 2 * _MAX_VARINT_BYTES * headers.counts
        )
        bound += int(per_row.max())
    return bound


class _Headers:
    """A headers column (list<struct<key, value>>) seen as one run of entries and each row's range in it."""

    def __init__(self, column: pa.Array) -> None:
        offsets = column.offsets.to_numpy().astype(np.int64)
        first = int(offsets[0])
        # A null list holds no headers (Kafka writes none), whatever its offsets say.
        valid = ~_mask(pc.is_null(column)) if column.null_count else None
        self._starts = offsets[:-1] - first
        self._ends = offsets[1:] - first
        if valid is not None:
            self._ends = np.where(valid, self._ends, self._starts)
        self.counts = self._ends - self._starts
        self.total = int(offsets[-1]) - first
        self.entries = column.values.slice(first, self.total)

    def per_row(self, per_entry: np.ndarray) -> np.ndarray:
        """Each row's sum of ``per_entry`` (one value per header entry)."""
        running = np.concatenate(([0], np.cumsum(per_entry)))
        return running[self._ends] - running[self._starts]

    def bytes_per_row(self, entries: pa.Array) -> np.ndarray:
        """Each row's data bytes in ``entries`` (a string/binary child, one value per entry)."""
        width = (
            np.int64 if pa.types.is_large_binary(entries.type) or pa.types.is_large_string(entries.type) else np.int32
        )
        offsets = np.frombuffer(entries.buffers()[1], dtype=width)[entries.offset : entries.offset + len(entries) + 1]
        return offsets[self._ends].astype(np.int64) - offsets[self._starts]

    def rows_of(self, entry_mask: np.ndarray) -> list[int]:
        """The rows holding at least one entry where ``entry_mask`` is true."""
        return [int(row) for row in np.flatnonzero(self.per_row(entry_mask.astype(np.int64)))]


def _length_prefixed_sizes(column: pa.Array) -> np.ndarray:
    """Bytes of each value after its varint length; a null is the 1-byte length -1."""
    lengths = pc.fill_null(pc.binary_length(column), -1).to_numpy(zero_copy_only=False).astype(np.int64)
    return np.where(lengths < 0, _NULL_LENGTH_BYTES, _varint_sizes(np.maximum(lengths, 0)) + lengths)


#: Zig-zag values from which a varint takes 2, 3, 4 and 5 bytes (7 bits a byte).
_VARINT_STEPS = np.array([1 << 7, 1 << 14, 1 << 21, 1 << 28], dtype=np.int64)


def _varint_sizes(values: np.ndarray) -> np.ndarray:
    """ByteUtils.sizeOfVarint of non-negative ints: zig-zag (2n), then 7 bits a byte."""
    return np.searchsorted(_VARINT_STEPS, values * 2, side="right") + 1


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
        raise ConfigError.for_key(
            f"{prefix}kafka.{name}", f"must be a whole number of bytes, got '{text}'", text
        ) from None
    if value < 0:
        raise ConfigError.for_key(f"{prefix}kafka.{name}", f"must be at least 0, got {value}", text)
    return value
