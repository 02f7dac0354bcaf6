"""``smt wasm ...``: WebAssembly guest projects.

One module per subcommand, each with ``add_command(actions, common)``; a new
subcommand is a new module listed in :data:`SUBCOMMANDS`.
"""

from __future__ import annotations

import argparse
import importlib

__all__ = ["SUBCOMMANDS", "add_commands"]

#: Modules of this package, each adding one ``smt wasm`` subcommand.
SUBCOMMANDS = ("init", "build", "inspect")


def add_commands(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    wasm = commands.add_parser("wasm", parents=[common], help="WebAssembly guests: start a project, build it, inspect a module",
                               description="WebAssembly guest transforms, written in C, Go or Zig with our SDKs.")  # fmt: skip
    actions = wasm.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name in SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_command(actions, common)
