"""Builds a Rust guest (a Cargo project with a ``cdylib``) to a ``.wasm`` module.

Guests written for other hosts' SDKs come as Cargo projects, with their
dependencies pinned by ``Cargo.lock`` and fetched from crates.io.  The
``wasm32-*`` targets come from ``scripts/install-guest-toolchains.sh``
(``rustup target add``).  Cargo keeps its own incremental build state in the
target directory; the module is copied out as ``OUT_DIR/<crate>.rust.wasm``
and rebuilt only when the manifest, the lock file or a source changed.
"""

from __future__ import annotations

import os
import shutil
import tomllib
from pathlib import Path

from host_functions.sdk.build import INSTALL_SCRIPT, GuestBuildError, ToolchainMissingError, is_fresh, run_compiler

__all__ = ["build_cargo_guest"]

DEFAULT_TARGET = "wasm32-unknown-unknown"


def build_cargo_guest(
    project_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    target: str = DEFAULT_TARGET,
    target_dir: str | os.PathLike[str] | None = None,
) -> Path:
    """Builds the Cargo project in PROJECT_DIR (release profile, ``--locked``) for ``target``.

    ``target_dir`` is Cargo's build directory (default: inside OUT_DIR); a
    shared one makes rebuilds incremental across output folders.  Raises
    ToolchainMissingError when ``cargo`` is not on PATH, GuestBuildError when
    the project is not a Cargo ``cdylib`` or the build fails (the compiler
    output, which names a missing ``rustup`` target, is in the message).
    """
    project = Path(project_dir).resolve()
    manifest = project / "Cargo.toml"
    crate = _crate_name(manifest)
    output = (Path(out_dir) / f"{crate}.rust.wasm").resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    inputs = [manifest, project / "Cargo.lock", *sorted(project.rglob("*.rs"))]
    if is_fresh(output, [path for path in inputs if path.exists()]):
        return output
    cargo = shutil.which("cargo")
    if cargo is None:
        raise ToolchainMissingError(
            f"cannot build {project}: the Rust guest toolchain (`cargo` from rustup, with the {target} target) "
            f"is not installed; run {INSTALL_SCRIPT}"
        )
    build_dir = Path(target_dir) if target_dir is not None else output.parent / ".cargo-target"
    command = [
        cargo,
        "build",
        "--release",
        "--locked",
        "--quiet",
        "--target",
        target,
        "--manifest-path",
        str(manifest),
        "--target-dir",
        str(build_dir),
    ]
    run_compiler(manifest, command, {})
    built = build_dir / target / "release" / f"{crate}.wasm"
    scratch = output.with_name(f".{output.name}.{os.getpid()}.tmp")
    shutil.copyfile(built, scratch)
    os.replace(scratch, output)
    return output


def _crate_name(manifest: Path) -> str:
    try:
        data = tomllib.loads(manifest.read_text())
        return data.get("lib", {}).get("name") or data["package"]["name"].replace("-", "_")
    except FileNotFoundError:
        raise GuestBuildError(f"cannot build {manifest.parent}: no Cargo.toml there") from None
    except (KeyError, tomllib.TOMLDecodeError) as exc:
        raise GuestBuildError(f"cannot build {manifest.parent}: {manifest.name} has no [package] name ({exc})") from exc
