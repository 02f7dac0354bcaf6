"""``smt wasm init NAME --lang c|go|zig``: a new guest project that builds, runs and tests.

Like ``rpk transform init``, it writes a folder ``NAME/`` holding:

- ``NAME.c`` / ``NAME.go`` / ``NAME.zig``: a guest transform exported as
  ``NAME`` (it upper-cases each value and drops records without one), using
  the SDK of ``host_functions/sdk/<lang>``;
- ``NAME.properties``: a pipeline running it over ``input.txt`` into ``out/``;
- ``test_NAME.py``: pytest tests of the guest, through a chain and through
  the whole pipeline (the ``smt`` pytest plugin's fixtures);
- ``input.txt`` and a ``README.md`` with the commands.

Nothing is overwritten: an existing file is an error.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import string
from importlib import resources
from pathlib import Path

from smt.commands.output import EXIT_OK
from smt.errors import SmtError

__all__ = ["LANGUAGES", "add_command", "init_project"]

#: Language -> source extension; the SDK builder picks the compiler by extension.
LANGUAGES = {"c": ".c", "go": ".go", "zig": ".zig"}

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def add_command(actions: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    init = actions.add_parser("init", parents=[common], help="write a new guest project (source, pipeline, test)",
                              description="Write a guest project that builds with `smt wasm build`, runs with "
                              "`smt run` and is tested with pytest.")  # fmt: skip
    init.add_argument("name", help="the transform's name: the folder, the source file and the exported function "
                      "(letters, digits and _)")  # fmt: skip
    init.add_argument("--lang", choices=sorted(LANGUAGES), required=True, help="the guest's language")
    init.add_argument("--dir", type=Path, default=None, help="the project folder (default: ./NAME)")
    init.set_defaults(handler=_init)


def _init(args: argparse.Namespace) -> int:
    folder = init_project(args.name, args.lang, args.dir)
    print(f"created {folder}: {args.name}{LANGUAGES[args.lang]}, {args.name}.properties, test_{args.name}.py")
    for line in next_steps(folder, args.name, args.lang):
        print(line)
    return EXIT_OK


#: What the project's tests need: pytest and the pytest plugin's fixtures (the ``testing`` extra).
TESTING_INSTALL = "python -m pip install 'spark-smt[testing]'"


def next_steps(folder: Path, name: str, lang: str) -> list[str]:
    """The commands to run next, each prerequisite that is missing here first."""
    from host_functions.sdk.build import toolchain_install_hint

    lines = []
    compiler = toolchain_install_hint(LANGUAGES[lang])
    if compiler is not None:
        lines.append(f"first, a {lang} compiler for WebAssembly: install {compiler}")
    tests = "python -m pytest" if importlib.util.find_spec("pytest") else f"{TESTING_INSTALL} && python -m pytest"
    lines.append(f"next: cd {folder} && smt wasm build && smt run {name}.properties && {tests}")
    return lines


def init_project(name: str, lang: str, folder: Path | None = None) -> Path:
    """Write the project of guest ``name`` in ``lang`` into ``folder`` (default ``./name``); returns the folder.

    Raises :class:`SmtError` for a name that is not an identifier, an unknown
    language, or a file that already exists.
    """
    if not _NAME.fullmatch(name):
        raise SmtError(f"'{name}' cannot name a guest: use letters, digits and _, not starting with a digit")
    if lang not in LANGUAGES:
        raise SmtError(f"unknown guest language '{lang}'; known: {', '.join(sorted(LANGUAGES))}")
    folder = Path(folder) if folder is not None else Path(name)
    files = {
        f"{name}{LANGUAGES[lang]}": f"guest{LANGUAGES[lang]}.tmpl",
        f"{name}.properties": "pipeline.properties.tmpl",
        f"test_{name}.py": "test_guest.py.tmpl",
        "input.txt": "input.txt.tmpl",
        "README.md": "README.md.tmpl",
    }
    existing = [n for n in files if (folder / n).exists()]
    if existing:
        raise SmtError(f"{folder} already has {', '.join(existing)}: not overwriting")
    values = {"name": name, "lang": lang, "ext": LANGUAGES[lang], "wasi": "true" if lang == "go" else "false"}
    folder.mkdir(parents=True, exist_ok=True)
    for target, template in files.items():
        text = resources.files(__package__).joinpath("templates", template).read_text(encoding="utf-8")
        (folder / target).write_text(string.Template(text).substitute(values), encoding="utf-8")
    return folder
