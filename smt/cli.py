"""The ``smt`` command: run, validate, plugins, bench, local.

Errors are one clear line on stderr and a non-zero exit, never a traceback,
unless ``--debug`` is given.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Sequence

from smt.errors import ConfigError, SmtError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INVALID = 2


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["local"]:
        return _local(argv[1:])
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_INVALID
    try:
        return args.handler(args)
    except ConfigError as exc:
        if args.debug:
            raise
        for problem in exc.problems:
            print(f"error: {problem}", file=sys.stderr)
        return EXIT_INVALID
    except (SmtError, OSError) as exc:
        if args.debug:
            raise
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="smt", description="Kafka Connect-style single message transforms on Apache Spark."
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = commands.add_parser("run", help="run a pipeline described by a .properties file")
    run.add_argument("pipeline", help="the pipeline's .properties file")
    run.add_argument("--metrics-json", metavar="PATH", help="write the run's figures as JSON")
    run.set_defaults(handler=_run)

    validate = commands.add_parser("validate", help="check a pipeline file and list every problem")
    validate.add_argument("pipeline")
    validate.set_defaults(handler=_validate)

    plugins = commands.add_parser("plugins", help="list registered plugins and where they came from")
    plugins.add_argument("--docs", action="store_true", help="print the Markdown reference of every plugin")
    plugins.set_defaults(handler=_plugins)

    bench = commands.add_parser("bench", help="run the benchmarks and print records/s and ratios")
    bench.add_argument("areas", nargs="*", help="benchmark areas to run (default: all)")
    bench.add_argument("--scale", type=float, default=1.0, help="multiply the data sizes")
    bench.set_defaults(handler=_bench)

    wasm = commands.add_parser("wasm", help="WebAssembly guests: 'smt wasm inspect MODULE'")
    wasm_commands = wasm.add_subparsers(dest="wasm_command", metavar="WASM_COMMAND", required=True)
    inspect = wasm_commands.add_parser("inspect", help="what the host sees in a guest module")
    inspect.add_argument("module", help="the .wasm (or .wat) file")
    inspect.add_argument("--function", help="the entry function (function.name); needed when it exports several")
    inspect.add_argument("--adapter", action="store_true", help="print the fast path's generated adapter (WAT)")
    inspect.set_defaults(handler=_wasm_inspect)

    commands.add_parser("local", help="local services for trying things out: 'smt local kafka start|stop|status'")
    for sub in (run, validate, plugins, bench, inspect):
        sub.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    return parser


def _run(args: argparse.Namespace) -> int:
    from smt.pipeline import PipelineSpec, run_pipeline
    from smt.pipeline.report import ProgressLine, print_summary, write_metrics_json

    spec = PipelineSpec.from_properties(args.pipeline)
    with ProgressLine() as progress:
        result = run_pipeline(spec, on_progress=progress.update)
    print_summary(result, spec)
    if args.metrics_json:
        write_metrics_json(result, spec, args.metrics_json)
    return EXIT_OK


def _validate(args: argparse.Namespace) -> int:
    from smt.pipeline import PipelineSpec

    PipelineSpec.from_properties(args.pipeline)
    print(f"{args.pipeline}: valid")
    return EXIT_OK


def _plugins(args: argparse.Namespace) -> int:
    from smt.plugins import default_plugins

    plugins = default_plugins()
    if args.docs:
        from smt.reference import plugin_reference_markdown

        print(plugin_reference_markdown(plugins))
        return EXIT_OK
    for registration in sorted(plugins.registrations(), key=lambda r: (r.kind, r.name)):
        aliases = f"  (aliases: {', '.join(registration.aliases)})" if registration.aliases else ""
        print(f"{registration.kind:<10} {registration.name:<28} from {registration.origin}{aliases}")
    return EXIT_OK


def _bench(args: argparse.Namespace) -> int:
    from smt.benchmarks.runner import run_benchmarks

    return EXIT_OK if run_benchmarks(args.areas, args.scale) else EXIT_FAILED


def _wasm_inspect(args: argparse.Namespace) -> int:
    from host_functions.inspect import adapter_text, describe_module

    print(adapter_text(args.module, args.function) if args.adapter else describe_module(args.module, args.function))
    return EXIT_OK


def _local(argv: list[str]) -> int:
    try:
        from smt.local.cli import main as local_main
    except ImportError as exc:
        print(f"error: local services are not available: {exc}", file=sys.stderr)
        return EXIT_FAILED
    return local_main(argv)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0] if "\n" in text else text


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
