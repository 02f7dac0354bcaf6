"""Progress while a pipeline runs, the end-of-run summary, and the same figures as JSON."""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any


def metrics(result: Any, spec: Any) -> dict[str, Any]:
    """The run's figures: input accounting, per-transform counters, time and throughput."""
    return {
        "pipeline": spec.config.get("name"),
        "seconds": round(result.seconds, 3),
        "records_per_second": round(result.records_per_second, 1),
        "records": dataclasses.asdict(result.counts),
        "transforms": {
            alias: {**figures, "seconds": round(figures["seconds"], 3)}
            for alias, figures in result.stages.as_dict().items()
        },
    }


def print_summary(result: Any, spec: Any, console: Any = None) -> None:
    """Two tables: the pipeline's accounting, and one row per transform."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    figures = metrics(result, spec)
    table = Table(title=f"pipeline {figures['pipeline']}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for name, value in figures["records"].items():
        table.add_row(f"records {name.replace('_', ' ')}", f"{value:,}")
    table.add_row("seconds", f"{figures['seconds']:.2f}")
    table.add_row("records/s (read)", f"{figures['records_per_second']:,.0f}")
    console.print(table)
    if figures["transforms"]:
        stages = Table(title="transforms")
        for column in ("alias", "in", "out", "dropped", "errors", "seconds"):
            stages.add_column(column, justify="left" if column == "alias" else "right")
        for alias, f in figures["transforms"].items():
            stages.add_row(alias, f"{f['records_in']:,}", f"{f['records_out']:,}", f"{f['dropped']:,}",
                           f"{f['errors']:,}", f"{f['seconds']:.3f}")
        console.print(stages)


class ProgressLine:
    """A live 'records done, rate' line on stderr while the job runs."""

    def __init__(self) -> None:
        from rich.console import Console

        self.console = Console(stderr=True)
        self._status = None

    def __enter__(self) -> "ProgressLine":
        if self.console.is_terminal:
            self._status = self.console.status("starting Spark job…")
            self._status.__enter__()
        return self

    def update(self, counts: Any, seconds: float) -> None:
        rate = counts.read / seconds if seconds > 0 else 0.0
        text = (f"{counts.read:,} records read, {counts.output_rows:,} written, "
                f"{counts.failed:,} failed — {rate:,.0f} records/s")
        if self._status is not None:
            self._status.update(text)

    def __exit__(self, *exc_info) -> None:
        if self._status is not None:
            self._status.__exit__(*exc_info)


def write_metrics_json(result: Any, spec: Any, path: str | os.PathLike) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(metrics(result, spec), handle, indent=2)
        handle.write("\n")
