"""WebAssembly text kept in ``.wat`` files beside the code, with named holes the generator fills.

A hole is ``{{name}}``: the only templating the adapter's parsers need (layout constants and
the few statements that depend on the guest's shape).  A file opens with ``;;`` comment lines
that describe it; they are not part of the text generated.  :func:`render` fills every hole
and refuses a hole left unfilled or a value no hole takes, so a file and its generator cannot
drift apart.  ``tests/host_functions/kafka_connect/test_wat_files.py`` validates each file's
rendering with wabt's ``wat2wasm``.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

__all__ = ["WAT_DIR", "holes", "render"]

#: Where the adapter's ``.wat`` fragments live.
WAT_DIR = Path(__file__).with_name("wat")
_HOLE = re.compile(r"\{\{(\w+)\}\}")


@functools.cache
def _body(name: str) -> str:
    """The text of ``wat/<name>.wat`` after its opening comment lines."""
    lines = (WAT_DIR / f"{name}.wat").read_text().splitlines()
    start = next((index for index, line in enumerate(lines) if not line.startswith(";;")), len(lines))
    return "\n".join(lines[start:])


def holes(name: str) -> frozenset[str]:
    """The names of the holes in ``wat/<name>.wat``."""
    return frozenset(_HOLE.findall(_body(name)))


def render(name: str, **values: object) -> str:
    """``wat/<name>.wat`` with each ``{{hole}}`` replaced by ``str(values[hole])``.

    Raises ValueError naming the holes left unfilled or the values no hole takes.
    """
    expected = holes(name)
    if expected != values.keys():
        missing, extra = sorted(expected - values.keys()), sorted(values.keys() - expected)
        raise ValueError(
            f"wat/{name}.wat: holes not filled: {missing or 'none'}; values for no hole: {extra or 'none'}"
        )
    return _HOLE.sub(lambda match: str(values[match.group(1)]), _body(name))
