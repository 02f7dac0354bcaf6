"""The fast path's batch driver: inputs staged, chunks run, outputs assembled.

Each output column the guest can change is rebuilt from the adapter's output
memories; columns it cannot change are taken from the input by parent row.
Failures stay per record (see :mod:`host_functions.kafka_connect._fast_instance`).
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import wasmtime

from host_functions.kafka_connect import layout as A
from host_functions.kafka_connect._fast_instance import FastInstance, Harvest
from host_functions.kafka_connect.guest import GuestModule
from host_functions.runtime.columns import arrow_millis, binary_column, headers_column, offsets_column, timestamp_column
from host_functions.runtime.engine import WasmRuntime
from host_functions.runtime.record_bytes import Converters, failing_rows
from host_functions.runtime.retry import RetryPolicy
from host_functions.runtime.sandbox import Failure, Settings, StartFailure
from host_functions.runtime.staging import Layout
from host_functions.runtime.watchdog import interrupted
from smt.batch import RecordBatch
from smt.transform import ErrorSink

__all__ = ["FastPath"]

#: _run_chunk's answer when the chunk's input does not fit in memory.max.bytes.
_TOO_BIG = object()


class _Stopped(NamedTuple):
    """_run_chunk's answer when no instance could start: the first row not run, and why."""

    row: int
    cause: str


