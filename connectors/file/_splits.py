"""Planning a file read for Python workers: which files, cut into which pieces, for which task.

When a file source can be read inside the pipeline's own Python tasks (see
:meth:`smt.connector.Source.read_tasks`), the driver lists the files and
cuts the work the way Spark's file sources do: large files into pieces of at
most ``spark.sql.files.maxPartitionBytes``, and pieces packed into tasks so
that every core gets a share.  Anything this simple planner does not
understand (globs, URIs other than local paths, nested directories,
compressed files) is left to Spark's own reader: :func:`list_files` returns
``None`` and the source falls back.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Callable, Sequence, TypeVar

__all__ = ["FileSplit", "list_files", "max_split_bytes", "pack_splits", "split_files"]

T = TypeVar("T")

#: Spark's defaults for ``spark.sql.files.maxPartitionBytes`` and ``openCostInBytes``.
DEFAULT_MAX_SPLIT_BYTES = 128 * 1024 * 1024
OPEN_COST_BYTES = 4 * 1024 * 1024

#: Name suffixes of compressed files, which Spark decompresses and which cannot be cut.
_COMPRESSED = (".gz", ".bz2", ".deflate", ".snappy", ".lz4", ".zst", ".xz", ".br")
_GLOB_CHARS = frozenset("*?[{")


@dataclasses.dataclass(frozen=True)
class FileSplit:
    """Bytes ``[start, start + length)`` of the file at ``path`` (the whole file when it is not cut)."""

    path: str
    start: int
    length: int

    @property
    def end(self) -> int:
        return self.start + self.length


def list_files(path: str) -> list[tuple[str, int]] | None:
    """``(file, size)`` for ``path`` (a file, or a directory's data files), sorted by name.

    As Spark does, names starting with ``_`` or ``.`` in a directory are not
    data.  ``None`` when ``path`` needs Spark's own listing.
    """
    if path.startswith("file://"):
        path = path[len("file://") :]
    if "://" in path or _GLOB_CHARS & set(path):
        return None
    if os.path.isfile(path):
        files = [path]
    else:
        files = []
        with os.scandir(path) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.name.startswith(("_", ".")):
                    continue
                if not entry.is_file():
                    return None  # nested folders: partition discovery is Spark's business
                files.append(entry.path)
    if any(name.endswith(_COMPRESSED) for name in files):
        return None
    return [(name, os.path.getsize(name)) for name in files]


def split_files(files: list[tuple[str, int]], max_split_bytes: int) -> list[FileSplit]:
    """Cut each file into pieces of at most ``max_split_bytes`` (empty files are skipped)."""
    splits = []
    for name, size in files:
        for start in range(0, size, max_split_bytes):
            splits.append(FileSplit(name, start, min(max_split_bytes, size - start)))
    return splits


def max_split_bytes(
    total_bytes: int, file_count: int, parallelism: int, max_partition_bytes: int = DEFAULT_MAX_SPLIT_BYTES
) -> int:
    """Spark's split size: at most ``max_partition_bytes``, small enough that every core gets work."""
    bytes_per_core = (total_bytes + file_count * OPEN_COST_BYTES) // max(1, parallelism)
    return max(1, min(max_partition_bytes, max(OPEN_COST_BYTES, bytes_per_core)))


def pack_splits(
    pieces: Sequence[T],
    target_bytes: int,
    size: Callable[[T], int] = lambda s: s.length,
) -> list[list[T]]:
    """Group pieces into tasks of about ``target_bytes`` each, largest first, as Spark packs them.

    Each piece costs :data:`OPEN_COST_BYTES` on top of its ``size``, so many
    small files share a task while a large piece gets a task to itself.
    """
    tasks: list[list[T]] = []
    current: list[T] = []
    total = 0
    for piece in sorted(pieces, key=size, reverse=True):
        if current and total + size(piece) > target_bytes:
            tasks.append(current)
            current, total = [], 0
        current.append(piece)
        total += size(piece) + OPEN_COST_BYTES
    if current:
        tasks.append(current)
    return tasks
