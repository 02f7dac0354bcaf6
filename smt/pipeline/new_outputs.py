"""A failed batch run leaves nothing that blocks the next one.

Spark's job commit keeps a failed write's records out of its output folder,
but the folder itself stays (created when the job started), and with
``sink.write.mode=errorifexists`` the next run is refused with "already
exists".  So the runner notes which output folders (the sink's
:meth:`~smt.connector.Sink.output_paths`, a dead-letter folder) are not
there before a batch run writes, and removes those, and only those, when the
run fails: they hold nothing but the failed run's leftovers.  A folder that
was already there (``append``, ``overwrite``) is left to Spark's commit.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["NewOutputs"]

log = logging.getLogger(__name__)


class NewOutputs:
    """The output folders of a batch run that do not exist yet; :meth:`remove` undoes them."""

    def __init__(self, spark: Any, writers: list[Any]) -> None:
        from smt.driver_files import driver_files

        self._files = driver_files(spark)
        paths = [path for writer in writers if writer is not None for path in _output_paths(writer)]
        self.paths = [path for path in dict.fromkeys(paths) if not self._files.exists(path)]

    def remove(self) -> None:
        """Delete the folders the failed run created (never raises: the run's own failure is what matters)."""
        for path in self.paths:
            try:
                if self._files.exists(path):
                    self._files.delete(path)
                    log.info("removed '%s', created by the failed run", path)
            except Exception as exc:  # noqa: BLE001
                log.warning("could not remove '%s', created by the failed run: %s", path, exc)


def _output_paths(writer: Any) -> list[str]:
    return list(writer.output_paths().values())
