"""Runs an Extism plug-in over record batches: one Wasm call per chunk, one plug-in call per record.

The batch's records are encoded (record shape: a JSON document each; host-function
shape: bytes through the transform's converters), staged in the kernel's ``io``
memory a chunk at a time, and run by the kernel's driver.  A record that traps,
times out, runs out of memory or reports an error fails alone, as a
``WasmGuestError``: its results so far are kept, the instance is replaced, and the
chunk goes on from the next record.  Outputs are decoded once per batch.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np
import wasmtime

from host_functions.extism._connect_host import ConnectRecords
from host_functions.extism._documents import RecordDocuments
from host_functions.extism._instance import BAD_OUTPUT, INPUT_TOO_BIG, OUTPUT, OUTPUT_FULL, PluginInstance
from host_functions.extism._plugin import RECORD_SHAPE, PluginModule
from host_functions.runtime.engine import WasmRuntime
from host_functions.runtime.record_bytes import Converters, failing_rows
from host_functions.runtime.sandbox import Failure, Settings, StartFailure, describe_trap
from host_functions.runtime.watchdog import interrupted
from smt.batch import RecordBatch
from smt.gc_pause import gc_paused
from smt.transform import ErrorSink

__all__ = ["ExtismRunner", "StartFailure"]

_OUTPUT_COLUMNS = ("topic", "key_schema", "key", "value_schema", "value", "headers")


class ExtismRunner:
    """The runner of one configured plug-in (a :class:`host_functions.guest_abi.GuestRunner`)."""

    def __init__(
        self, rt: WasmRuntime, plugin: PluginModule, settings: Settings, converters: Converters, max_outputs: int
    ) -> None:
        self.rt, self.plugin, self.settings = rt, plugin, settings
        self.documents = RecordDocuments(max_outputs) if plugin.shape == RECORD_SHAPE else None
        self.connect = None if plugin.shape == RECORD_SHAPE else ConnectRecords(converters)
        self._instance: PluginInstance | None = None
        self._chunk_start = 0

    # --- instances ----------------------------------------------------------------------

    def start(self) -> PluginInstance:
        """A new instance, instantiated and initialised under the time limit; :class:`StartFailure` if it cannot be."""
        user_functions = None
        if self.connect is not None:
            connect = self.connect
            user_functions = lambda instance: connect.functions(  # noqa: E731 - bound per instance
                instance, lambda: self._chunk_start + instance.progress()
            )
        return self.rt.start(
            self.settings,
            lambda: PluginInstance(self.rt, self.plugin, self.settings, user_functions),
            cannot_start="the plug-in cannot start",
        )

    # --- the batch ----------------------------------------------------------------------

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        with gc_paused():  # a map or two per record and no cycles: see smt.gc_pause
            return self._apply_batch(batch, errors)

    def _apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        failed, fail = failing_rows(errors, self.settings, batch)

        if self.documents is not None:
            documents = self.documents.encode(batch, fail)
        else:
            self.connect.stage(batch, fail)
            documents = [b""] * len(batch)
        pieces: list[_Piece] = []
        try:
            chunks = self._chunks(documents)
            while chunks:
                start, end = chunks.pop(0)
                if not self._run_chunk(documents, start, end, failed, fail, pieces):
                    middle = (start + end) // 2  # the chunk does not fit in memory.max.bytes: halve it
                    chunks[:0] = [(start, middle), (middle, end)]
        except StartFailure as failure:
            self._instance = None
            done = {row for piece in pieces for row in piece.rows.tolist()}
            for row in range(len(batch)):
                if row not in done:
                    fail(row, failure.cause)
        return self._assemble(batch, pieces, fail)

    def _chunks(self, documents: list[bytes | None]) -> list[tuple[int, int]]:
        total = sum(len(d) for d in documents if d) + 8 * len(documents)
        budget = max(self.settings.memory_max_bytes // 4, 4096)
        per_chunk = max(1, int(len(documents) * budget / max(total, 1)))
        return [(s, min(s + per_chunk, len(documents))) for s in range(0, len(documents), per_chunk)]

    def _run_chunk(self, documents, start: int, end: int, failed: set[int], fail, pieces: list[_Piece]) -> bool:
        """Run rows [start, end); False (nothing run) when their input does not fit in memory."""
        chunk = [d or b"" for d in documents[start:end]]
        self._chunk_start = start
        try:
            instance = self._staged(chunk)
        except StartFailure:
            raise
        except Failure as failure:
            if end - start > 1:
                return False
            fail(start, failure.cause)
            return True
        row, count = 0, end - start
        while row < count:
            if start + row in failed:
                row += 1
                continue
            stop = next((r - start for r in sorted(failed) if start + row <= r < end), count)
            with self.rt.watchdog.watch(instance.progress, self.settings.timeout_ms / 1000) as watch:
                try:
                    reached, status = instance.run(row, stop)
                except (wasmtime.Trap, wasmtime.WasmtimeError, Failure) as exc:
                    row = self._after_failure(instance, exc, watch.fired_at is not None, start, fail, pieces)
                    self._instance = None  # never reuse an instance that trapped
                    instance = self._staged(chunk)
                    continue
            self._collect(instance, start, fail, pieces)
            row = self._after_run(instance, start, reached, status, fail, pieces)
        return True

    def _after_failure(
        self, instance: PluginInstance, exc: BaseException, fired: bool, start: int, fail, pieces
    ) -> int:
        """The chunk row to go on from after a failed run (the record fails): the next."""
        at = instance.progress()
        self._collect(instance, start, fail, pieces)
        timed_out = interrupted(exc) and fired
        memory_full = None if interrupted(exc) else instance.memory_at_limit()
        fail(start + at, describe_trap(exc, timed_out=timed_out, memory_full=memory_full, settings=self.settings))
        return at + 1

    def _staged(self, chunk: list[bytes]) -> PluginInstance:
        if self._instance is None:
            self._instance = self.start()
        self._instance.stage(chunk)
        return self._instance

    def _after_run(self, instance: PluginInstance, start: int, reached: int, status: int, fail, pieces) -> int:
        """The chunk row to go on from, after a run that ended with ``status``."""
        if status == OUTPUT_FULL:
            if instance.commit_pending(reached):
                self._collect(instance, start, fail, pieces)
            else:
                fail(start + reached, f"its output does not fit in memory.max.bytes={self.settings.memory_max_bytes}")
            return reached + 1
        if status == INPUT_TOO_BIG:
            fail(
                start + reached,
                f"its input does not fit in kernel memory (memory.max.bytes={self.settings.memory_max_bytes})",
            )
            return reached + 1
        return reached

    def _collect(self, instance: PluginInstance, start: int, fail, pieces: list["_Piece"]) -> None:
        """Take the instance's committed results: outputs into ``pieces``, errors to ``fail``."""
        table, data = instance.harvest()
        if not len(table):
            return
        rows, kinds, lengths = table[:, 0] + start, table[:, 2], table[:, 3]
        if (kinds == OUTPUT).all():
            pieces.append(_Piece(rows, data, lengths))
            return
        ends = np.cumsum(lengths + 1) - 1  # each result is followed by a comma
        starts = ends - lengths
        for i in np.flatnonzero(kinds != OUTPUT):
            row, rc, message = int(rows[i]), int(table[i, 1]), data[starts[i] : ends[i]].decode("utf-8", "replace")
            if kinds[i] == BAD_OUTPUT:
                fail(row, "output_set named a range outside kernel memory")
            else:
                fail(
                    row,
                    f"the plug-in reported an error (return code {rc}): {message}"
                    if message
                    else f"the plug-in returned code {rc} without an error message",
                )
        ok = np.flatnonzero(kinds == OUTPUT)
        if len(ok):
            pieces.append(_Piece(rows[ok], b",".join(data[starts[i] : ends[i]] for i in ok), lengths[ok]))

    # --- output -------------------------------------------------------------------------

    def _assemble(self, batch: RecordBatch, pieces: list["_Piece"], fail: Callable[[int, str], None]) -> RecordBatch:
        # increasing: chunks run in order, and a chunk's rows too
        rows = np.concatenate([piece.rows for piece in pieces]).tolist() if pieces else []
        if self.documents is not None:
            parsed = [output for piece in pieces for output in self.documents.parse(piece.data, piece.lengths)]
            parents, records = self.documents.decode(rows, parsed, batch, fail)
        else:
            parents, records = [], []
            for row in rows:
                try:
                    records.append(self.connect.record(batch, row))
                except Failure as failure:
                    fail(row, failure.cause)
                    continue
                parents.append(row)
        out = batch.shallow_copy() if parents == list(range(len(batch))) else batch.take(parents)
        columns = list(zip(*records)) if records else [()] * len(_OUTPUT_COLUMNS)
        for name, values in zip(_OUTPUT_COLUMNS, columns):
            out.set_column(name, list(values))
        return out


@dataclasses.dataclass(frozen=True)
class _Piece:
    """Consecutive records' outputs from one harvest: their batch rows, bytes (comma-separated), lengths."""

    rows: np.ndarray
    data: bytes
    lengths: np.ndarray
