"""Exactly-once streaming writes to a directory: one micro-batch, one commit.

Structured Streaming replays a micro-batch after a crash (same id, same
input) when the crash came before the batch was marked done in the
checkpoint.  So a write must be idempotent per batch id, and safe when two
attempts of one batch id run at once (two runs on one checkpoint where it
cannot be locked, see :mod:`smt.pipeline.checkpoint_lock`):

1. if the marker ``_smt_commits/<id>`` exists, the batch is already in: do
   nothing but drop the files of attempts that lost (see 6);
2. write the batch with the format into ``_smt_staging/<id>-<attempt>``,
   ``<attempt>`` a fresh random id;
3. move each data file to ``batch-<id>-<attempt>-<name>`` in the directory;
4. create the marker ``_smt_commits/<id>`` holding ``<attempt>``, only if it
   does not exist (``O_EXCL`` on a local disk, ``create(overwrite=false)`` on
   HDFS): the one attempt that creates it wins;
5. an attempt that lost deletes only its own files and staging folder;
6. the winner deletes the ``batch-<id>-*`` files and staging folders of every
   other attempt (a crashed one, or one about to lose).

No attempt ever deletes the winner's files, and after any crash and restart
the directory holds each batch exactly once.  Readers that skip
``_``-prefixed entries (Spark does) see only data files; between steps 3
and 6 a concurrent reader can see part of one batch, or a losing attempt's.
A marker written before attempts had ids is empty: its batch's files are
left as they are.
"""

from __future__ import annotations

import uuid
from typing import Any

from smt.driver_files import driver_files

COMMITS_DIR = "_smt_commits"
STAGING_DIR = "_smt_staging"


def batch_file_prefix(batch_id: int) -> str:
    return f"batch-{batch_id:010d}-"


def write_micro_batch(fmt: Any, df: Any, path: str, batch_id: int) -> bool:
    """Write micro-batch ``batch_id`` once; False when it was committed before (or by another attempt)."""
    files = driver_files(df.sparkSession)
    root = path.rstrip("/")
    marker = f"{root}/{COMMITS_DIR}/{batch_id}"
    if files.exists(marker):
        _drop_other_attempts(files, root, batch_id, files.read_text(marker).strip())
        return False
    attempt = uuid.uuid4().hex[:16]
    staging = f"{root}/{STAGING_DIR}/{batch_id}-{attempt}"
    fmt.write(df, staging, "overwrite")
    own = f"{batch_file_prefix(batch_id)}{attempt}-"
    for name in files.data_files(staging):
        files.rename(f"{staging}/{name}", f"{root}/{own}{name}")
    won = files.create_new(marker, attempt)
    if not won:
        for name in files.data_files(root):
            if name.startswith(own):
                files.delete(f"{root}/{name}")
        files.delete(staging)
        return False
    _drop_other_attempts(files, root, batch_id, attempt)
    return True


def _drop_other_attempts(files: Any, root: str, batch_id: int, winner: str) -> None:
    if not winner:  # a marker from before attempt ids: nothing tells the files apart
        return
    prefix = batch_file_prefix(batch_id)
    for name in files.data_files(root):
        if name.startswith(prefix) and not name.startswith(f"{prefix}{winner}-"):
            files.delete(f"{root}/{name}")
    staging_root = f"{root}/{STAGING_DIR}"
    for name in files.list_names(staging_root):
        if name == str(batch_id) or name.startswith(f"{batch_id}-"):
            files.delete(f"{staging_root}/{name}")
