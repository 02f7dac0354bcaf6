"""Runs a proxy-wasm Kafka filter over record batches, as a proxy would run it on a client's connection.

Per batch: key, value and headers go through the transform's converters into
Kafka record bodies; rows are grouped by topic and partition and cut into
Produce requests of at most :data:`MAX_REQUEST_BYTES` (and an eighth of
``memory.max.bytes``); each request is one call into the filter
(``proxy_on_downstream_data``) on one connection per batch.  What the filter
lets through is decoded back into records (:mod:`._produce`): an output record
names its input by ``offsetDelta`` and keeps that record's other fields; the
filter may change key, value, headers, timestamp, topic and partition, drop
records and add some (``max.outputs.per.record`` bounds that).

A request fails all its records, each with the cause: the filter trapped,
ran past ``timeout.ms``, ran out of memory (after one more try on a fresh
instance), broke a host rule (a downstream buffer past ``memory.max.bytes``),
closed the connection, held the request back (Pause to the end), forwarded
more than ``max.output.bytes.per.batch`` in the batch, or forwarded bytes that
are not the Produce request(s) it was given (corrupt, bad CRC-32C, unknown
offsetDelta).  The instance of a failed call is never reused; the next request
runs on a fresh one and a new connection.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from host_functions.kafka_wire import encode_record_bodies
from host_functions.proxy_wasm._feeder import RequestFeeder
from host_functions.proxy_wasm._guest import FilterGuest
from host_functions.proxy_wasm._instance import FilterInstance
from host_functions.proxy_wasm._produce import ForwardedFrame, decode_forwarded, encode_produce_request
from host_functions.proxy_wasm._record_codec import RecordCodec
from host_functions.redpanda.batches import budget_chunks
from host_functions.runtime.engine import WasmRuntime
from host_functions.runtime.record_bytes import (
    Converters,
    assemble_outputs,
    bytes_column,
    failing_rows,
    headers_column,
    single,
)
from host_functions.runtime.sandbox import Settings
from smt.batch import RecordBatch
from smt.transform import ErrorSink

__all__ = ["ProxyWasmRunner", "MAX_REQUEST_BYTES"]

#: Kafka's default producer max.request.size: requests are never bigger (a record bigger than that goes alone).
MAX_REQUEST_BYTES = 1 << 20
#: Produce requests' timeout_ms field (the filter may read it; nothing waits on it here).
_REQUEST_TIMEOUT_MS = 30_000


@dataclasses.dataclass
class _Request:
    """A Produce request the host sent: its correlation id, topic-partition and rows (record i = rows[i])."""

    correlation_id: int
    rows: np.ndarray
    data: bytes


class _RecordColumns:
    """Key and value (binary) of the batch's records and, when some record has headers, every record's body."""

    def __init__(self, keys: pa.Array, values: pa.Array, headers: pa.Array | None) -> None:
        self.keys, self.values = keys, values
        has_headers = headers is not None and pc.max(pc.list_value_length(headers).fill_null(0)).as_py()
        # with headers the whole body is built a column at a time; without, the codec writes keys and values itself
        self.bodies = encode_record_bodies(keys, values, headers) if has_headers else None

    def sizes(self) -> np.ndarray:
        """How many bytes each record's key, value and headers take."""
        if self.bodies is not None:
            return pc.binary_length(self.bodies).to_numpy(zero_copy_only=False)
        return pc.binary_length(self.keys).fill_null(0).to_numpy(zero_copy_only=False) + pc.binary_length(
            self.values
        ).fill_null(0).to_numpy(zero_copy_only=False)

    def take(self, rows: np.ndarray) -> "_RecordColumns":
        part = object.__new__(_RecordColumns)
        indices = pa.array(rows)
        part.keys, part.values = self.keys.take(indices), self.values.take(indices)
        part.bodies = None if self.bodies is None else self.bodies.take(indices)
        return part


@dataclasses.dataclass
class _Outputs:
    """Output records gathered over a batch, as column pieces."""

    parents: list = dataclasses.field(default_factory=list)
    keys: list = dataclasses.field(default_factory=list)
    values: list = dataclasses.field(default_factory=list)
    headers: list = dataclasses.field(default_factory=list)
    topics: list = dataclasses.field(default_factory=list)
    partitions: list = dataclasses.field(default_factory=list)
    timestamps: list = dataclasses.field(default_factory=list)


