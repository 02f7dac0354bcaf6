"""Runs a Redpanda guest over record batches: staging, failures, outputs.

Per batch: key, value and headers go through the transform's converters
into Kafka record bodies (:func:`host_functions.kafka_wire.encode_record_bodies`),
rows are grouped by input topic (the guest's ``REDPANDA_INPUT_TOPIC`` is set
per instance), each group runs on its instance in chunks that fit
``memory.max.bytes``, and the outputs come back as Arrow columns.

A record that fails (trap, time limit, exit, bad pointer, too many outputs)
is reported for its row; its instance is never reused and the rest of the
chunk runs on a fresh one.  An output keeps its input record's partition,
offset and timestamp (as Redpanda stamps outputs with the input's time), and
goes to the topic the guest chose: the first output topic by default.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from host_functions.kafka_wire import encode_record_bodies
from host_functions.redpanda import adapter as A
from host_functions.redpanda._guest import RedpandaGuest
from host_functions.redpanda._instance import Batch, RedpandaInstance, StartFailed, failure_cause
from host_functions.redpanda.batches import Outputs, budget_chunks, output_bytes_column, output_headers_column
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
from host_functions.runtime.staging import Layout
from smt.batch import RecordBatch
from smt.transform import ErrorSink

__all__ = ["RedpandaRunner"]

#: Instances kept per transform, one per input topic (each is a thread and a store).
_MAX_INSTANCES = 4


class RedpandaRunner:
    """The :class:`host_functions.guest_abi.GuestRunner` of Redpanda guests."""

    def __init__(
        self,
        rt: WasmRuntime,
        guest: RedpandaGuest,
        settings: Settings,
        converters: Converters,
        output_topics: list[str],
        input_topic: str | None,
        environment: dict[str, str],
        max_outputs: int,
    ) -> None:
        self.rt, self.guest, self.settings, self.converters = rt, guest, settings, converters
        self.output_topics, self.input_topic = output_topics, input_topic
        self.environment, self.max_outputs = environment, max_outputs
        self._adapter = rt.compile(A.adapter_wat().encode())
        self._shim = rt.compile(A.shim_wat().encode())
        self._instances: dict[str, RedpandaInstance] = {}

    # --- instances --------------------------------------------------------------

    def instance(self, input_topic: str) -> RedpandaInstance:
        """The live instance for ``input_topic``, started if needed; raises StartFailed."""
        instance = self._instances.get(input_topic)
        if instance is not None and instance.alive:
            return instance
        if len(self._instances) >= _MAX_INSTANCES and input_topic not in self._instances:
            self._instances.pop(next(iter(self._instances))).close()
        topics = self.output_topics or [input_topic]
        environment = {**self.environment, "REDPANDA_INPUT_TOPIC": input_topic}
        environment.update((f"REDPANDA_OUTPUT_TOPIC_{i}", topic) for i, topic in enumerate(topics))
        if instance is not None:
            self._instances.pop(input_topic).close()  # a trap ended it: free its store now
        instance = RedpandaInstance(
            self.rt, self._adapter, self._shim, self.guest, self.settings, environment, topics, self.max_outputs
        )
        self._instances[input_topic] = instance
        return instance

    def close(self) -> None:
        for instance in self._instances.values():
            instance.close()
        self._instances.clear()

    # --- the batch --------------------------------------------------------------

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        failed, fail = failing_rows(errors, self.settings, batch)
        staged = _Staged.of(batch, self.converters, fail)
        parts: list[tuple[np.ndarray, Outputs, list[str]]] = []
        for topic, rows in self._groups(batch, failed):
            self._run_group(topic, rows, staged, parts, fail)
        return _assemble(batch, parts, self.converters, fail)

    def _groups(self, batch: RecordBatch, failed: set[int]) -> list[tuple[str, np.ndarray]]:
        """Rows by the input topic their instance sees (``input.topic``, else the record's own)."""
        rows = np.arange(len(batch))
        if failed:
            rows = np.setdiff1d(rows, np.fromiter(failed, dtype=np.int64))
        if self.input_topic is not None or not len(rows):
            return [(self.input_topic or "", rows)]
        topics = pc.fill_null(single(batch.arrow_column("topic", pa.string())).cast(pa.string()), "")
        if len(topics) and pc.all(pc.equal(topics, topics[0])).as_py():  # the common case: one topic
            return [(topics[0].as_py(), rows)]
        encoded = topics.take(pa.array(rows)).dictionary_encode()
        indices = encoded.indices.to_numpy(zero_copy_only=False)
        return [(name, rows[indices == i]) for i, name in enumerate(encoded.dictionary.to_pylist())]

    def _run_group(self, topic: str, rows: np.ndarray, staged: "_Staged", parts: list, fail) -> None:
        for chunk in budget_chunks(rows, staged.sizes, self.settings.memory_max_bytes // 4):
            start = 0
            while start < len(chunk):
                try:
                    instance = self.instance(topic)
                except StartFailed as exc:  # the guest cannot start at all: the rest of the group fails with it
                    for row in rows[np.searchsorted(rows, chunk[start]) :].tolist():
                        fail(row, str(exc))
                    return
                outcome = instance.run(staged.batch(chunk[start:]))
                parts.append((chunk[start:], outcome.outputs, instance.topics))
                if outcome.failed_row is None:
                    break
                at = start + outcome.failed_row
                fail(int(chunk[at]), failure_cause(outcome, self.settings, self.max_outputs))
                start = at + 1


class _Staged:
    """The batch as the guest reads it: record bodies, timestamps and offsets."""

    def __init__(self, bodies: pa.Array, millis: np.ndarray, offsets: np.ndarray) -> None:
        self.bodies, self.millis, self.offsets = bodies, millis, offsets
        body_offsets = np.frombuffer(
            bodies.buffers()[1], dtype=np.int32, count=len(bodies) + 1, offset=bodies.offset * 4
        )
        self.sizes = np.diff(body_offsets)

    @classmethod
    def of(cls, batch: RecordBatch, converters: Converters, fail) -> "_Staged":
        keys = bytes_column(batch, "key", converters.key, "key.converter", fail)
        values = bytes_column(batch, "value", converters.value, "value.converter", fail)
        bodies = encode_record_bodies(keys, values, headers_column(batch, converters.header, fail))
        millis, null = batch.timestamp_millis()
        millis = np.where(null, -1, millis) if null is not None else millis
        offsets = single(batch.arrow_column("offset", pa.int64())).cast(pa.int64()).fill_null(-1)
        return cls(bodies, millis.astype(np.int64), offsets.to_numpy(zero_copy_only=False))

    def batch(self, rows: np.ndarray) -> Batch:
        bodies = self.bodies.take(pa.array(rows))
        millis, offsets = self.millis[rows], self.offsets[rows]
        layout = Layout(A.CONTROL_SIZE)
        layout.place_binary(bodies, A.D_BODIES, validity=False)
        layout.set(A.D_TIMESTAMPS, layout.place_array(millis))
        layout.set(A.D_OFFSETS, layout.place_array(offsets))
        return Batch(
            layout,
            len(rows),
            max_body=int(self.sizes[rows].max()),
            base_offset=int(offsets[0]),
            base_timestamp=int(millis[0]),
            max_timestamp=int(millis.max()),
        )


# --- outputs ---------------------------------------------------------------------


def _assemble(batch: RecordBatch, parts: list, converters: Converters, fail) -> RecordBatch:
    parts = [(rows, outputs, topics) for rows, outputs, topics in parts if len(outputs.meta)]
    if not parts:
        return batch.take([])
    parents = np.concatenate([rows[outputs.meta["parent"]] for rows, outputs, _ in parts])
    columns = {
        "key": pa.concat_arrays([output_bytes_column(o.meta, o.keys, "key_end", 1) for _, o, _ in parts]),
        "value": pa.concat_arrays([output_bytes_column(o.meta, o.values, "value_end", 2) for _, o, _ in parts]),
        "headers": pa.concat_arrays([output_headers_column(o) for _, o, _ in parts]),
        "topic": pa.concat_arrays([_topics_out(o.meta, topics) for _, o, topics in parts]),
    }
    return assemble_outputs(batch, parents, columns, converters, fail)


def _topics_out(meta: np.ndarray, topics: list[str]) -> pa.Array:
    indices = pa.array(meta["topic"], type=pa.int32())
    return pa.DictionaryArray.from_arrays(indices, pa.array(topics, pa.string())).cast(pa.string())
