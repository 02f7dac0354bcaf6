"""How the ``smt`` command talks: verbosity, logging, and a failure as one line plus a hint.

Exit codes (listed in docs/pipelines.md):

- 0: success (``validate``: the file is valid);
- 1: the command failed: a run stopped (a record failed with
  ``errors.tolerance=none``, Spark or Kafka failed), a build failed;
- 2: usage: an unknown command or option, a missing or malformed argument;
- 3: invalid configuration: the pipeline file (with its ``--set`` overrides)
  has problems, each printed on its own line naming its key;
- 4: ``smt local kafka status``: no broker is running;
- 130: interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import enum
import logging
import sys
import traceback
from typing import Any, Callable, Iterable

from smt.errors import ConfigError, SmtError, StageError

__all__ = [
    "EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_INVALID", "EXIT_NOT_RUNNING", "EXIT_OK", "EXIT_USAGE",
    "Verbosity", "common_options", "print_warnings", "report_failure",
]  # fmt: skip

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INVALID = 3
EXIT_NOT_RUNNING = 4
EXIT_INTERRUPTED = 130


class Verbosity(enum.IntEnum):
    """``-q`` < default < ``-v`` < ``--debug``."""

    QUIET = 0
    NORMAL = 1
    VERBOSE = 2
    DEBUG = 3

    @classmethod
    def of(cls, args: argparse.Namespace) -> "Verbosity":
        if getattr(args, "debug", False):
            return cls.DEBUG
        if getattr(args, "verbose", False):
            return cls.VERBOSE
        return cls.QUIET if getattr(args, "quiet", False) else cls.NORMAL

    def configure_logging(self) -> None:
        """Our loggers at this verbosity's level, one line each on stderr.

        py4j's own loggers stay at WARNING even with ``--debug``: they log every
        call between Python and the JVM, which buries ours.  A process whose
        logging is already set up (``smt.cli.main`` called from a program or a
        test) keeps its own configuration.
        """
        if logging.getLogger().handlers:
            return
        level = {Verbosity.QUIET: logging.ERROR, Verbosity.NORMAL: logging.WARNING,
                 Verbosity.VERBOSE: logging.INFO, Verbosity.DEBUG: logging.DEBUG}[self]  # fmt: skip
        logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
        logging.getLogger().setLevel(level)
        logging.getLogger("py4j").setLevel(max(level, logging.WARNING))
        # Python's warnings (from PySpark, say) follow the same switch.
        logging.captureWarnings(True)


def common_options(suppress_defaults: bool = False) -> argparse.ArgumentParser:
    """``--debug``, ``-q`` and ``-v``: accepted before the command and after it.

    The copy given to subcommands has no defaults of its own, so it does not
    undo what was given before the command.
    """
    default = argparse.SUPPRESS if suppress_defaults else False
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument(
        "--debug", action="store_true", default=default, help="show tracebacks, debug logs and Spark's own log output"
    )
    volume = parser.add_mutually_exclusive_group()
    volume.add_argument(
        "-q", "--quiet", action="store_true", default=default, help="print only errors (no progress, no summary)"
    )
    volume.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=default,
        help="also print what the command does, step by step (our INFO logs)",
    )
    return parser


def report_failure(exc: BaseException, verbosity: Verbosity, *, mask: Callable[[str], str] = str,
                   hint: str = "") -> int:  # fmt: skip
    """Print ``exc`` as one line on stderr, and a ``hint:`` line when there is one; return the exit code.

    A :class:`ConfigError` prints one line per problem and returns
    :data:`EXIT_INVALID`.  ``mask`` hides resolved config variables.  With
    ``--debug`` the traceback comes first.
    """
    if verbosity >= Verbosity.DEBUG:
        traceback.print_exception(exc, file=sys.stderr)
    if isinstance(exc, ConfigError):
        print_warnings(exc.notices, mask)
        for problem in exc.problems:
            print(f"error: {mask(str(problem))}", file=sys.stderr)
        return EXIT_INVALID
    if isinstance(exc, KeyboardInterrupt):
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    line = mask(_one_line(exc))
    print(f"error: {line}", file=sys.stderr)
    hints = [h for h in (_record_failure_hint(exc), hint) if h]
    if not isinstance(exc, (SmtError, OSError)):
        hints.append("this is a bug in spark-smt: please report it with the output of --debug")
    if hints:
        print(f"hint: {'; '.join(hints)}", file=sys.stderr)
    return EXIT_FAILED


def print_warnings(notices: Iterable[Any], mask: Callable[[str], str] = str) -> None:
    """One ``warning:`` line per notice (an unknown or deprecated key) on stderr."""
    for notice in notices:
        print(f"warning: {mask(str(notice))}", file=sys.stderr)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    first = text.splitlines()[0]
    # A record's failure on an executor arrives as "StageError: <its message>".
    return first.removeprefix(f"{StageError.__name__}: ")


def _record_failure_hint(exc: BaseException) -> str:
    if not (isinstance(exc, StageError) or str(exc).startswith(f"{StageError.__name__}: ")):
        return ""
    return ("errors.tolerance=none stops the run at the first failed record; errors.tolerance=all with "
            "errors.deadletterqueue.path=DIR (or errors.deadletterqueue.topic.name) sets failed records "
            "aside and carries on")  # fmt: skip
