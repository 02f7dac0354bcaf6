"""``smt plugins`` and ``smt bench``: what is installed, and how fast it runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from smt.commands.output import EXIT_FAILED, EXIT_OK

__all__ = ["add_commands"]


def add_commands(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    from smt.benchmarks.runner import AREAS

    plugins = commands.add_parser("plugins", parents=[common], help="list registered plugins and where they came from")
    plugins.add_argument(
        "--docs",
        nargs="?",
        const="",
        default=None,
        metavar="NAME",
        help="print the Markdown reference of every pipeline key and plugin, or of plugin NAME only",
    )
    plugins.add_argument(
        "--builtin-only",
        action="store_true",
        help="only the plugins spark-smt ships with, not those installed beside it (as in docs/reference.md)",
    )
    plugins.set_defaults(handler=plugins_command)

    bench = commands.add_parser("bench", parents=[common], help="run the benchmarks and print records/s and ratios",
                                description="Run benchmark areas and print records/s of our path and a baseline "
                                "on the same data, in the same run, and their ratio. 'cdc' upserts Debezium change events "
                                "(ExtractNewRecordState, rewrite mode) into Delta against hand-written from_json + "
                                "Delta MERGE. 'latency' prints "
                                "p50/p90/p99/max ms from send until read of a streaming Kafka → Kafka "
                                "pipeline (at least once, exactly once) against hand-written PySpark, at "
                                "100, 1,000 and 10,000 records/s, and Kafka → Parquet and Delta rows.")  # fmt: skip
    bench.add_argument(
        "areas",
        nargs="*",
        type=_area,
        metavar="AREA",
        help=f"benchmark areas to run: {', '.join(AREAS)} (default: all)",
    )
    bench.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="multiply the data sizes (latency: the warm-up and measured seconds) (default 1.0)",
    )
    bench.set_defaults(handler=bench_command)


def _area(text: str) -> str:
    from smt.benchmarks.runner import AREAS

    if text not in AREAS:
        raise argparse.ArgumentTypeError(f"unknown benchmark area '{text}'; choose from {', '.join(AREAS)}")
    return text


def plugins_command(args: argparse.Namespace) -> int:
    from smt.plugins import default_plugins, load_plugins

    plugins = load_plugins(entry_points=False) if args.builtin_only else default_plugins()
    if args.docs is not None:
        from smt.reference import plugin_reference, reference_markdown

        if args.docs:
            print(plugin_reference(plugins, args.docs), end="")
        else:
            print(reference_markdown(plugins, published=args.builtin_only), end="")
        return EXIT_OK
    for registration in sorted(plugins.registrations(), key=lambda r: (r.kind, r.name)):
        aliases = f"  (aliases: {', '.join(registration.aliases)})" if registration.aliases else ""
        print(f"{registration.kind:<15} {registration.name:<28} from {registration.origin}{aliases}")
    return EXIT_OK


def bench_command(args: argparse.Namespace) -> int:
    """Run the areas; Spark's output goes to a log file, as with ``smt run`` (``--debug``: the terminal)."""
    from smt.benchmarks.runner import run_benchmarks
    from smt.commands.output import Verbosity
    from smt.pipeline.jvm_output import child_output_to

    if Verbosity.of(args) >= Verbosity.DEBUG:
        return EXIT_OK if run_benchmarks(args.areas, args.scale) else EXIT_FAILED
    log_file = _bench_log_file()
    with child_output_to(log_file):
        done = run_benchmarks(args.areas, args.scale)
    print(f"Spark's log: {log_file}")
    return EXIT_OK if done else EXIT_FAILED


def _bench_log_file() -> Path:
    import datetime
    import os
    import tempfile

    from smt.commands.pipeline import LOG_DIR_NAME

    folder = Path(tempfile.gettempdir()) / LOG_DIR_NAME
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"smt-bench-{datetime.datetime.now():%Y%m%d-%H%M%S}-{os.getpid()}.log"
