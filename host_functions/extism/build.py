"""Builds an Extism plug-in from its source folder with the plug-in's own official PDK.

A folder with a ``Cargo.toml`` is a Rust crate using ``extism-pdk`` (built for
``wasm32-unknown-unknown``, release); a folder with a ``go.mod`` is a standard-Go
module using ``github.com/extism/go-pdk`` (built with ``GOOS=wasip1 GOARCH=wasm
-buildmode=c-shared``; such plug-ins need ``transforms.X.wasi=true``).  The
toolchains come from ``scripts/install-guest-toolchains.sh``.

Builds are cached by content: the module is ``CACHE_DIR/<parent>-<folder>-<hash>.wasm``
(by default under ``~/.cache/spark-smt/extism-plugins``), the hash covering every file of
the folder, so an unchanged plug-in is never rebuilt.  The
folder is copied to a scratch directory first (Cargo and Go write lock files next to
their manifests); Rust crates share one Cargo target directory, so their
dependencies compile once.

Command line: ``python -m host_functions.extism.build FOLDER... [-o OUT_DIR]`` copies each
module to ``OUT_DIR/<parent>-<folder>.wasm`` (``examples/wasm/extism/to_upper/rust`` ->
``to_upper-rust.wasm``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from host_functions.sdk.build import (
    BUILD_TIMEOUT_SECONDS,
    INSTALL_SCRIPT,
    GuestBuildError,
    ToolchainMissingError,
    run_compiler,
)

__all__ = ["build_plugin", "default_cache_dir"]

#: Bumped when the way plug-ins are built changes: every cached module is then stale.
_BUILDER_VERSION = "1"
_RUST_TARGET = "wasm32-unknown-unknown"
#: A whole project (its SDK too) compiles in a run: twice the time a single source gets.
_PROJECT_TIMEOUT_SECONDS = BUILD_TIMEOUT_SECONDS * 2
_GO_ENVIRONMENT = {"GOOS": "wasip1", "GOARCH": "wasm", "GOFLAGS": "-mod=mod", "CGO_ENABLED": "0"}


def default_cache_dir() -> Path:
    """``~/.cache/spark-smt/extism-plugins``: shared by every checkout, since builds are keyed by content."""
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "spark-smt" / "extism-plugins"


def build_plugin(folder: str | os.PathLike[str], cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Build the plug-in in ``folder`` (Rust or Go, by its manifest) and return the cached module's path.

    Raises :class:`ToolchainMissingError` when cargo or go is missing, and
    :class:`GuestBuildError` when the folder is not a plug-in or the compiler fails
    (its output is in the message).
    """
    source = Path(folder).resolve()
    language = _language_of(source)
    out = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    out.mkdir(parents=True, exist_ok=True)
    output = out / f"{source.parent.name}-{source.name}-{_content_hash(source)}.wasm"
    if output.exists():
        return output
    with tempfile.TemporaryDirectory(dir=out, prefix=".build-") as scratch:
        project = Path(scratch) / source.name
        shutil.copytree(source, project, ignore=shutil.ignore_patterns("target", "*.wasm", "Cargo.lock", "go.sum"))
        built = _build_rust(project) if language == "rust" else _build_go(project)
        temporary = Path(scratch) / output.name
        shutil.copyfile(built, temporary)
        os.replace(temporary, output)
    return output


def _language_of(source: Path) -> str:
    if (source / "Cargo.toml").is_file():
        return "rust"
    if (source / "go.mod").is_file():
        return "go"
    raise GuestBuildError(f"cannot build {source}: not an Extism plug-in folder (no Cargo.toml or go.mod)")


def _content_hash(source: Path) -> str:
    digest = hashlib.sha256(_BUILDER_VERSION.encode())
    for path in sorted(p for p in source.rglob("*") if p.is_file() and "target" not in p.relative_to(source).parts):
        digest.update(str(path.relative_to(source)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _build_rust(project: Path) -> Path:
    cargo = _tool("cargo", project, "Rust (rustup, with the wasm32-unknown-unknown target)")
    target_dir = default_cache_dir() / "cargo-target"  # shared by every cache: dependencies compile once
    run_compiler(
        project,
        [cargo, "build", "--release", "--quiet", "--target", _RUST_TARGET, "--target-dir", str(target_dir)],
        {},
        cwd=project,
        timeout=_PROJECT_TIMEOUT_SECONDS,
    )
    crate = _crate_name(project)
    return target_dir / _RUST_TARGET / "release" / f"{crate.replace('-', '_')}.wasm"


def _build_go(project: Path) -> Path:
    go = _tool("go", project, "Go 1.24 or newer")
    output = project / "plugin.wasm"
    run_compiler(
        project,
        [go, "build", "-buildmode=c-shared", "-trimpath", "-o", str(output), "."],
        _GO_ENVIRONMENT,
        cwd=project,
        timeout=_PROJECT_TIMEOUT_SECONDS,
    )
    return output


def _crate_name(project: Path) -> str:
    import tomllib

    with open(project / "Cargo.toml", "rb") as manifest:
        return tomllib.load(manifest)["package"]["name"]


def _tool(name: str, project: Path, what: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise ToolchainMissingError(f"cannot build {project.name}: {what} is not installed; run {INSTALL_SCRIPT}")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m host_functions.extism.build", description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, help="plug-in folders (with a Cargo.toml or a go.mod)")
    parser.add_argument("-o", "--out-dir", type=Path, default=Path("build/wasm"), help="where to put the .wasm files")
    args = parser.parse_args(argv)
    try:
        for folder in args.folders:
            built = build_plugin(folder)
            args.out_dir.mkdir(parents=True, exist_ok=True)
            target = args.out_dir / f"{Path(folder).resolve().parent.name}-{Path(folder).resolve().name}.wasm"
            shutil.copyfile(built, target)
            print(target)
    except GuestBuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
