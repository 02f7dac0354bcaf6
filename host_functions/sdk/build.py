"""Compiles a guest transform from source to a ``.wasm`` module, choosing the compiler by extension.

``.c``   -> Debian's clang for ``wasm32`` (no libc), linked with ``sdk/c/smt_guest.c``.
``.zig`` -> Zig from the ``ziglang`` PyPI wheel for ``wasm32-freestanding``, with ``sdk/zig/smt_guest.zig``
            importable as the module ``smt``; ReleaseSafe, so a guest bug traps (failing its record)
            instead of corrupting memory.
``.go``  -> Go (>= 1.24, for ``//go:wasmexport``) with ``GOOS=wasip1 GOARCH=wasm -buildmode=c-shared``, in a
            scratch module where ``import smt "smtguest"`` resolves to ``sdk/go``; the reactor's
            ``_initialize`` then becomes its start function (see ``_wasm_start``).  Go guests need WASI
            (``transforms.X.wasi=true``).

The toolchains come from ``scripts/install-guest-toolchains.sh``.  Builds are cached: a module is
rebuilt only when its source, its language's SDK or this builder changed since it was last built.

Command line: ``python -m host_functions.sdk SOURCE... [-o OUT_DIR]``.
"""

from __future__ import annotations

import argparse
import logging
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from host_functions.sdk._wasm_start import WasmRewriteError, self_initializing
from host_functions.sdk.toolchains import c_compiler, zig_executable
from smt.errors import SmtError

log = logging.getLogger(__name__)

__all__ = [
    "build_guest",
    "toolchain_install_hint",
    "supported_extensions",
    "GuestBuildError",
    "ToolchainMissingError",
    "is_fresh",
    "run_compiler",
]

SDK_DIR = Path(__file__).resolve().parent
_WASM_SECTIONS = SDK_DIR.parent / "wasm_sections.py"
#: A source checkout's script that installs every toolchain (system packages: it needs root).
INSTALL_SCRIPT = "scripts/install-guest-toolchains.sh"
# Compilers are slow on a shared 2-core machine, but never this slow.
BUILD_TIMEOUT_SECONDS = 300


class GuestBuildError(SmtError):
    """A guest source file could not be compiled; the message names the file and the compiler output."""


class ToolchainMissingError(GuestBuildError):
    """The compiler a guest needs is not installed; the message names it and how to install it at user level."""


@dataclass(frozen=True)
class _Toolchain:
    language: str
    sdk_dir: Path
    command: Callable[[Path, Path, Path], list[str]]
    #: Extra environment variables for the compiler.
    environment: tuple[tuple[str, str], ...] = ()
    #: A rewrite of the compiler's output, if it needs one.
    post_link: Callable[[bytes], bytes] | None = None


#: pip for the Python running this: a toolchain on PyPI goes where the guests are built from.
_PIP = f"{Path(sys.executable).name} -m pip"
#: What to install for C guests, at user level first (no root: Zig's bundled clang compiles them).
C_TOOLCHAIN_INSTALL = (
    f"`{_PIP} install ziglang` (user level, no root: its `zig cc` compiles C guests), "
    "or clang and lld (Debian/Ubuntu: `sudo apt-get install clang lld`)"
)


def toolchain_install_hint(extension: str) -> str | None:
    """What to install to build guests of ``extension`` (``.c``, ``.zig``, ``.go``), or None when a toolchain is here."""
    found = {".c": c_compiler, ".zig": zig_executable, ".go": lambda: shutil.which("go")}[extension]()
    if found:
        return None
    return {
        ".c": C_TOOLCHAIN_INSTALL,
        ".zig": f"`{_PIP} install ziglang`",
        ".go": "Go 1.24 or newer from https://go.dev/dl (unpack it in your home folder, put its bin/ on PATH)",
    }[extension]


def _clang_command(source: Path, output: Path, cache_dir: Path) -> list[str]:
    compiler = c_compiler()
    if not compiler:
        raise ToolchainMissingError(
            f"cannot build {source}: no C guest toolchain is installed; install {C_TOOLCHAIN_INSTALL}"
        )
    c_sdk = SDK_DIR / "c"
    return [
        *compiler,
        "-O2",
        "-nostdlib",
        "-fno-builtin",
        "-mbulk-memory",
        "-Wall",
        "-Werror",
        "-I",
        str(c_sdk),
        "-Wl,--no-entry",
        "-Wl,--strip-all",
        str(source),
        str(c_sdk / "smt_guest.c"),
        "-o",
        str(output),
    ]


def _zig_command(source: Path, output: Path, cache_dir: Path) -> list[str]:
    zig = zig_executable()
    if not zig:
        raise ToolchainMissingError(
            f"cannot build {source}: the Zig guest toolchain (the `ziglang` PyPI package, or `zig` on PATH) "
            f"is not installed; install it at user level: `{_PIP} install ziglang`"
        )
    return [
        *zig,
        "build-exe",
        "-target",
        "wasm32-freestanding",
        "-O",
        "ReleaseSafe",
        "-fno-entry",
        "-rdynamic",
        "-fstrip",
        "--cache-dir",
        str(cache_dir / ".zig-cache"),
        "--dep",
        "smt",
        f"-Mroot={source}",
        f"-Msmt={SDK_DIR / 'zig' / 'smt_guest.zig'}",
        f"-femit-bin={output}",
    ]


