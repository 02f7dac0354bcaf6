"""Test helpers for users' transforms, guests and pipelines (also a pytest plugin: ``smt.testing.plugin``)."""

from __future__ import annotations

import os
from pathlib import Path

from smt.testing.outputs import output_lines
from smt.testing.pipelines import PipelineOutcome, run_test_pipeline
from smt.testing.records import make_record

__all__ = ["PipelineOutcome", "build_guest", "make_record", "output_lines", "run_test_pipeline"]


def build_guest(source: str | os.PathLike, out_dir: str | os.PathLike | None = None) -> Path:
    """Compile a guest source (``.c``, ``.go``, ``.zig``) as ``smt wasm build`` does; returns the module.

    The module goes to ``out_dir`` (default: ``build/`` next to the source) and
    is rebuilt only when the source or the SDK changed.  Raises
    :class:`host_functions.sdk.build.GuestBuildError` with the compiler's output.
    """
    from host_functions.sdk.build import build_guest as build

    source = Path(source)
    return build(source, out_dir if out_dir is not None else source.parent / "build")
