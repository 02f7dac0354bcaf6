"""What a Spark Python worker process sets up once, for every task it runs after.

PySpark's worker starts each task by calling ``importlib.invalidate_caches()``
(after it puts the task's ``--py-files`` on ``sys.path``).  On Python 3.11 that
makes every ``zipimporter`` read its archive's directory again: one
importer per package imported from a zip, and the worker imports PySpark from
``pyspark.zip`` and has Spark's core jar on its path, so about 1,700 entries
read a dozen times over.  That is about 100 ms at the start of every task of
every ``mapInArrow``, on a micro-batch of a few hundred records most of its
time (see :mod:`smt.pipeline.micro_batches`).

:func:`prepare_worker` makes the process's zip importers read an archive again
only when the file changed (its size or modification time), which is what the
invalidation is for: a zip added or replaced by a task still gets read.  It is
called at the start of the pipeline's task functions; the first task of a
worker process pays the cost once more, the ones after it do not.
"""

from __future__ import annotations

import os
import sys
import zipimport

__all__ = ["prepare_worker"]


class _UnchangedArchiveImporter(zipimport.zipimporter):
    """A zip importer whose ``invalidate_caches`` reads the archive again only when the file changed."""

    _archive_seen: tuple[int, int] | None = None

    def invalidate_caches(self) -> None:
        try:
            stat = os.stat(self.archive)
        except OSError:
            super().invalidate_caches()
            return
        seen = (stat.st_mtime_ns, stat.st_size)
        if seen != self._archive_seen:
            if self._archive_seen is not None:
                super().invalidate_caches()
            self._archive_seen = seen


_prepared = False


def prepare_worker() -> None:
    """Make this process's zip importers, and those it makes from now on, skip unchanged archives."""
    global _prepared
    if _prepared:
        return
    sys.path_hooks[:] = [_UnchangedArchiveImporter if hook is zipimport.zipimporter else hook
                         for hook in sys.path_hooks]  # fmt: skip
    for importer in sys.path_importer_cache.values():
        if type(importer) is zipimport.zipimporter:
            importer.__class__ = _UnchangedArchiveImporter
    _prepared = True
