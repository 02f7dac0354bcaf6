"""The compilers guests are built with, each named once, and how to tell that one is missing.

The names are the ones a test's ``guest_toolchain`` marker gives (``c``, ``zig``, ``go``,
``rust``, and ``wabt``, whose ``wat2wasm`` validates WebAssembly text).  :func:`missing` answers without building anything, so a test suite can skip
a test whose toolchain is absent, naming it, instead of failing in the middle of a build.
All of them come from ``scripts/install-guest-toolchains.sh``.
"""

from __future__ import annotations

import functools
import importlib.util
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

__all__ = ["NAMES", "RUST_TARGETS", "c_compiler", "describe", "missing", "zig_executable"]

#: The wasm targets the Rust guests are built for: Redpanda and proxy-wasm guests (wasip1),
#: Extism plug-ins and Kafka Connect ABI guests (unknown-unknown).
RUST_TARGETS = ("wasm32-wasip1", "wasm32-unknown-unknown")


@dataclass(frozen=True)
class _Toolchain:
    #: What a user installs, as a person would name it.
    description: str
    #: None when everything is there, else what is absent.
    absent: Callable[[], str | None]


def zig_executable() -> list[str]:
    """The command that runs Zig: the ``ziglang`` package's, else ``zig`` on PATH; empty when neither."""
    if importlib.util.find_spec("ziglang") is not None:
        return [sys.executable, "-m", "ziglang"]
    zig = shutil.which("zig")
    return [zig] if zig is not None else []


def c_compiler() -> list[str]:
    """clang with wasm-ld, else Zig's ``zig cc`` (the ``ziglang`` PyPI package: clang and lld inside);
    empty when neither is here."""
    clang = shutil.which("clang")
    if clang is not None and shutil.which("wasm-ld") is not None:
        return [clang, "--target=wasm32"]
    zig = zig_executable()
    return [*zig, "cc", "--target=wasm32-freestanding"] if zig else []


def _absent_c() -> str | None:
    return None if c_compiler() else "neither clang with wasm-ld on PATH nor the ziglang package"


def _absent_zig() -> str | None:
    return None if zig_executable() else "neither the ziglang package nor zig on PATH"


def _absent_go() -> str | None:
    return None if shutil.which("go") else "go not on PATH"


def _absent_wabt() -> str | None:
    return None if shutil.which("wat2wasm") else "wat2wasm not on PATH"


@functools.cache
def _absent_rust() -> str | None:
    if shutil.which("cargo") is None or shutil.which("rustc") is None:
        return "cargo not on PATH"
    gone = [target for target in RUST_TARGETS if not _rust_target_installed(target)]
    return f"the rustup target{'s' if len(gone) > 1 else ''} {', '.join(gone)} not installed" if gone else None


def _rust_target_installed(target: str) -> bool:
    """Whether rustc has the standard library for ``target`` (``rustup target add`` puts it there)."""
    done = subprocess.run(
        ["rustc", "--print", "target-libdir", "--target", target], capture_output=True, text=True, check=False
    )
    return done.returncode == 0 and Path(done.stdout.strip()).is_dir()


_TOOLCHAINS = {
    "c": _Toolchain("clang and lld (Debian's clang and lld packages), or Zig's clang (the ziglang package)", _absent_c),
    "zig": _Toolchain("Zig (the ziglang PyPI package)", _absent_zig),
    "go": _Toolchain("Go 1.21 or newer", _absent_go),
    "rust": _Toolchain(f"Rust from rustup with the {' and '.join(RUST_TARGETS)} targets", _absent_rust),
    "wabt": _Toolchain("the WebAssembly Binary Toolkit (Debian's wabt package)", _absent_wabt),
}
#: Every toolchain name a guest_toolchain marker may give.
NAMES = tuple(_TOOLCHAINS)


def describe(name: str) -> str:
    """What toolchain ``name`` is, as an install instruction would name it; KeyError for an unknown name."""
    return _TOOLCHAINS[name].description


def missing(name: str) -> str | None:
    """None when toolchain ``name`` can build guests here, else a sentence naming what is absent.

    Raises ValueError for a name that is not one of :data:`NAMES`.
    """
    try:
        toolchain = _TOOLCHAINS[name]
    except KeyError:
        raise ValueError(f"unknown guest toolchain {name!r}: expected one of {', '.join(NAMES)}") from None
    absent = toolchain.absent()
    return None if absent is None else f"the {name} guest toolchain, {toolchain.description}, is missing: {absent}"