class ProxyWasmRunner:
    """The :class:`host_functions.guest_abi.GuestRunner` of proxy-wasm network filters."""

    def __init__(
        self,
        rt: WasmRuntime,
        guest: FilterGuest,
        settings: Settings,
        converters: Converters,
        plugin_configuration: dict[str, str],
    ) -> None:
        self.rt, self.guest, self.settings, self.converters = rt, guest, settings, converters
        self.plugin_configuration = json.dumps(plugin_configuration, sort_keys=True).encode()
        self.max_outputs = settings.max_outputs_per_record
        self.request_budget = min(MAX_REQUEST_BYTES, settings.memory_max_bytes // 8)
        self._instance: FilterInstance | None = None
        self._codec: RecordCodec | None = None

    def instance(self) -> FilterInstance:
        """The live instance, started if needed; raises StartFailed."""
        if self._instance is None or not self._instance.alive:
            self._instance = None
            self._instance = FilterInstance(
                self.rt, self.guest, self.settings, self.plugin_configuration, self.settings.memory_max_bytes
            )
        return self._instance

    def close(self) -> None:
        self._instance = None

    # --- the batch --------------------------------------------------------------------

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        failed, fail = failing_rows(errors, self.settings, batch)
        if self._codec is None:
            self._codec = RecordCodec(self.rt)
        columns = _RecordColumns(
            bytes_column(batch, "key", self.converters.key, "key.converter", fail),
            bytes_column(batch, "value", self.converters.value, "value.converter", fail),
            headers_column(batch, self.converters.header, fail),
        )
        millis, null = batch.timestamp_millis()
        millis = np.where(null, -1, millis) if null is not None else millis
        partitions = _partitions(batch)
        requests = self._requests(batch, columns, millis.astype(np.int64), partitions, failed)
        outputs = _Outputs()
        RequestFeeder(
            self.instance, self.settings, lambda forwarded, sent: self._decode(forwarded, sent, outputs, fail), fail
        ).run(requests)
        return self._assemble(batch, outputs, millis, partitions, fail)

    def _requests(
        self,
        batch: RecordBatch,
        columns: "_RecordColumns",
        millis: np.ndarray,
        partitions: np.ndarray,
        failed: set[int],
    ) -> list[_Request]:
        """Produce requests per topic-partition, each within the request budget."""
        rows = np.arange(len(batch))
        if failed:
            rows = np.setdiff1d(rows, np.fromiter(failed, dtype=np.int64))
        if not len(rows):
            return []
        topics = pc.fill_null(single(batch.arrow_column("topic", pa.string())).cast(pa.string()), "")
        sizes = columns.sizes()
        requests = []
        for topic, partition, group in _topic_partitions(topics, partitions, rows):
            for chunk in budget_chunks(group, sizes, self.request_budget):
                part = columns if len(chunk) == len(batch) else columns.take(chunk)  # (all rows, in order)
                data = encode_produce_request(
                    self._codec,
                    len(requests),
                    topic,
                    int(partition),
                    part.keys,
                    part.values,
                    part.bodies,
                    millis[chunk],
                    _REQUEST_TIMEOUT_MS,
                )
                requests.append(_Request(len(requests), chunk, data))
        return requests

    # --- what the filter forwarded -------------------------------------------------------

    def _decode(self, forwarded: bytearray, pending: list[_Request], outputs: _Outputs, fail) -> None:
        sent = {request.correlation_id: request for request in pending}
        frames, broken = decode_forwarded(forwarded, self._codec)
        unknown = [frame.correlation_id for frame in frames if frame.correlation_id not in sent]
        if broken or unknown:
            cause = broken or f"the filter forwarded a request the host did not send (correlation id {unknown[0]})"
            for request in pending:
                _fail_rows(request.rows, f"the filter's output is not a Kafka request stream: {cause}", fail)
            return
        seen: set[int] = set()
        for frame in frames:
            seen.add(frame.correlation_id)
            self._take(frame, sent[frame.correlation_id], outputs, fail)
        for request in pending:
            if request.correlation_id not in seen:
                _fail_rows(request.rows, "the filter forwarded nothing for the Produce request holding it", fail)

    def _take(self, frame: ForwardedFrame, request: _Request, outputs: _Outputs, fail) -> None:
        if frame.error is None:
            bad = next(
                (
                    p
                    for p in frame.partitions
                    if len(p.offset_deltas)
                    and (p.offset_deltas.min() < 0 or p.offset_deltas.max() >= len(request.rows))
                ),
                None,
            )
            if bad is not None:
                frame.error = (
                    f"a record of {bad.topic}-{bad.partition} has an offsetDelta the host did not send "
                    f"(0 to {len(request.rows) - 1})"
                )
        if frame.error is not None:
            _fail_rows(request.rows, f"the filter corrupted the Produce request: {frame.error}", fail)
            return
        for part in frame.partitions:
            count = len(part.offset_deltas)
            outputs.parents.append(request.rows[part.offset_deltas])
            outputs.keys.append(part.records.keys)
            outputs.values.append(part.records.values)
            outputs.headers.append(part.records.headers)
            # a record without a topic went out as "" (no Kafka topic has that name): it comes back without one
            outputs.topics.append(pa.repeat(pa.scalar(part.topic or None, pa.string()), count))
            outputs.partitions.append(np.full(count, part.partition, dtype=np.int64))
            outputs.timestamps.append(part.timestamps)

    def _assemble(
        self, batch: RecordBatch, outputs: _Outputs, millis: np.ndarray, partitions: np.ndarray, fail
    ) -> RecordBatch:
        if not outputs.parents:
            return batch.take([])
        parents = np.concatenate(outputs.parents)
        over = _over_limit(parents, self.max_outputs)
        for row in over.tolist():
            fail(row, self.settings.too_many_outputs())
        keep = ~np.isin(parents, over) if len(over) else None
        columns = {
            "key": pa.concat_arrays(outputs.keys),
            "value": pa.concat_arrays(outputs.values),
            "headers": pa.concat_arrays(outputs.headers),
            "topic": pa.concat_arrays(outputs.topics),
        }
        new_millis = np.concatenate(outputs.timestamps)
        new_partitions = np.concatenate(outputs.partitions)
        if keep is not None:
            parents, new_millis, new_partitions = parents[keep], new_millis[keep], new_partitions[keep]
            columns = {name: column.filter(pa.array(keep)) for name, column in columns.items()}
        if (new_millis != millis[parents]).any():  # the filter set timestamps
            columns["timestamp"] = pa.array(new_millis * 1000, pa.int64(), mask=new_millis == -1).cast(
                pa.timestamp("us")
            )
        if (new_partitions != partitions[parents]).any():  # the filter moved records to other partitions
            columns["partition"] = pa.array(new_partitions, pa.int32(), mask=new_partitions < 0)
        return assemble_outputs(batch, parents, columns, self.converters, fail)


def _partitions(batch: RecordBatch) -> np.ndarray:
    """Each row's partition (-1: none), as the Produce request's partition index."""
    if not batch.has_column("partition"):
        return np.full(len(batch), -1, dtype=np.int64)
    column = single(batch.arrow_column("partition", pa.int32())).cast(pa.int64()).fill_null(-1)
    return column.to_numpy(zero_copy_only=False)


def _topic_partitions(topics: pa.Array, partitions: np.ndarray, rows: np.ndarray):
    """``(topic, partition, rows)`` per topic-partition, rows in batch order."""
    row = int(rows[0])
    if (partitions[rows] == partitions[row]).all() and pc.all(pc.equal(topics, topics[row])).as_py():
        return [(topics[row].as_py(), partitions[row], rows)]  # the common case: one topic-partition
    encoded = topics.dictionary_encode()
    names = encoded.dictionary.to_pylist()
    indices = encoded.indices.to_numpy(zero_copy_only=False)[rows]
    keys = indices.astype(np.int64) * (1 << 33) + (partitions[rows] + 1)
    unique, firsts = np.unique(keys, return_index=True)
    return [(names[indices[i]], partitions[rows[i]], rows[keys == key]) for key, i in zip(unique, firsts)]


def _over_limit(parents: np.ndarray, max_outputs: int) -> np.ndarray:
    counts = np.bincount(parents)
    return np.flatnonzero(counts > max_outputs)


def _fail_rows(rows: np.ndarray, cause: str, fail) -> None:
    for row in rows.tolist():
        fail(row, cause)
