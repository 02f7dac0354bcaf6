"""An output folder and Spark's save modes: when a batch write into it would be refused.

The file sink and the file dead-letter queue share the rule (the queue
follows the sink's ``write.mode``), and ``smt validate`` asks it before Spark
starts, for local paths; a remote folder is checked by the write itself.
"""

from __future__ import annotations

import os
from urllib.parse import urlparse

__all__ = ["already_exists", "existing_output"]


def already_exists(path: str, mode: str, mode_key: str) -> str:
    """The refusal of a write with ``mode`` into the existing ``path``, naming the key that decides."""
    return f"'{path}' already exists and {mode_key} is {mode}; set {mode_key}=overwrite to replace it, or append"


def existing_output(path: str, mode: str, mode_key: str) -> str | None:
    """Why a batch write of ``path`` with ``mode`` would be refused as things are now, or None."""
    if mode != "errorifexists":
        return None
    parsed = urlparse(path)
    if parsed.scheme not in ("", "file"):
        return None
    local = parsed.path if parsed.scheme == "file" else path
    return already_exists(path, mode, mode_key) if os.path.lexists(local) else None
