"""The operating-system cause of a failed Spark write, named with its path.

A full disk reaches Python as ``[TASK_WRITE_FAILED] Task failed while writing
rows to file:/out/_temporary/0/_temporary/attempt_…/part-….txt``; the
cause, ``java.io.IOException: No space left on device``, is only in the Java
stack trace further down (Spark's log).  :func:`os_cause` finds such a cause
in the whole error, Java causes included, and names it with the folder being
written (Spark's ``_temporary`` attempt folders cut off), so the one line a
user reads says what to do.
"""

from __future__ import annotations

import re

__all__ = ["os_cause"]

#: Messages of the operating system (strerror) a user can act on.
_OS_MESSAGES = (
    "No space left on device",
    "Disk quota exceeded",
    "Read-only file system",
    "Permission denied",
    "Too many open files",
    "File name too long",
)

#: Where Spark says it was writing ("… while writing rows to file:/x/…", "… to path: …").
_WRITTEN_PATH = re.compile(r"writing rows to (\S+?)\.?(?:\s|$)")
_TEMPORARY = re.compile(r"/_temporary/.*$|/_smt_staging/.*$")


def os_cause(text: str) -> str | None:
    """``"<OS message> while writing to <folder>"`` when ``text`` (an error with its Java causes) holds one."""
    found = [message for message in _OS_MESSAGES if message in text]
    if not found:
        return None
    message = min(found, key=text.index)
    path = _WRITTEN_PATH.search(text)
    if path is None:
        return f"{message} (java.io.IOException from the file system)"
    folder = _TEMPORARY.sub("", path.group(1)).removeprefix("file:")
    return f"{message} while writing to {folder}"
