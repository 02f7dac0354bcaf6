"""The end-of-run summary for people, and the same figures as JSON for machines."""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any


def metrics(result: Any, spec: Any) -> dict[str, Any]:
    counts = dataclasses.asdict(result.counts)
    return {
        "pipeline": spec.config.get("name"),
        "seconds": round(result.seconds, 3),
        "records_per_second": round(result.records_per_second, 1),
        "records": counts,
    }


def print_summary(result: Any, spec: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    figures = metrics(result, spec)
    table = Table(title=f"pipeline {figures['pipeline']}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for name, value in figures["records"].items():
        table.add_row(f"records {name.replace('_', ' ')}", f"{value:,}")
    table.add_row("seconds", f"{figures['seconds']:.2f}")
    table.add_row("records/s (read)", f"{figures['records_per_second']:,.0f}")
    Console(stderr=False).print(table)


def write_metrics_json(result: Any, spec: Any, path: str | os.PathLike) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(metrics(result, spec), handle, indent=2)
        handle.write("\n")
