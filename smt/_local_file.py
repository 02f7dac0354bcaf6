"""Creating a file on the local disk only if it is not there yet: the commit both file APIs share.

:class:`smt.driver_files.HadoopFiles` and :class:`smt._arrow_files.ArrowFiles`
both end here for a local path, where ``O_EXCL`` makes the check and the
creation one atomic step; it sits below both so that neither imports the other.
"""

from __future__ import annotations

import os

__all__ = ["create_local_file"]


def create_local_file(path: str, text: str) -> bool:
    """Create local file ``path`` (and its folder) holding ``text``, atomically unless it exists: False when it did."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    try:
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)
    return True
