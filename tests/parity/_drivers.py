"""The parity harness: one stage, every path it has, the same records, one outcome each.

An :class:`Outcome` is what a path gives for a batch: the output records (with
the input row each came from), the failures (row, exception type and
message) and the dead letters (row, and the record as the stage received it,
which is what the dead-letter queue gets).  Every path of a stage must give
the same outcome.  The paths, for a transform: ``record`` (``apply`` per
record), ``batch`` (``apply_batch``, on a batch that does and does not own
its maps), ``map_loop`` (the loop :mod:`smt.codegen` generates from
``map_loop_plan``, run as the chain runs it); for a predicate ``record`` and
``batch``; for a converter ``record`` and ``batch`` (each direction).  The
compiled Spark SQL path is driven in ``test_compiled_parity.py``.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Callable

from smt.batch import RecordBatch
from smt.codegen import compile_fused_loop, finish_column
from smt.plugin import PluginContext
from smt.plugins import default_plugins
from smt.record import Record
from smt.transform import ErrorSink

__all__ = ["Outcome", "configure", "transform_outcomes", "predicate_outcomes", "converter_outcomes"]


@dataclasses.dataclass
class Outcome:
    outputs: list = dataclasses.field(default_factory=list)
    failures: list = dataclasses.field(default_factory=list)
    dead_letters: list = dataclasses.field(default_factory=list)


def _failure(origin: int, exc: BaseException) -> tuple:
    return (origin, type(exc).__name__, str(exc))


def configure(kind: str, name: str, props: dict) -> Any:
    """The registered ``kind`` plugin ``name`` configured from ``props``."""
    plugin = default_plugins().get(kind, name)()
    prefix = {"transform": "transforms.t.", "predicate": "predicates.p."}[kind]
    plugin.configure(props, PluginContext(alias="t", prefix=prefix))
    return plugin


# --- transforms ----------------------------------------------------------------------------------


def _per_record(transform, records: list[Record], origins: list[int]) -> Outcome:
    out = Outcome()
    for record, origin in zip(records, origins):
        received = copy.deepcopy(record)
        try:
            result = transform.apply(record)
        except Exception as exc:  # each path must fail the same rows, with the same error
            out.failures.append(_failure(origin, exc))
            out.dead_letters.append((origin, received))
            continue
        if isinstance(result, Record):
            out.outputs.append((origin, result))
        elif result is not None:
            out.outputs.extend((origin, r) for r in result)
    return out


class _Collecting(ErrorSink):
    """Records each failure with the record as the stage received it (what the chain dead-letters)."""

    def __init__(self, batch: RecordBatch, origins: list[int], outcome: Outcome) -> None:
        self.batch, self.origins, self.outcome = batch, origins, outcome

    def fail(self, row: int, exc: BaseException) -> None:
        self.outcome.failures.append(_failure(self.origins[row], exc))
        self.outcome.dead_letters.append((self.origins[row], copy.deepcopy(self.batch.record(row))))


def _batch_of(records: list[Record], origins: list[int], owned: bool) -> RecordBatch:
    batch = RecordBatch.from_records(copy.deepcopy(records), origins=origins)
    if owned:  # as after a converter: the batch's own fresh maps, which the compiled loops update in place
        for column in ("key", "value"):
            batch.set_column(column, copy.deepcopy(batch.column(column)), owned=True)
    return batch


def _apply_batch(transform, records, origins, owned: bool) -> Outcome:
    batch = _batch_of(records, origins, owned)
    out = Outcome()
    result = transform.apply_batch(batch, _Collecting(batch, origins, out))
    out.outputs = list(zip(result.origin, result.records()))
    return out


def _map_loop(transform, records, origins) -> Outcome | None:
    """The transform's generated loop, compiled and run as the chain runs a fused run; None where it has none."""
    batch = _batch_of(records, origins, owned=True)
    plan = transform.map_loop_plan(batch)
    if plan is None:
        return None
    loop = compile_fused_loop("parity_map_loop", [plan.source("s0_")])
    out = Outcome()
    sink = _Collecting(batch, origins, out)
    values = batch.column(plan.part)
    failed = loop(values, *plan.columns, [sink.fail], [plan.fallback])
    result = finish_column(batch, plan.part, values, failed, owned=True)
    out.outputs = list(zip(result.origin, result.records()))
    return out


def transform_outcomes(transform, records: list[Record]) -> dict[str, Outcome]:
    """Each path of ``transform`` on ``records`` -> its outcome (paths it lacks, or that decline this batch,
    are left out)."""
    origins = [100 + i for i in range(len(records))]
    outcomes = {"record": _per_record(transform, records, origins)}
    outcomes["batch"] = _apply_batch(transform, records, origins, owned=False)
    outcomes["batch owning its maps"] = _apply_batch(transform, records, origins, owned=True)
    if hasattr(transform, "map_loop_plan"):
        loop = _map_loop(transform, records, origins)
        if loop is not None:
            outcomes["map_loop"] = loop
    return outcomes


# --- predicates ----------------------------------------------------------------------------------


def predicate_outcomes(predicate, records: list[Record]) -> dict[str, list]:
    return {
        "record": [predicate.test(r) for r in records],
        "batch": list(predicate.test_batch(RecordBatch.from_records(copy.deepcopy(records)))),
    }


# --- converters ----------------------------------------------------------------------------------


def _each(convert: Callable, items: list) -> Outcome:
    out = Outcome()
    for row, item in enumerate(items):
        try:
            out.outputs.append(convert(item))
        except Exception as exc:  # the batch must fail the same items, with the same error
            out.failures.append(_failure(row, exc))
            out.outputs.append(None)
    return out


def _column(convert: Callable, items: list) -> Outcome:
    out = Outcome()
    result = convert(items, lambda row, exc: out.failures.append(_failure(row, exc)))
    out.outputs = result
    return out


def converter_outcomes(converter, data: list, written: list[tuple]) -> dict[str, tuple[Outcome, Outcome]]:
    """Each path of ``converter`` -> (its reading of ``data``, its writing of ``written`` (schema, value) pairs)."""
    topic = "t"
    topics = [topic] * len(data)
    read_each = _each(lambda d: converter.to_connect_data(topic, d), data)
    write_each = _each(lambda sv: converter.from_connect_data(topic, *sv), written)

    def read_batch(items, on_error):
        schemas, values = converter.to_connect_batch(topics, items, on_error)
        return list(zip(schemas if schemas is not None else [None] * len(values), values))

    def write_with(method):
        def write(items, on_error):
            schemas = [s for s, _ in items]
            out = method([topic] * len(items), schemas, [v for _, v in items], on_error)
            return out.to_pylist() if hasattr(out, "to_pylist") else list(out)

        return write

    read_each.outputs = [(None, None) if o is None else o for o in read_each.outputs]
    return {
        "record": (read_each, write_each),
        "batch": (_column(read_batch, data), _column(write_with(converter.from_connect_batch), written)),
        "column": (_column(read_batch, data), _column(write_with(converter.from_connect_column), written)),
    }
