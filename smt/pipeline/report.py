"""Progress while a pipeline runs, the end-of-run summary, and the same figures as JSON.

The summary says where records came from and went: the source, the sink
(``written`` counts input records that reached it, ``output records`` what the
sink received, more than written when a transform fans out), the dead-letter
queue, and the Spark log of the run.  A dead-letter folder follows the file
sink's ``sink.write.mode`` (a rerun that replaces its output replaces its dead
letters) and says so; with another sink, and on a Kafka topic, dead letters
are appended.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any

__all__ = ["ProgressLine", "format_rate", "locations", "metrics", "print_summary", "write_metrics_json"]


def metrics(
    result: Any, spec: Any, error: str | None = None, total_seconds: float | None = None, failed: Any = None
) -> dict[str, Any]:
    """The run's figures: input accounting, where records went, per-transform counters, time and throughput.

    ``seconds`` is the pipeline's run on Spark; ``total_seconds``, when
    known, the whole command (Python's start, imports, checks, Spark's start).
    For a failed run, ``failed`` (:class:`smt.pipeline.failed_counts.FailedRunCounts`) gives the
    records committed and the counts that are uncertain (listed as ``records_uncertain``).
    """
    known = getattr(result, "known", "all")
    records = dataclasses.asdict(result.counts)
    figures = {
        "pipeline": spec.shown_props().get("name", spec.config.get("name")),
        "status": "failed" if error is not None else "succeeded",
        **({"total_seconds": round(total_seconds, 3)} if total_seconds is not None else {}),
        "seconds": round(result.seconds, 3),
        "records_per_second": float(f"{result.records_per_second:.4g}") if known != "none" else None,
        "records": records if known != "none" else dict.fromkeys(records),
        "locations": locations(spec),
        "transforms": {
            alias: {**figures, "seconds": round(figures["seconds"], 3)}
            for alias, figures in result.stages.as_dict().items()
        }
        if known == "all"
        else dict.fromkeys(stage.alias for stage in spec.chain.stages),
    }
    if result.micro_batches:
        figures["micro_batches"] = [timing.as_dict() for timing in result.micro_batches]
    if known == "none":
        figures["records_uncertain"] = list(records)
    if failed is not None:
        figures["records"] = dataclasses.asdict(failed.counts)
        figures["records_uncertain"] = list(failed.uncertain)
    if error is not None:
        figures["error"] = error
    return figures


def locations(spec: Any) -> dict[str, str]:
    """Where the pipeline reads, writes and dead-letters, as the file says (variables shown, not values)."""
    props = spec.shown_props()
    may_route = spec.chain is not None and spec.chain.may_change("topic")
    where = {
        "source": _connector_location(props, "source"),
        "sink": _connector_location(props, "sink", may_route, _write_mode(spec.sink)),
    }
    if spec.policy.tolerates_all and spec.policy.dlq_path:
        mode_key = spec.dead_letters.mode_key  # a dead-letter folder: connectors.file.dead_letters
        how = f"{spec.dead_letters.write_mode} as {mode_key}" if mode_key else "appended"
        where["dead_letters"] = f"files {props['errors.deadletterqueue.path']} (jsonl, {how})"
    elif spec.policy.tolerates_all and spec.policy.dlq_topic:
        where["dead_letters"] = f"kafka topic {props['errors.deadletterqueue.topic.name']}"
    return where


def _connector_location(props: dict[str, Any], kind: str, may_route: bool = False, mode: str | None = None) -> str:
    name = str(props.get(kind, "file"))
    if props.get(f"{kind}.path"):
        fmt = props.get(f"{kind}.format", "text")
        return f"{name} {props[f'{kind}.path']} ({fmt}{f', {mode}' if mode else ''})"
    for key, label in (("topics", "topics"), ("topic.pattern", "topics matching"), ("topic", "topic")):
        if props.get(f"{kind}.{key}"):
            # The Kafka sink's topic takes every record but those a transform routed.
            routed = " (records a transform routed: their new topic)" if kind == "sink" and may_route else ""
            return f"{name} {label} {props[f'{kind}.{key}']}{routed}"
    if name == "kafka" and kind == "sink":
        return "kafka (each record's own topic)"
    return name


def _write_mode(sink: Any) -> str | None:
    """The sink's write mode in force (its default when the file sets none), for a sink that has one."""
    return sink.config.get("write.mode")  # every configured plugin has its parsed config


def failed_destination(spec: Any) -> str:
    """Where the records that failed went, by ``errors.*``."""
    policy = spec.policy
    if not policy.tolerates_all:
        return "none: errors.tolerance=none stops the run at the first"
    logged = ", and logged (errors.log.enable)" if policy.log_enable else ""
    if policy.dlq_path or policy.dlq_topic:
        return f"set aside in the dead-letter queue{logged}"
    return f"skipped: no dead-letter queue{logged or ' (errors.log.enable=true logs them)'}"


#: Runs shorter than this show no rate: records per second of a sub-second run says little.
RATE_MIN_SECONDS = 1.0


