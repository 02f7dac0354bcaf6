"""The transform chain: ``transforms=a,b`` built from properties, applied in order.

A stage applies to a record when it has no predicate, or when
``negate XOR predicate(record)``; the predicate sees the record as earlier
stages left it.  A stage that drops a record ends the chain for it; a stage
that fans a record out hands every output to the next stage.

Consecutive stages without predicates whose transforms run as compiled map
loops (InsertField, MaskField, ReplaceField on schemaless maps) are fused
into one loop when the batch owns the column (see :mod:`smt.batch`): each map
is visited once for the run instead of once per stage.  Errors still name
the stage that failed; the run's time is shared equally by its stages.
"""

from __future__ import annotations

import os
import time
from typing import Any, Mapping

from smt._chain_builder import build_stages
from smt.batch import RecordBatch, distinct_origins
from smt.chain_stage import ChainStage
from smt.codegen import compile_fused_loop, finish_column
from smt.errors import Stage, StageError
from smt.metrics import ChainMetrics, StageMetrics
from smt.record import Record
from smt.transform import ErrorSink

__all__ = ["TransformChain", "ChainStage"]


class TransformChain:
    """An ordered list of :class:`ChainStage` objects."""

    def __init__(self, stages: list[ChainStage]) -> None:
        self.stages = stages
        self._fused: dict[tuple, Any] = {}  # the run's transforms -> their compiled loop

    def __getstate__(self):
        return {"stages": self.stages}  # compiled loops are rebuilt where the chain runs

    def __setstate__(self, state) -> None:
        self.__init__(state["stages"])

    # --- building -------------------------------------------------------------

    @classmethod
    def from_properties(
        cls,
        source: str | os.PathLike | Mapping[str, Any],
        *,
        plugins: Any = None,
    ) -> "TransformChain":
        """Build a chain from a properties file path or a mapping of properties.

        Raises :class:`smt.errors.ConfigError` listing every problem, each
        naming its full key (``transforms.mask.type: unknown transform 'Foo'``).
        """
        if isinstance(source, Mapping):
            props = source
        else:
            from smt.properties import load_properties

            props = load_properties(source)
        return cls(build_stages(props, plugins=plugins))

    # --- applying -------------------------------------------------------------

    def apply(self, record: Record) -> list[Record]:
        """Run one record through the chain: ``[]`` dropped, several = fan-out.

        The record goes through :meth:`apply_batch` as a one-row batch, so a
        test of one record runs the code production runs.  Raises
        :class:`smt.errors.StageError` (stage TRANSFORMATION) naming the
        transform and the record when a transform fails.
        """
        return self.apply_batch(RecordBatch.from_records([record])).records()

    def apply_batch(
        self,
        batch: RecordBatch,
        errors: "ChainErrors | None" = None,
        metrics: ChainMetrics | None = None,
    ) -> RecordBatch:
        """Run a whole batch through the chain, stage by stage.

        Failed rows are reported to ``errors`` (raising by default) with the
        stage that failed; they are left out of the result.  When ``metrics``
        is given, each stage's counters and time are added to it.
        """
        errors = errors or ChainErrors()
        index = 0
        while index < len(self.stages):
            if len(batch) == 0:
                break
            plans = self._fusable_run(index, batch)
            if plans:
                batch = self._apply_fused(index, plans, batch, errors, metrics)
                index += len(plans)
                continue
            stage = self.stages[index]
            index += 1
            started = time.perf_counter()
            failed_before = errors.count
            batch, ran_on, produced_by = self._apply_stage(stage, batch, errors)
            if metrics is not None:
                failed = errors.count - failed_before
                stage_metrics = metrics.stage(stage.alias)
                stage_metrics.add(
                    StageMetrics(
                        records_in=ran_on,
                        records_out=produced_by[0],
                        dropped=ran_on - produced_by[1] - failed,
                        errors=failed,
                        seconds=time.perf_counter() - started,
                    )
                )
        return batch

    def _fusable_run(self, first: int, batch: RecordBatch) -> list:
        """The map loop plans of the fusable stages from ``first`` on (two or more), else []."""
        plans = []
        for stage in self.stages[first:]:
            plan_for = getattr(stage.transform, "map_loop_plan", None)
            plan = plan_for(batch) if stage.predicate is None and plan_for is not None else None
            if plan is None or (plans and plan.part != plans[0].part):
                break
            plans.append(plan)
        if len(plans) < 2 or not batch.owns(plans[0].part):
            return []
        return plans

    def _apply_fused(
        self, first: int, plans: list, batch: RecordBatch, errors: "ChainErrors", metrics: ChainMetrics | None
    ) -> RecordBatch:
        started = time.perf_counter()
        stages = self.stages[first : first + len(plans)]
        key = tuple(stage.transform for stage in stages)
        loop = self._fused.get(key)
        if loop is None:
            sources = [plan.source(f"s{i}_") for i, plan in enumerate(plans)]
            loop = self._fused[key] = compile_fused_loop("fused_map_stages", sources)
        origins = batch.origins()
        failures = [0] * len(stages)
        sinks = [
            self._counting_sink(errors.for_stage(stage, batch, origins=origins), failures, i)
            for i, stage in enumerate(stages)
        ]
        part = plans[0].part
        values = batch.column(part)
        columns = [column for plan in plans for column in plan.columns]
        failed = loop(values, *columns, sinks, [plan.fallback for plan in plans])
        out = finish_column(batch, part, values, failed, owned=True)
        if metrics is not None:
            share = (time.perf_counter() - started) / len(stages)
            remaining = len(batch)
            for stage, failed_here in zip(stages, failures):
                metrics.stage(stage.alias).add(
                    StageMetrics(
                        records_in=remaining,
                        records_out=remaining - failed_here,
                        dropped=0,
                        errors=failed_here,
                        seconds=share,
                    )
                )
                remaining -= failed_here
        return out

    @staticmethod
    def _counting_sink(sink: ErrorSink, failures: list[int], index: int):
        def fail(row: int, exc: BaseException) -> None:
            failures[index] += 1
            sink.fail(row, exc)

        return fail

    def _apply_stage(
        self, stage: ChainStage, batch: RecordBatch, errors: "ChainErrors"
    ) -> tuple[RecordBatch, int, tuple[int, int]]:
        """The stage's output, how many rows it ran on, and (rows out, parents with output)."""
        mask = stage.mask(batch)
        if mask is None or all(mask):
            return self._apply_to_all(stage, batch, errors)
        if not any(mask):
            return batch, 0, (0, 0)
        return self._apply_to_selected(stage, batch, mask, errors)

    def _apply_to_all(
        self, stage: ChainStage, batch: RecordBatch, errors: "ChainErrors"
    ) -> tuple[RecordBatch, int, tuple[int, int]]:
        # Run with origins set to row positions, so that outputs can be traced
        # to the rows of this batch (for the counters), then map them back.
        origins = batch.origins()
        positions = range(len(batch))
        batch.set_column("origin", positions)
        try:
            out = stage.transform.apply_batch(batch, errors.for_stage(stage, batch, origins=origins))
        finally:
            if batch.origins() is positions:
                batch.set_column("origin", origins)
        if out.origins() is positions or out is batch:
            # Row for row (the transform kept the origin column): nothing to remap.
            out.set_column("origin", origins)
            return out, len(batch), (len(out), len(out))
        out_positions = out.origin
        if origins != positions:  # else row i's origin was i: the positions already are the origins
            out.set_column("origin", [origins[p] for p in out_positions])
        return out, len(batch), (len(out), distinct_origins(out_positions))

    def _apply_to_selected(
        self, stage: ChainStage, batch: RecordBatch, mask: list[bool], errors: "ChainErrors"
    ) -> tuple[RecordBatch, int, tuple[int, int]]:
        # Apply to the selected rows only, then put the untouched rows back in
        # their places; outputs of one input row stay together, in order.
        selected = [row for row, hit in enumerate(mask) if hit]
        positions = list(range(len(batch)))
        sub = batch.take(selected)
        sub.set_column("origin", [positions[row] for row in selected])
        stage_errors = errors.for_stage(stage, sub, origins=[batch.origin[row] for row in selected])
        transformed = stage.transform.apply_batch(sub, stage_errors)
        # ``origin`` of ``transformed`` now holds positions in ``batch``.
        order: list[tuple[int, int]] = []
        out_rows = transformed.origin
        t = 0
        for position in range(len(batch)):
            if not mask[position]:
                order.append((0, position))
                continue
            while t < len(out_rows) and out_rows[t] == position:
                order.append((1, t))
                t += 1
        merged = RecordBatch.concat_ordered([batch, transformed], order)
        original_origin = batch.origin
        merged.set_column(
            "origin",
            [original_origin[row] if part == 0 else original_origin[out_rows[row]] for part, row in order],
        )
        return merged, len(selected), (len(transformed), distinct_origins(out_rows))

    def may_change(self, field: str) -> bool:
        """False when no transform of the chain can change the Kafka row field ``field``
        (each declares it, :meth:`smt.transform.Transform.changed_fields`)."""
        for stage in self.stages:
            changed = stage.transform.changed_fields()
            if changed is None or field in changed:
                return True
        return False

    def close(self) -> None:
        """Close every transform and predicate, once."""
        closed: set[int] = set()
        for stage in self.stages:
            for plugin in (stage.transform, stage.predicate):
                if plugin is not None and id(plugin) not in closed:
                    closed.add(id(plugin))
                    plugin.close()

    def __len__(self) -> int:
        return len(self.stages)


class ChainErrors:
    """Receives the rows that fail in the chain.

    The default raises the first failure as a :class:`StageError`; the
    pipeline's error handler subclasses it to skip or dead-letter instead.
    ``count`` is how many failures it has received.
    """

    count = 0

    def failed(self, origin: int, error: StageError) -> None:
        raise error

    def for_stage(self, stage: ChainStage, batch: RecordBatch, origins: list[int] | None = None) -> ErrorSink:
        return _StageSink(self, stage, batch, origins)


class _StageSink(ErrorSink):
    def __init__(self, errors: ChainErrors, stage: ChainStage, batch: RecordBatch, origins: list[int] | None) -> None:
        self._errors = errors
        self._stage = stage
        self._batch = batch
        self._origins = origins

    def fail(self, row: int, exc: BaseException) -> None:
        origin = self._origins[row] if self._origins is not None else self._batch.origin[row]
        if isinstance(exc, StageError):
            error = exc
        else:
            error = StageError(
                Stage.TRANSFORMATION,
                self._stage.class_name,
                exc,
                record=self._batch.record(row),
                alias=self._stage.alias,
            )
            error.__cause__ = exc
        self._errors.count += 1
        self._errors.failed(origin, error)
