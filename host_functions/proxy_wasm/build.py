"""Builds proxy-wasm filters from source with their official SDKs: Rust and Go.

A folder with a ``Cargo.toml`` is a crate using the ``proxy-wasm`` crate (a
``cdylib``, built for ``wasm32-wasip1``); any other folder is a Go main
package using ``github.com/proxy-wasm/proxy-wasm-go-sdk`` (standard Go,
``GOOS=wasip1 GOARCH=wasm -buildmode=c-shared``, a WASI reactor).  Builds are
cached by content as for Redpanda guests (:mod:`host_functions.redpanda.build`,
which does the work); Rust crates built with one Cargo target folder share it,
so the SDK compiles once.
"""

from __future__ import annotations

import os
from pathlib import Path

from host_functions.redpanda.build import build_go_guest, build_rust_guest

__all__ = ["build_filter"]


def build_filter(
    folder: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    cargo_target_dir: str | os.PathLike[str] | None = None,
) -> Path:
    """The filter in ``folder``, built into ``out_dir/<name>.<rust|go>.wasm`` (rebuilt only when its sources
    change); Rust crates compile in ``cargo_target_dir`` (default: ``out_dir/cargo-target``)."""
    source = Path(folder)
    if (source / "Cargo.toml").is_file():
        return build_rust_guest(source, out_dir, cargo_target_dir or Path(out_dir) / "cargo-target")
    return build_go_guest(source, out_dir, c_shared=True)