def format_rate(per_second: float) -> str:
    """Records per second, with enough digits to show a small run's rate (0.216, not 0)."""
    if per_second >= 100:
        return f"{per_second:,.0f}"
    return f"{per_second:.3g}"


def print_summary(
    result: Any,
    spec: Any,
    console: Any = None,
    log_file: str | os.PathLike | None = None,
    total_seconds: float | None = None,
) -> None:
    """Two tables: where the pipeline's records went, and one row per transform.

    With ``total_seconds`` the time shown is the whole command's, the
    pipeline's own in brackets.
    """
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    figures = metrics(result, spec, total_seconds=total_seconds)
    records, where = figures["records"], figures["locations"]
    table = Table(title=f"pipeline {figures['pipeline']}")
    for column, justify in (("records", "left"), ("count", "right"), ("where", "left")):
        table.add_column(column, justify=justify)
    table.add_row("read", _count(records["read"]), f"from {where['source']}")
    table.add_row("written", _count(records["written"]), f"to {where['sink']}")
    if records["output_rows"] != records["written"]:
        table.add_row("output records", _count(records["output_rows"]), "what the sink received (fan-out)")
    table.add_row("filtered", _count(records["filtered"]), "dropped by a transform or predicate")
    table.add_row("failed", _count(records["failed"]), failed_destination(spec))
    dead = where.get("dead_letters")
    table.add_row("dead-lettered", _count(records["dead_lettered"]), f"to {dead}" if dead else "no dead-letter queue")
    console.print(table)
    if figures.get("records_uncertain"):
        console.print("The counts are unknown: Spark reported none for this run's write (the records were written).")
    footer = _time_line(figures, total_seconds)
    console.print(footer + (f"; Spark's log: {log_file}" if log_file else ""))
    if figures["transforms"] and None in figures["transforms"].values():
        console.print("Per-transform figures are unknown: Spark reported none for this run's write.")
    elif figures["transforms"]:
        stages = Table(title="transforms")
        for column in ("alias", "in", "out", "dropped", "errors", "seconds"):
            stages.add_column(column, justify="left" if column == "alias" else "right")
        for alias, f in figures["transforms"].items():
            stages.add_row(
                alias,
                f"{f['records_in']:,}",
                f"{f['records_out']:,}",
                f"{f['dropped']:,}",
                f"{f['errors']:,}",
                f"{f['seconds']:.3f}",
            )
        console.print(stages)


def _count(value: int | None) -> str:
    return "unknown" if value is None else f"{value:,}"


def _time_line(figures: dict[str, Any], total_seconds: float | None) -> str:
    """How long the run took, and its rate when it ran long enough for one to mean something."""
    per_second = figures["records_per_second"]
    shown = per_second is not None and figures["seconds"] >= RATE_MIN_SECONDS
    rate = f", {format_rate(per_second)} records/s read" if shown else ""
    if total_seconds is None:
        return f"{figures['seconds']:.2f} s{rate}"
    return (f"{total_seconds:.2f} s in all (Python, checks and Spark's start included; the pipeline "
            f"{figures['seconds']:.2f} s{rate})")  # fmt: skip


class ProgressLine:
    """A live 'records done, rate' line on stderr while the job runs (on a terminal, when enabled).

    It keeps the last figures it was given: :meth:`last_result` is what a
    failed run had counted.
    """

    def __init__(self, enabled: bool = True) -> None:
        from rich.console import Console

        self.console = Console(stderr=True)
        self.enabled = enabled
        self._status = None
        self._last: tuple[Any, float] | None = None

    def __enter__(self) -> "ProgressLine":
        if self.enabled and self.console.is_terminal:
            self._status = self.console.status("starting Spark job…")
            self._status.__enter__()
        return self

    def update(self, counts: Any, seconds: float) -> None:
        self._last = (counts, seconds)
        rate = counts.read / seconds if seconds > 0 else 0.0
        text = (f"{counts.read:,} records read, {counts.written:,} written, "
                f"{counts.failed:,} failed — {format_rate(rate)} records/s")  # fmt: skip
        if self._status is not None:
            self._status.update(text)

    def last_result(self) -> Any:
        """The figures of the last update as a :class:`PipelineResult` (zeros before any)."""
        from smt.pipeline.processor import BatchCounts
        from smt.pipeline.runner import PipelineResult

        counts, seconds = self._last or (BatchCounts(), 0.0)
        return PipelineResult(counts, seconds)

    def __exit__(self, *exc_info) -> None:
        if self._status is not None:
            self._status.__exit__(*exc_info)


def write_metrics_json(
    result: Any,
    spec: Any,
    path: str | os.PathLike,
    error: str | None = None,
    total_seconds: float | None = None,
    failed: Any = None,
) -> None:
    """The figures of :func:`metrics` as JSON; ``error`` (the failure's message) marks a failed run."""
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(metrics(result, spec, error, total_seconds, failed), handle, indent=2)
        handle.write("\n")