class FastPath:
    """The batch staged in linear memory; one Wasm call per chunk of rows.

    Input columns are staged only once the guest reads them: a getter of a
    column not staged stops the run (Status.NEEDS_INPUT), the host stages the
    column and the record runs again on a fresh instance.  What a guest reads
    is learned once per process (:meth:`WasmRuntime.inputs_read`), so a column
    the guest imports a getter for but never calls costs nothing per record.
    """

    def __init__(
        self, rt: WasmRuntime, guest: GuestModule, settings: Settings, converters: Converters, guest_digest: str
    ) -> None:
        self.rt, self.guest, self.settings, self.converters = rt, guest, settings, converters
        self.shape = guest.adapter_shape()
        #: instances are interchangeable between transforms with the same guest and settings
        self._instance_key = ("fast", guest_digest, settings.key())
        self._instance: FastInstance | None = None
        self._unreadable: dict[str, dict[int, str]] = {}

    @property
    def _staged(self) -> frozenset[str]:
        return self.rt.inputs_read(self._instance_key)

    # --- the batch --------------------------------------------------------

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        # The instance goes back to the runtime after every batch: the next task's copy of this
        # transform (Spark unpickles one per task) then starts warm.  WASI stores run threads that
        # must not outlive the interpreter: they stay with their transform.
        pooled = not self.settings.wasi
        if pooled:
            self._instance = self.rt.take_idle((*self._instance_key, self._staged))
        try:
            return self._apply_batch(batch, errors)
        finally:
            if pooled and self._instance is not None:
                self.rt.put_idle((*self._instance_key, self._instance.shape.staged), self._instance)
                self._instance = None

    def _apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        n = len(batch)
        failed, fail = failing_rows(errors, self.settings, batch)

        if self._instance is not None and self._instance.has_outputs():
            self._instance.forget_outputs()  # a batch that raised part way left its outputs
        #: column -> row -> why its converter failed: the record fails only if the guest reads it
        self._unreadable: dict[str, dict[int, str]] = {}
        inputs = self._inputs(batch, {})
        harvests: list[Harvest] = []
        chunks = self._chunks(inputs, 0, n)
        while chunks:
            start, end = chunks.pop(0)
            outcome = self._run_chunk(inputs, start, end, failed, fail, harvests)
            if isinstance(outcome, _Stopped):  # no instance could start: no row from there on can run
                for row in range(outcome.row, n):
                    fail(row, outcome.cause)
                break
            if outcome is _TOO_BIG:
                # the chunk does not fit in memory.max.bytes: halve it, down to the one row too big
                middle = (start + end) // 2
                chunks[:0] = [(start, middle), (middle, end)]
            elif outcome is not None:
                # the guest read a column not staged at row `outcome`: stage it, go on from there
                inputs = self._inputs(batch, inputs)
                chunks = self._chunks(inputs, outcome, n)
        if self._instance is not None:
            harvests.append(self._instance.harvest())
        return self._assemble(batch, harvests, failed, fail)

    def _chunks(self, inputs: dict[str, Any], begin: int, n: int) -> list[tuple[int, int]]:
        """Rows [begin, n) in chunks whose staged input fits in a quarter of memory.max.bytes."""
        total = sum(_nbytes(a) for a in inputs.values()) + 8 * n
        # a quarter of the limit for the input leaves room for scratch and the control block
        budget = max(self.settings.memory_max_bytes // 4, 4096)
        per_chunk = max(1, int(n * budget / max(total, 1)))
        return [(s, min(s + per_chunk, n)) for s in range(begin, n, per_chunk)]

    def _inputs(self, batch: RecordBatch, have: dict[str, Any]) -> dict[str, Any]:
        """The staged columns the guest reads, as ``have`` plus the ones it lacks."""
        n, c = len(batch), self.converters
        inputs = dict(have)
        staged = self._staged - inputs.keys()
        if "key" in staged:
            inputs["key"] = self._bytes_column(batch, "key", "key_schema", c.key, "key.converter")
        if "value" in staged:
            inputs["value"] = self._bytes_column(batch, "value", "value_schema", c.value, "value.converter")
        if "topic" in staged:
            inputs["topic"] = _single(batch.arrow_column("topic", pa.string())).cast(pa.string())
        if "headers" in staged:
            inputs["headers"] = self._headers_column(batch)
        if "timestamp" in staged:
            inputs["timestamp"] = arrow_millis(_raw(batch, "timestamp"), n, "<i8")
        if "partition" in staged:
            inputs["partition"] = arrow_millis(_raw(batch, "partition"), n, "<i4")
        if "offset" in staged:
            inputs["offset"] = arrow_millis(_raw(batch, "offset"), n, "<i8")
        return inputs

    def _bytes_column(self, batch, name, schema_name, converter, converter_key) -> pa.Array:
        if getattr(converter, "passthrough", False) and batch.is_arrow(name):
            column = _single(batch.arrow_column(name))
            return column if column.type == pa.binary() else column.cast(pa.binary())

        unreadable = self._unreadable.setdefault(name, {})

        def on_error(row: int, exc: BaseException) -> None:
            unreadable[row] = f"{converter_key} failed: {type(exc).__name__}: {exc}"

        data = converter.from_connect_batch(batch.topic, batch.column(schema_name), batch.column(name), on_error)
        return pa.array(data, type=pa.binary())

    def _headers_column(self, batch: RecordBatch) -> pa.Array:
        header_type = pa.list_(pa.struct([pa.field("key", pa.string()), pa.field("value", pa.binary())]))
        if getattr(self.converters.header, "passthrough", False) and batch.is_arrow("headers"):
            return _single(batch.arrow_column("headers"))
        rows = []
        convert = self.converters.header.from_connect_header
        for row, (topic, headers) in enumerate(zip(batch.topic, batch.headers)):
            try:
                rows.append([{"key": k, "value": convert(topic, k, None, v)} for k, v in headers])
            except Exception as exc:
                self._unreadable.setdefault("headers", {})[row] = (
                    f"header.converter failed: {type(exc).__name__}: {exc}"
                )
                rows.append([])
        return pa.array(rows, type=header_type)

    def _layout(self, inputs: dict[str, Any], start: int, end: int) -> Layout:
        layout, count = Layout(A.CONTROL_SIZE), end - start
        layout.set(A.D_ROW_BASE, start)
        layout.set(A.D_MAX_OUTPUTS, self.settings.max_outputs_per_record)
        for name, descriptor in (("key", A.D_KEY), ("value", A.D_VALUE), ("topic", A.D_TOPIC)):
            if name in inputs:
                layout.place_binary(
                    inputs[name].slice(start, count),
                    descriptor,
                    unreadable=self._unreadable_rows(name, start, end),
                    unreadable_mark=A.VALIDITY_UNREADABLE,
                )
        for name, descriptor in (("timestamp", A.D_TS), ("partition", A.D_PART), ("offset", A.D_OFFSET)):
            if name not in inputs:
                continue
            values, valid = inputs[name]
            layout.place_fixed(values[start:end], None if valid is None else valid[start:end], descriptor)
        if "headers" in inputs:
            headers = inputs["headers"].slice(start, count)
            offsets = np.frombuffer(headers.buffers()[1], dtype=np.int32, count=count + 1, offset=headers.offset * 4)
            # ListArray.flatten and StructArray.flatten both honour slicing offsets
            header_keys, header_values = headers.flatten().flatten()
            layout.set(A.D_HEADERS, layout.place_array(offsets - offsets[0]))
            layout.place_binary(header_keys, A.D_HEADERS + 4, validity=False)
            layout.place_binary(header_values, A.D_HEADERS + 12)
            unreadable = self._unreadable_rows("headers", start, end)
            if unreadable:
                bad = np.zeros(count, dtype=np.uint8)
                bad[unreadable] = 1
                layout.set(A.D_HEADERS_BAD, layout.place_array(bad))
        if self.settings.guest_config:
            entries = []
            for name, value in self.settings.guest_config.items():
                entries.append(
                    (
                        layout.place_array(np.frombuffer(name.encode() or b"\0", np.uint8)),
                        len(name.encode()),
                        layout.place_array(np.frombuffer(value.encode() or b"\0", np.uint8)),
                        len(value.encode()),
                    )
                )
            layout.set(A.D_CONFIG, len(entries))
            layout.set(A.D_CONFIG + 4, layout.place_array(np.array(entries, dtype=np.int32).reshape(-1)))
        return layout

    def _unreadable_rows(self, column: str, start: int, end: int) -> list[int]:
        """The chunk-relative rows of [start, end) whose ``column`` could not be converted."""
        return [row - start for row in self._unreadable.get(column, ()) if start <= row < end]

    # --- running ------------------------------------------------------------

    def _fresh(self, layout: Layout) -> FastInstance:
        """A new instance (under the time limit: the guest's start function runs) with ``layout`` loaded."""
        self._instance = None
        staged = self._staged
        self._instance = self.rt.start(self.settings, lambda: FastInstance(self.rt, self.guest, self.settings, staged))
        self._instance.load(layout)
        return self._instance

    def _run_chunk(
        self, inputs: dict[str, Any], start: int, end: int, failed: set[int], fail, harvests: list[Harvest]
    ) -> Any:
        """Run rows [start, end).

        Returns None when they ran, ``_TOO_BIG`` (nothing run) when their input does not fit in
        memory, or the row to resume at once more input columns are staged.
        """
        layout = self._layout(inputs, start, end)
        try:
            return self._run_rows(layout, start, end, failed, fail, harvests)
        except StartFailure as failure:
            return _Stopped(start + self._row_reached, failure.cause)

    def _run_rows(self, layout: Layout, start: int, end: int, failed: set[int], fail, harvests: list[Harvest]) -> Any:
        """:meth:`_run_chunk` once its layout is built; ``_row_reached`` follows the rows done."""
        count = end - start
        self._row_reached = 0
        try:
            instance = self._loaded(layout)
        except StartFailure:
            raise
        except Failure as failure:  # nothing was written: the instance and its outputs stay good
            if count > 1:
                return _TOO_BIG
            fail(start, failure.cause)
            return None
        row, policy, timeout = 0, RetryPolicy(), self.settings.timeout_ms / 1000
        while row < count:
            self._row_reached = row
            if start + row in failed:
                row += 1
                continue
            stop = _next_failed(failed, start + row, start + count) - start
            with self.rt.watchdog.watch(instance.progress, timeout) as watch:
                try:
                    resume = instance.run(row, stop)
                except (wasmtime.Trap, wasmtime.WasmtimeError, Failure) as exc:
                    at = instance.word(A.C_ROW)  # rows before it are committed
                    harvests.append(instance.harvest())
                    if instance.status() == A.Status.NEEDS_INPUT:
                        self.rt.note_inputs_read(self._instance_key, instance.needed_inputs())
                        self._instance = None  # the next instance gets an adapter for the new columns
                        return start + at
                    trap = _Trap(exc, interrupted(exc) and watch.fired_at is not None, start, at, stop)
                    row = self._after_trap(instance, trap, harvests, fail, policy)
                    self._row_reached = row  # a fresh instance that cannot start fails the rows from here
                    instance = self._fresh(layout)
                    continue
            if instance.status() == A.Status.GUEST_ERROR:
                fail(start + resume - 1, f"the guest reported an error: {instance.error_message()}")
            row = resume
        return None

    def _loaded(self, layout: Layout) -> FastInstance:
        """The instance to run ``layout`` on: the current one, or a fresh one when none fits the staged columns."""
        if self._instance is None or self._instance.shape.staged != self._staged:
            return self._fresh(layout)
        self._instance.load(layout)
        return self._instance

    def _after_trap(self, instance: FastInstance, trap: "_Trap", harvests: list[Harvest], fail, policy) -> int:
        """The chunk row to go on from after a run stopped at ``trap.at``: the same row to run it again
        on a fresh instance, the next once it is failed."""
        at, exc = trap.at, trap.exc
        if at >= trap.stop and not isinstance(exc, Failure):
            return at  # interrupted after the last row's commit: nothing is left to run or blame
        if instance.status() == A.Status.INPUT_UNREADABLE:
            column = next(iter(instance.needed_inputs()))
            fail(trap.start + at, self._unreadable[column][trap.start + at])
            return at + 1
        # output memories that filled up are harvested and the record runs again, until
        # the batch's outputs reach their bound: from then on such a record fails
        output_full = instance.status() == A.Status.OUTPUT_FULL and harvests[-1].count > 0
        too_big = output_full and sum(h.nbytes for h in harvests) > self.settings.max_output_bytes_per_batch
        if (output_full and not too_big) or self._retry_out_of_memory(instance, exc, trap.start + at, policy):
            return at
        cause = self.settings.batch_outputs_too_big() if too_big else instance.failure_cause(exc, trap.timed_out)
        fail(trap.start + at, cause)
        return at + 1

    def _retry_out_of_memory(self, instance: FastInstance, exc: BaseException, row: int, policy) -> bool:
        """Whether a trap (not a host failure, not an interrupt) that left the guest memory at its limit
        runs ``row`` again on a fresh instance: once per row, as :class:`RetryPolicy` says."""
        if interrupted(exc) or isinstance(exc, Failure) or instance.status() != A.Status.OK:
            return False
        memory_size = instance.out_of_memory()
        if not memory_size or not policy.retry_out_of_memory(row):
            return False
        self.settings.note_out_of_memory(memory_size, row)
        return True

    # --- output -------------------------------------------------------------

    def _assemble(self, batch: RecordBatch, harvests: list[Harvest], failed: set[int], fail) -> RecordBatch:
        harvests = [h for h in harvests if h.count]
        if not harvests:
            return batch.take([])
        h = Harvest.merge(harvests)
        n = len(batch)
        # without failures, drops or emits every row gave exactly one output, in order
        regular = h.count == n and not failed and not h.irregular
        parents = h.parents.astype(np.int64)
        out = _same_rows(batch) if regular or _is_identity(parents, n) else batch.take(parents)
        shape, c = self.shape, self.converters
        bad: set[int] = set()
        columns: dict[str, Any] = {}
        flags = h.flags
        # A column no output record changed is the input's (taken by parent); a changed one
        # holds only the records that changed it, the rest come from the input.
        topics = None
        if shape.modifies_topic and h.flags_seen & A.SET_TOPIC:
            topic = offsets_column(h.offsets["otp"], h.data["otp"], None, pa.binary())
            topic = _as_utf8(topic, parents, bad, "set_topic: the topic", fail)
            columns["topic"] = topics = _merge(flags & A.SET_TOPIC, topic, lambda: out.arrow_column("topic"))
        for name, memory, set_bit, null_bit, converter in (
            ("key", "ok", A.SET_KEY, A.KEY_NULL, c.key),
            ("value", "ov", A.SET_VALUE, A.VALUE_NULL, c.value),
        ):
            if shape.modifies(name) and h.flags_seen & set_bit:
                null = (flags & null_bit).astype(bool) if h.flags_seen & null_bit else None
                column = offsets_column(h.offsets[memory], h.data[memory], null, pa.binary())
                self._bytes_output(
                    out,
                    columns,
                    name,
                    f"{name}_schema",
                    column,
                    h,
                    set_bit,
                    converter,
                    f"{name}.converter",
                    parents,
                    bad,
                    fail,
                    topics,
                )
        if shape.modifies_timestamp and h.flags_seen & A.SET_TIMESTAMP:
            columns["timestamp"] = _timestamps(out, h)
        if shape.modifies_headers and h.flags_seen & A.SET_HEADERS:
            header_table = h.header_table
            counts = np.diff(h.header_offsets)
            header_keys = binary_column(header_table["key_len"], h.data["ohk"], pa.binary())
            header_parents = parents[np.repeat(np.arange(len(counts)), counts)]
            header_keys = _as_utf8(header_keys, header_parents, bad, "set_header: the header name", fail)
            headers = headers_column(h.header_offsets, header_keys, header_table, h.data["ohv"])
            columns["headers"] = self._headers_output(out, headers, flags & A.SET_HEADERS, parents, bad, fail, topics)
        keep = None
        if bad:
            keep = ~np.isin(parents, list(bad))
            out = out.take(np.flatnonzero(keep))
        for name, column in columns.items():
            if keep is not None:
                column = (
                    column.filter(pa.array(keep))
                    if isinstance(column, pa.Array)
                    else [v for v, k in zip(column, keep) if k]
                )
            out.set_column(name, column)
        return out

    def _bytes_output(
        self,
        out,
        columns,
        name,
        schema_name,
        column,
        h: Harvest,
        set_bit,
        converter,
        converter_key,
        parents,
        bad,
        fail,
        topics,
    ) -> None:
        set_mask = h.flags & set_bit
        if getattr(converter, "passthrough", False):
            columns[name] = _merge(
                set_mask,
                column,
                lambda: (
                    out.column(name) if not out.is_arrow(name) else _single(out.arrow_column(name)).cast(pa.binary())
                ),
            )
            # a set key/value has no schema; skip the column when it holds no schemas at all
            if out.has_column(schema_name):
                schemas = out.column(schema_name)
                if schemas.count(None) != len(schemas):
                    columns[schema_name] = [None if m else s for s, m in zip(schemas, set_mask)]
            return
        values, schemas = list(out.column(name)), list(out.column(schema_name))
        data = column.to_pylist()
        topic_list = topics.to_pylist() if topics is not None else out.topic
        for i in np.flatnonzero(set_mask):
            try:
                schemas[i], values[i] = converter.to_connect_data(topic_list[i], data[i])
            except Exception as exc:
                _fail_parent(int(parents[i]), f"{converter_key} failed: {type(exc).__name__}: {exc}", bad, fail)
        columns[name], columns[schema_name] = values, schemas

    def _headers_output(self, out, headers: pa.Array, set_mask, parents, bad, fail, topics):
        converter = self.converters.header
        if getattr(converter, "passthrough", False):
            return _merge(set_mask, headers, lambda: out.to_arrow(["headers"]).column(0))
        result = list(out.headers)
        topic_list = topics.to_pylist() if topics is not None else out.topic
        rows = headers.to_pylist()
        for i in np.flatnonzero(set_mask):
            try:
                result[i] = tuple(
                    (h["key"], converter.to_connect_header(topic_list[i], h["key"], h["value"])[1]) for h in rows[i]
                )
            except Exception as exc:
                _fail_parent(int(parents[i]), f"header.converter failed: {type(exc).__name__}: {exc}", bad, fail)
        return result


def _merge(set_mask: np.ndarray, changed: pa.Array, unchanged: Callable[[], Any]) -> Any:
    """``changed`` where ``set_mask`` is set, else ``unchanged()`` (an Arrow array or a list)."""
    set_rows = set_mask.astype(bool)
    if set_rows.all():
        return changed
    inputs = unchanged()
    if isinstance(inputs, list):  # Python values: only the changed rows become Python objects
        merged = list(inputs)
        for i in np.flatnonzero(set_rows):
            merged[i] = changed[int(i)].as_py()
        return merged
    return pc.if_else(pa.array(set_rows), changed, _single(inputs).cast(changed.type))


def _timestamps(out: RecordBatch, h: Harvest) -> pa.Array:
    """The timestamps the guest set, the input's elsewhere."""
    set_rows = (h.flags & A.SET_TIMESTAMP).astype(bool)
    millis, null = h.timestamps, (h.flags & A.TIMESTAMP_NULL).astype(bool)
    if not set_rows.all():
        input_millis, input_null = out.timestamp_millis()
        millis = np.where(set_rows, millis, input_millis)
        null = np.where(set_rows, null, False if input_null is None else input_null)
    return timestamp_column(millis, null)


class _Trap(NamedTuple):
    """A run of rows [``start`` + row, ``start`` + ``stop``) that stopped at chunk row ``at`` with ``exc``."""

    exc: BaseException
    timed_out: bool
    start: int
    at: int
    stop: int


def _next_failed(failed: set[int], row: int, end: int) -> int:
    """The first already-failed row at or after ``row`` (``end`` if none): runs stop before it."""
    if not failed:
        return end
    return min((r for r in failed if row <= r < end), default=end)


def _nbytes(staged: Any) -> int:
    if isinstance(staged, pa.Array):
        return staged.get_total_buffer_size()  # nbytes walks a sliced array; an upper bound will do
    values, valid = staged  # a fixed-width column: (values, validity or None)
    return values.nbytes + (0 if valid is None else len(valid))


def _is_identity(parents: np.ndarray, n: int) -> bool:
    return len(parents) == n and bool((parents == np.arange(n)).all())


def _same_rows(batch: RecordBatch) -> RecordBatch:
    """A new batch sharing the input's columns (set_column on it leaves the input alone).

    ``take`` of every row would copy Python-list columns row by row; the
    column objects are immutable once built, so sharing them is safe.
    """
    return batch.shallow_copy()


def _single(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One contiguous array: staging copies buffers, which a chunked array does not have."""
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def _raw(batch: RecordBatch, name: str) -> Any:
    return batch.arrow_column(name) if batch.is_arrow(name) else batch.column(name)


def _fail_parent(parent: int, cause: str, bad: set[int], fail) -> None:
    if parent not in bad:
        bad.add(parent)
        fail(parent, cause)


def _as_utf8(column: pa.Array, parents: np.ndarray, bad: set[int], what: str, fail) -> pa.Array:
    try:
        return column.cast(pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        pass
    values = column.to_pylist()
    for i, value in enumerate(values):
        try:
            value.decode("utf-8")
        except UnicodeDecodeError as exc:
            _fail_parent(int(parents[i]), f"{what} is not valid UTF-8: {exc}", bad, fail)
    return pa.array([v.decode("utf-8", "replace") for v in values], type=pa.string())
