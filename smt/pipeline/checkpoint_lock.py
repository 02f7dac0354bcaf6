"""One run per checkpoint: a lock on ``checkpoint.location`` held for the run's life.

Two streaming runs on one checkpoint would both write each micro-batch (Spark
notices only when the second commits its offsets, after its sink wrote).  So a
streaming run takes an exclusive ``flock`` on
``<checkpoint.location>/smt-pipeline.json.lock`` before it writes anything and
holds it until it ends; a second run is refused with
:class:`CheckpointInUse`, naming the process that holds it.  The operating
system releases the lock when the process dies, so a ``kill -9`` leaves no
stale lock behind (the file stays; only the lock matters).  The file's name
starts with the fingerprint's, which the checkpoint's claim already sets apart
from Spark's state.

``flock`` needs a local file system (a local disk, or a POSIX-locking NFS
mount).  A checkpoint on HDFS or an object store (``hdfs:``, ``s3a:``, ...)
cannot be locked this way: the run logs a warning and keeping to one run per
checkpoint is the user's part; there Spark refuses the later run's offsets
commit (``CONCURRENT_STREAM_LOG_UPDATE``) and the file sink's commit keeps
each micro-batch once (see ``connectors.file._micro_batch``).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import logging
import os
import socket
from typing import Any, Iterator
from urllib.parse import urlparse

from smt.errors import SmtError

__all__ = ["LOCK_FILE", "CheckpointInUse", "checkpoint_lock", "local_path"]

log = logging.getLogger(__name__)

#: In the checkpoint folder; named after the fingerprint file (``smt-pipeline.json``).
LOCK_FILE = "smt-pipeline.json.lock"


class CheckpointInUse(SmtError):
    """Another run holds the checkpoint."""


def local_path(location: str) -> str | None:
    """The local folder of a checkpoint location (a plain path or ``file:``), None for other file systems."""
    parsed = urlparse(location)
    if parsed.scheme == "" or len(parsed.scheme) == 1:  # a plain path (or a Windows drive letter)
        return location
    if parsed.scheme == "file":
        return parsed.path
    return None


@contextlib.contextmanager
def checkpoint_lock(spec: Any) -> Iterator[None]:
    """Hold ``spec``'s checkpoint for the block (streaming runs; batch runs have none).

    Raises :class:`CheckpointInUse` when another run holds it.
    """
    location = spec.config.get("checkpoint.location") if spec.streaming else None
    if not location:
        yield
        return
    folder = local_path(location)
    if folder is None:
        log.warning(
            "checkpoint.location '%s' is not on a local file system: it cannot be locked, so make sure "
            "no other run uses it at the same time",
            location,
        )
        yield
        return
    with _locked(folder, location):
        yield


@contextlib.contextmanager
def _locked(folder: str, location: str) -> Iterator[None]:
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, LOCK_FILE)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip() or "another run"
            raise CheckpointInUse(
                f"checkpoint.location '{location}' is in use by another run ({holder}); one checkpoint "
                "takes one run at a time: wait for it to end, or give this run its own checkpoint.location"
            ) from None
        since = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}, since {since}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock (as the process's death would)
