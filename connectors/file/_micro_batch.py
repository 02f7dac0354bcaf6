"""Exactly-once streaming writes to a directory: one micro-batch, one commit.

Structured Streaming replays a micro-batch after a crash (same id, same
input) when the crash came before the batch was marked done in the
checkpoint.  So a write must be idempotent per batch id:

1. if ``_smt_commits/<id>`` exists, the batch is already in: do nothing;
2. otherwise remove what a crashed attempt may have left (its staging folder
   and any ``batch-<id>-*`` files already moved);
3. write the batch with the format into ``_smt_staging/<id>``;
4. move each data file to ``batch-<id>-<name>`` in the directory;
5. create the marker ``_smt_commits/<id>``, then drop the staging folder.

After any crash and restart the directory holds each batch exactly once.
Readers that skip ``_``-prefixed entries (Spark does) see only data files;
between steps 4 and 5 a concurrent reader can see part of one batch.
"""

from __future__ import annotations

from typing import Any

from smt.driver_files import driver_files

COMMITS_DIR = "_smt_commits"
STAGING_DIR = "_smt_staging"


def batch_file_prefix(batch_id: int) -> str:
    return f"batch-{batch_id:010d}-"


def write_micro_batch(fmt: Any, df: Any, path: str, batch_id: int) -> bool:
    """Write micro-batch ``batch_id`` once; False when it was committed before."""
    files = driver_files(df.sparkSession)
    root = path.rstrip("/")
    marker = f"{root}/{COMMITS_DIR}/{batch_id}"
    if files.exists(marker):
        return False
    prefix = batch_file_prefix(batch_id)
    for name in files.data_files(root):
        if name.startswith(prefix):
            files.delete(f"{root}/{name}")
    staging = f"{root}/{STAGING_DIR}/{batch_id}"
    files.delete(staging)
    fmt.write(df, staging, "overwrite")
    for name in files.data_files(staging):
        files.rename(f"{staging}/{name}", f"{root}/{prefix}{name}")
    files.mkdirs(f"{root}/{COMMITS_DIR}")
    files.touch(marker)
    files.delete(staging)
    return True
