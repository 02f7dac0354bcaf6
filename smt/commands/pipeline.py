"""``smt run`` and ``smt validate``: a pipeline file, checked or run.

``--set KEY=VALUE`` and ``--unset KEY`` change the file's keys for one run
(:mod:`smt.commands.overrides`).

``smt run`` keeps Spark's own output (its log, the Python workers' stderr)
out of the terminal: it goes to a log file under ``<temp>/spark-smt-logs``,
named in the summary and in the hint of a failure.  ``--debug`` (or a
``spark.log.level`` key) leaves it on the terminal instead.
"""

from __future__ import annotations

import argparse
import datetime
import logging
import os
import re
import tempfile
from pathlib import Path

from smt.commands.output import EXIT_OK, Verbosity, print_warnings, report_failure
from smt.commands.overrides import add_override_options, load_spec
from smt.errors import SmtError

__all__ = ["add_commands"]

log = logging.getLogger(__name__)

#: Where ``smt run`` writes Spark's output; one file per run.
LOG_DIR_NAME = "spark-smt-logs"


def add_commands(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    run = commands.add_parser("run", parents=[common], help="run a pipeline described by a .properties file",
                              description="Run a pipeline to completion and print a summary of where every "
                              "record went.")  # fmt: skip
    run.add_argument("pipeline", help="the pipeline's .properties file")
    add_override_options(run)
    run.add_argument(
        "--metrics-json",
        metavar="PATH",
        help="also write the run's figures as JSON to PATH (written when the run fails too)",
    )
    run.set_defaults(handler=run_command)

    validate = commands.add_parser("validate", parents=[common], help="check a pipeline file and list every problem",
                                   description="Check a pipeline file without running it: every problem is "
                                   "printed on its own line, naming its key (exit 3); exit 0 when valid.")  # fmt: skip
    validate.add_argument("pipeline", help="the pipeline's .properties file")
    add_override_options(validate)
    validate.add_argument(
        "--strict",
        action="store_true",
        help="deprecated keys, and converter keys no converter reads, are errors (exit 3), not "
        "warnings (unknown keys always are)",
    )
    validate.set_defaults(handler=validate_command)


def validate_command(args: argparse.Namespace) -> int:
    spec = load_spec(args, strict=args.strict)
    print_warnings(spec.notices, spec.variables.mask if spec.variables is not None else str)
    if Verbosity.of(args) > Verbosity.QUIET:
        count = len(spec.notices)
        warned = f" ({count} warning{'s' if count != 1 else ''})" if count else ""
        print(f"{args.pipeline}: valid{warned}")
    return EXIT_OK


def run_command(args: argparse.Namespace) -> int:
    from smt.pipeline import build_spark_session, run_pipeline
    from smt.pipeline.report import ProgressLine, print_summary, write_metrics_json

    verbosity = Verbosity.of(args)
    spec = load_spec(args)
    mask = spec.variables.mask if spec.variables is not None else str
    for notice in spec.notices:  # once, before anything runs
        logging.getLogger("smt.config").warning("%s", mask(str(notice)))
    log_file = spark_log_file(spec, args)
    if log_file is not None:
        log.info("Spark's own output goes to %s", log_file)
    progress = ProgressLine(enabled=verbosity > Verbosity.QUIET)
    try:
        spark = build_spark_session(spec, jvm_log=log_file)
        if log_file is not None and not log_file.exists():
            log_file = None  # this process's Spark was already running: its output goes where it went
        with progress:
            result = run_pipeline(spec, spark=spark, on_progress=progress.update)
    except (SmtError, OSError, KeyboardInterrupt) as exc:
        if args.metrics_json:
            failed = getattr(exc, "failed_counts", None)  # what was committed, and what is uncertain
            write_metrics_json(progress.last_result(), spec, args.metrics_json, error=mask(str(exc)), failed=failed)
        hint = f"Spark's log: {log_file} (--debug shows it here, with the traceback)" if log_file else ""
        return report_failure(exc, verbosity, mask=mask, hint=hint)
    total = process_seconds()
    if verbosity > Verbosity.QUIET:
        print_summary(result, spec, log_file=log_file, total_seconds=total)
    if args.metrics_json:
        write_metrics_json(result, spec, args.metrics_json, total_seconds=total)
    return EXIT_OK


def process_seconds() -> float | None:
    """How long this process has run, Python's start and imports included (Linux's /proc), or None."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            # Field 22, the start time in clock ticks after boot; the command name (field 2) may hold spaces.
            started_ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime", encoding="ascii") as uptime:
            now = float(uptime.read().split()[0])
        return max(0.0, now - started_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def spark_log_file(spec, args: argparse.Namespace) -> Path | None:
    """Where a command's Spark output goes: a new log file, or None (the terminal) with --debug or spark.log.level."""
    if Verbosity.of(args) >= Verbosity.DEBUG or "spark.log.level" in spec.props:
        return None
    return _new_log_file(spec)


def _new_log_file(spec) -> Path:
    folder = Path(tempfile.gettempdir()) / LOG_DIR_NAME
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(spec.shown_props().get("name", "smt-pipeline")))
    return folder / f"{name}-{stamp}-{os.getpid()}.log"
