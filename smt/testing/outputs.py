"""Reading what a pipeline's file sink wrote, for end-to-end tests."""

from __future__ import annotations

import os

__all__ = ["output_lines"]


def output_lines(directory: str | os.PathLike) -> list[str]:
    """The lines of the part files in ``directory`` (Spark's ``part-*`` outputs), file by file.

    Spark's own files (``_SUCCESS``, ``.crc`` checksums) are not read; a line's
    trailing line break is not part of it.
    """
    lines: list[str] = []
    for name in sorted(os.listdir(directory)):
        if name.startswith("part-"):
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                lines.extend(line.rstrip("\n") for line in handle)
    return lines
