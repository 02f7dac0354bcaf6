"""The ``smt`` command: run, validate, plugins, bench, local, wasm.

A failure is one line on stderr (``error: ...``) and a ``hint: ...`` line,
never a traceback unless ``--debug`` is given; exit codes tell a usage error
from an invalid configuration from a failed run (see
:mod:`smt.commands.output`).  ``--debug``, ``-q`` and ``-v`` go before or
after the command.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from smt.commands.output import (
    EXIT_FAILED,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    Verbosity,
    common_options,
    report_failure,
)  # fmt: skip

__all__ = ["EXIT_FAILED", "EXIT_INVALID", "EXIT_OK", "EXIT_USAGE", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    except SystemExit as exc:  # argparse: usage errors exit 2, --help and --version 0
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    verbosity = Verbosity.of(args)
    verbosity.configure_logging()
    handler = getattr(args, "handler", None)
    if handler is None:
        (args.usage or parser).print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return handler(args)
    except BaseException as exc:  # noqa: BLE001 - every failure becomes one line and an exit code
        if isinstance(exc, SystemExit):
            raise
        return report_failure(exc, verbosity)


def _parser() -> argparse.ArgumentParser:
    from smt.commands import pipeline, plugins, preview, wasm
    from smt.local import cli as local

    parser = argparse.ArgumentParser(
        prog="smt", parents=[common_options()],
        description="Kafka Connect-style single message transforms on Apache Spark.",
        epilog="exit codes: 0 success, 1 failed, 2 usage error, 3 invalid configuration, "
        "4 no broker running (smt local kafka status), 130 interrupted",
    )  # fmt: skip
    parser.add_argument("--version", action="version", version=_version(), help="print the versions and exit")
    parser.set_defaults(usage=None)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    common = common_options(suppress_defaults=True)
    for group in (pipeline, preview, plugins, local, wasm):
        group.add_commands(commands, common)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    def of(distribution: str) -> str:
        try:
            return version(distribution)
        except PackageNotFoundError:
            return "not installed"

    return f"smt (spark-smt) {of('spark-smt')}; PySpark {of('pyspark')}, wasmtime {of('wasmtime')}"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
