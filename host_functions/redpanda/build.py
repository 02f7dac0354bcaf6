"""Builds Redpanda guests (and proxy-wasm filters) from source with their official SDKs: Rust and Go.

``build_rust_guest(crate_dir, out_dir)`` runs ``cargo build --release --target wasm32-wasip1``
(crate ``redpanda-transform-sdk``; several crates may share one ``target_dir``, so the SDK is
compiled once); ``build_go_guest(package_dir, out_dir)`` runs standard Go with ``GOOS=wasip1
GOARCH=wasm`` (module ``github.com/redpanda-data/redpanda/src/transform-sdk/go/transform``).
Cargo fetches from crates.io and Go from its module proxy on a first build.

A crate whose ``[lib]`` is a ``cdylib`` (a proxy-wasm filter) gives a library module
instead of a command.  The module lands in ``out_dir/<name>.<rust|go>.wasm`` and is rebuilt only when the sources
(the crate or package, its workspace or module files) hash differently from the last build.
The toolchains come from ``scripts/install-guest-toolchains.sh``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tomllib
from pathlib import Path

from host_functions.sdk.build import INSTALL_SCRIPT, GuestBuildError, ToolchainMissingError
from host_functions.sdk.build import run_compiler as _run  # one way to run a compiler and report its failure

__all__ = ["build_go_guest", "build_rust_guest", "RUST_TARGET"]

RUST_TARGET = "wasm32-wasip1"
_SOURCE_SUFFIXES = {".rs", ".toml", ".lock", ".go", ".mod", ".sum"}


def build_rust_guest(
    crate_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str], target_dir: str | os.PathLike[str] | None = None
) -> Path:
    """The crate's binary built for wasm32-wasip1 (release), as ``out_dir/<crate>.rust.wasm``."""
    crate = Path(crate_dir).resolve()
    manifest = crate / "Cargo.toml"
    if not manifest.is_file():
        raise GuestBuildError(f"cannot build {crate}: no Cargo.toml")
    cargo_manifest = tomllib.loads(manifest.read_text())
    name = cargo_manifest["package"]["name"]
    if "cdylib" in cargo_manifest.get("lib", {}).get("crate-type", []):  # a library module: cargo names it so
        name = name.replace("-", "_")
    output = Path(out_dir).resolve() / f"{crate.parent.name if crate.name == 'rust' else crate.name}.rust.wasm"
    digest = _digest([crate, *_workspace_files(crate, ("Cargo.toml", "Cargo.lock"))])
    if _fresh(output, digest):
        return output
    cargo = shutil.which("cargo")
    if cargo is None:
        raise ToolchainMissingError(f"cannot build {crate}: cargo is not installed; run {INSTALL_SCRIPT}")
    target = Path(target_dir).resolve() if target_dir else output.parent / "cargo-target"
    _run(
        crate,
        [
            cargo,
            "build",
            "--release",
            "--quiet",
            "--target",
            RUST_TARGET,
            "--manifest-path",
            str(manifest),
            "--target-dir",
            str(target),
        ],
        {},
    )
    return _publish(target / RUST_TARGET / "release" / f"{name}.wasm", output, digest)


def build_go_guest(
    package_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str], *, c_shared: bool = False
) -> Path:
    """The Go main package built for wasip1, as ``out_dir/<name>.go.wasm`` (name: the package folder,
    or its parent's when the folder is called ``go``).  ``c_shared``: a WASI reactor
    (``-buildmode=c-shared``: ``_initialize`` and ``go:wasmexport`` functions, as proxy-wasm filters are)."""
    package = Path(package_dir).resolve()
    if not any(package.glob("*.go")):
        raise GuestBuildError(f"cannot build {package}: no .go files")
    output = Path(out_dir).resolve() / f"{package.parent.name if package.name == 'go' else package.name}.go.wasm"
    digest = _digest([package, *_workspace_files(package, ("go.mod", "go.sum"))]) + ("-c-shared" if c_shared else "")
    if _fresh(output, digest):
        return output
    go = shutil.which("go")
    if go is None:
        raise ToolchainMissingError(f"cannot build {package}: go is not installed; run {INSTALL_SCRIPT}")
    output.parent.mkdir(parents=True, exist_ok=True)
    built = output.with_name(f".{output.name}.build")
    mode = ["-buildmode=c-shared"] if c_shared else []
    _run(
        package,
        [go, "-C", str(package), "build", *mode, "-trimpath", "-o", str(built), "."],
        {"GOOS": "wasip1", "GOARCH": "wasm", "CGO_ENABLED": "0"},
    )
    try:
        return _publish(built, output, digest)
    finally:
        built.unlink(missing_ok=True)


def _workspace_files(start: Path, names: tuple[str, ...]) -> list[Path]:
    """``names`` found in ``start`` and the folders above it (a workspace's or module's files)."""
    return [folder / name for folder in (start, *start.parents) for name in names if (folder / name).is_file()]


def _digest(paths: list[Path]) -> str:
    sha = hashlib.sha256()
    for path in paths:
        files = sorted(p for p in path.rglob("*") if p.suffix in _SOURCE_SUFFIXES) if path.is_dir() else [path]
        for file in files:
            sha.update(str(file).encode() + b"\0" + file.read_bytes())
    return sha.hexdigest()


def _fresh(output: Path, digest: str) -> bool:
    stamp = output.with_suffix(".sha256")
    return output.is_file() and stamp.is_file() and stamp.read_text() == digest


def _publish(built: Path, output: Path, digest: str) -> Path:
    """Put the module in place (a copy: cargo keeps its own for the next incremental build)."""
    output.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(built, output)
    output.with_suffix(".sha256").write_text(digest)
    return output