def _go_command(source: Path, output: Path, cache_dir: Path) -> list[str]:
    go = shutil.which("go")
    if go is None:
        raise ToolchainMissingError(
            f"cannot build {source}: the Go guest toolchain (`go` 1.24 or newer on PATH) is not installed; "
            "install it at user level from https://go.dev/dl (unpack it in your home folder, put its bin/ on PATH)"
        )
    # A Go source cannot import a package from another folder without a module around it: build a
    # scratch module holding a copy of the source, whose go.mod points `smtguest` at the SDK.
    module_dir = output.parent / "go-module"
    module_dir.mkdir()
    shutil.copyfile(source, module_dir / source.name)
    (module_dir / "go.mod").write_text(
        f"module guest\n\ngo 1.24\n\nrequire smtguest v0.0.0\n\nreplace smtguest => {SDK_DIR / 'go'}\n"
    )
    return [go, "-C", str(module_dir), "build", "-buildmode=c-shared", "-trimpath", "-o", str(output), "."]


_GO_ENVIRONMENT = (("GOOS", "wasip1"), ("GOARCH", "wasm"), ("GOFLAGS", "-mod=mod"), ("CGO_ENABLED", "0"))


_TOOLCHAINS: dict[str, _Toolchain] = {
    ".c": _Toolchain("c", SDK_DIR / "c", _clang_command),
    ".zig": _Toolchain("zig", SDK_DIR / "zig", _zig_command),
    ".go": _Toolchain("go", SDK_DIR / "go", _go_command, _GO_ENVIRONMENT, self_initializing),
}


def supported_extensions() -> tuple[str, ...]:
    """The source file extensions :func:`build_guest` knows how to compile."""
    return tuple(_TOOLCHAINS)


def output_path(source_path: str | os.PathLike[str], out_dir: str | os.PathLike[str]) -> Path:
    """Where :func:`build_guest` puts the module for SOURCE_PATH: ``OUT_DIR/<stem>.<language>.wasm``."""
    source = Path(source_path)
    toolchain = _toolchain_for(source)
    return Path(out_dir) / f"{source.stem}.{toolchain.language}.wasm"


def build_guest(source_path: str | os.PathLike[str], out_dir: str | os.PathLike[str]) -> Path:
    """Compiles SOURCE_PATH to ``OUT_DIR/<stem>.<language>.wasm`` and returns that path.

    Raises ToolchainMissingError when the compiler is not installed, and GuestBuildError when the
    extension is unknown, the source is missing, or the compiler fails (its output is in the message).
    """
    source = Path(source_path).resolve()
    toolchain = _toolchain_for(source)
    if not source.is_file():
        raise GuestBuildError(f"cannot build {source}: no such file")
    output = output_path(source, out_dir).resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    if is_fresh(output, _build_inputs(source, toolchain)):
        log.info("%s: %s is up to date (newer than the source and the SDK)", source.name, output)
        return output
    # Compile to a temporary name so a failed or interrupted build never leaves a stale module behind.
    with tempfile.TemporaryDirectory(dir=output.parent, prefix=".build-") as scratch:
        built = Path(scratch) / output.name
        command = toolchain.command(source, built, output.parent)
        log.info("%s: compiling: %s", source.name, shlex.join(str(part) for part in command))
        run_compiler(source, command, dict(toolchain.environment))
        if toolchain.post_link is not None:
            log.info("%s: rewriting the module after linking (%s)", source.name, toolchain.post_link.__name__)
            _rewrite(source, built, toolchain.post_link)
        os.replace(built, output)
    log.info("%s: wrote %s (%s bytes)", source.name, output, f"{output.stat().st_size:,}")
    return output


def _toolchain_for(source: Path) -> _Toolchain:
    try:
        return _TOOLCHAINS[source.suffix]
    except KeyError:
        known = ", ".join(_TOOLCHAINS)
        raise GuestBuildError(
            f"cannot build {source}: unknown guest language {source.suffix!r} (known: {known})"
        ) from None


def _build_inputs(source: Path, toolchain: _Toolchain) -> list[Path]:
    """The files a module depends on.  The builder's own modules count too (and the Wasm section
    code its rewrite uses): a change in how it builds makes every module stale."""
    return [source, *sorted(toolchain.sdk_dir.iterdir()), *sorted(SDK_DIR.glob("*.py")), _WASM_SECTIONS]


def is_fresh(output: Path, inputs: Sequence[Path]) -> bool:
    if not output.exists():
        return False
    built_at = output.stat().st_mtime_ns
    return all(path.stat().st_mtime_ns <= built_at for path in inputs)


def run_compiler(
    source: Path,
    command: list[str],
    environment: dict[str, str],
    *,
    cwd: Path | None = None,
    timeout: float = BUILD_TIMEOUT_SECONDS,
) -> None:
    """Run a compiler for ``source``; its failure or a run over ``timeout`` seconds is a GuestBuildError."""
    try:
        completed = subprocess.run(
            command,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env={**os.environ, **environment},
        )
    except subprocess.TimeoutExpired as exc:
        raise GuestBuildError(f"cannot build {source}: the compiler ran longer than {timeout}s") from exc
    if completed.returncode != 0:
        output = (completed.stderr + completed.stdout).strip()
        raise GuestBuildError(f"cannot build {source}: {command[0]} exited with {completed.returncode}:\n{output}")


def _rewrite(source: Path, built: Path, post_link: Callable[[bytes], bytes]) -> None:
    try:
        built.write_bytes(post_link(built.read_bytes()))
    except WasmRewriteError as exc:
        raise GuestBuildError(f"cannot build {source}: the compiler's output cannot be rewritten: {exc}") from exc


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m host_functions.sdk", description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+", type=Path, help="guest source files (.c, .zig, .go)")
    parser.add_argument("-o", "--out-dir", type=Path, default=Path("build/wasm"), help="where to put the .wasm files")
    args = parser.parse_args(argv)
    try:
        for source in args.sources:
            print(build_guest(source, args.out_dir))
    except GuestBuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
