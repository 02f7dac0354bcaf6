"""``smt bench``: run every benchmark area and print one table of records/s and ratios."""

from __future__ import annotations

import importlib
from typing import Callable, Sequence

from smt.benchmarks._common import Comparison
from smt.pipeline.report import format_rate

#: Benchmark areas, each a module here with ``run(scale) -> list[Comparison]``.
AREAS = ("wasm", "converters", "builtins", "pipeline", "kafka", "tables", "cdc", "startup", "latency")
#: Areas whose rows are not records/s: each prints its own table (``<area>_table(rows)``).
OWN_TABLES = ("latency",)


def console():
    """A rich console; piped or redirected output gets a width that keeps the table's names whole."""
    import sys

    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=_FILE_WIDTH)


#: Columns when the table goes to a file or a pipe (rich would default to 80).
_FILE_WIDTH = 180


def run_benchmarks(areas: Sequence[str] = (), scale: float = 1.0) -> bool:
    """Run the named areas (all by default), print the table; False if an area is unknown."""
    out = console()
    wanted = list(areas) or list(AREAS)
    unknown = [a for a in wanted if a not in AREAS]
    if unknown:
        out.print(f"unknown benchmark area(s): {', '.join(unknown)}; known: {', '.join(AREAS)}")
        return False
    comparisons: list[Comparison] = []
    for area in wanted:
        try:
            module = importlib.import_module(f"smt.benchmarks.{area}")
        except ModuleNotFoundError as exc:
            out.print(f"[yellow]{area}: not available ({exc})[/yellow]")
            continue
        if area in OWN_TABLES:
            out.print(getattr(module, f"{area}_table")(module.run(scale)))
        else:
            comparisons.extend(module.run(scale))
    if comparisons:
        out.print(comparison_table(comparisons))
    return True


def comparison_table(comparisons: Sequence[Comparison]):
    from rich.table import Table

    table = Table(title="smt benchmarks (one run, same data)")
    for column in ("benchmark", "ours", "records/s", "baseline", "records/s", "ratio", "target"):
        table.add_column(column, justify="right" if column in ("records/s", "ratio", "target") else "left")
    for c in comparisons:
        target = "" if c.meets_target is None else f"≥ {c.target} {'✓' if c.meets_target else '✗'}"
        table.add_row(
            c.name,
            c.ours.label,
            format_rate(c.ours.records_per_second),
            c.baseline.label,
            format_rate(c.baseline.records_per_second),
            f"{c.ratio:.2f}×",
            target,
        )
    return table


def area_main(run: Callable[[float], Sequence[Comparison]], argv: Sequence[str]) -> int:
    """``python -m smt.benchmarks.<area> [scale]``: run one area and print its table."""
    console().print(comparison_table(run(float(argv[0]) if argv else 1.0)))
    return 0
