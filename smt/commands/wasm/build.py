"""``smt wasm build [PATH...]``: compile guest sources to ``.wasm`` with the project's SDKs.

A PATH is a guest source (``.c``, ``.go``, ``.zig``) or a folder, whose guest
sources (not those of its sub-folders) are built; the default is the current
folder.  Modules go to ``build/`` next to their source, named
``<stem>.<language>.wasm`` (what ``smt wasm init``'s pipeline file expects),
and are rebuilt only when the source or the SDK changed
(:func:`host_functions.sdk.build.build_guest`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from smt.commands.output import EXIT_OK
from smt.errors import SmtError

__all__ = ["add_command", "build_paths"]


def add_command(actions: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    build = actions.add_parser("build", parents=[common], help="compile guest sources to .wasm modules in build/",
                               description="Compile guest sources (.c, .go, .zig) with the SDK of their language "
                               "into build/<stem>.<language>.wasm next to each source.")  # fmt: skip
    build.add_argument(
        "paths",
        nargs="*",
        type=Path,
        default=[Path(".")],
        metavar="PATH",
        help="guest sources or folders of them (default: the current folder)",
    )
    build.set_defaults(handler=_build)


def _build(args: argparse.Namespace) -> int:
    for module in build_paths(args.paths):
        print(module)
    return EXIT_OK


def build_paths(paths: list[Path]) -> list[Path]:
    """Build the guests of ``paths``; returns the modules. Raises :class:`SmtError` when there is nothing to build
    or a build fails (the compiler's output is in the message)."""
    from host_functions.sdk.build import build_guest, supported_extensions

    sources: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix in supported_extensions() and p.is_file())
            if not found:
                raise SmtError(f"no guest sources ({', '.join(supported_extensions())}) in {path}")
            sources.extend(found)
        else:
            sources.append(path)
    return [build_guest(source, source.parent / "build") for source in sources]
