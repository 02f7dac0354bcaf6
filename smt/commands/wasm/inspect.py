"""``smt wasm inspect MODULE [--adapter]``: what the host sees in a guest module.

The description (ABI, exports, imports, the path it runs on) and, with
``--adapter``, the fast path's generated adapter as WAT
(:mod:`host_functions.inspect`).
"""

from __future__ import annotations

import argparse

from smt.commands.output import EXIT_OK

__all__ = ["add_command"]


def add_command(actions: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    inspect = actions.add_parser("inspect", parents=[common], help="what the host sees in a guest module",
                                 description="Describe a guest module as the host sees it, or print the fast "
                                 "path's generated adapter for it.")  # fmt: skip
    inspect.add_argument("module", help="the .wasm (or .wat) file")
    inspect.add_argument("--function", help="the entry function (function.name); needed when it exports several")
    inspect.add_argument("--adapter", action="store_true", help="print the fast path's generated adapter (WAT)")
    inspect.set_defaults(handler=_inspect)


def _inspect(args: argparse.Namespace) -> int:
    from host_functions.inspect import adapter_text, describe_module

    print(adapter_text(args.module, args.function) if args.adapter else describe_module(args.module, args.function))
    return EXIT_OK
