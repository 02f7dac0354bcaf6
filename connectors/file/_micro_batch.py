"""Exactly-once streaming writes to a directory: one micro-batch of one query, one commit.

Structured Streaming replays a micro-batch after a crash (same id, same
input) when the crash came before the batch was marked done in the
checkpoint.  So a write must be idempotent per batch id, and safe when two
attempts of one batch id run at once (two runs on one checkpoint where it
cannot be locked, see :mod:`smt.pipeline.checkpoint_lock`).  Batch ids count
from 0 in every query, so the commits are kept per query: ``<query>`` is the
first 16 hex digits of the id Spark keeps in the checkpoint (its
``metadata`` file; a restart keeps it), and two queries with their own
checkpoints can write to one folder without one skipping the other's batches.

1. if the marker ``_smt_commits/<query>/<id>`` exists, the batch is already
   in: do nothing but drop the files of attempts that lost (see 6);
2. write the batch with the format into ``_smt_staging/<query>/<id>-<attempt>``,
   ``<attempt>`` a fresh random id;
3. move each data file to ``batch-<query>-<id>-<attempt>-<name>`` in the directory;
4. create the marker ``_smt_commits/<query>/<id>`` holding ``<attempt>``, only
   if it does not exist (``O_EXCL`` on a local disk, ``create(overwrite=false)``
   on HDFS): the one attempt that creates it wins;
5. an attempt that lost deletes only its own files and staging folder;
6. the winner deletes the ``batch-<query>-<id>-*`` files and staging folders
   of every other attempt of its query (a crashed one, or one about to lose).

No attempt ever deletes the winner's files, nor another query's, and after
any crash and restart the directory holds each batch exactly once.  Readers
that skip ``_``-prefixed entries (Spark does) see only data files; between
steps 3 and 6 a concurrent reader can see part of one batch, or a losing
attempt's.

Before commits were kept per query, the marker was ``_smt_commits/<id>`` and
the files ``batch-<id>-<attempt>-<name>`` (:func:`write_micro_batch` still
writes that layout, for a writer that does not know its query).  A query
that restarts from such a checkpoint replays at most its one batch in flight,
so such a marker counts for the first batch a query writes in a run, when it
has no marker of its own yet and the batch is not its very first (batch 0 is
where every new query starts, and its number says nothing of whose marker it
is).  A marker from before attempts had ids is empty: its batch's files are
left as they are.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from smt.driver_files import driver_files
from smt.errors import SmtError

__all__ = ["COMMITS_DIR", "STAGING_DIR", "QueryCommits", "batch_file_prefix", "query_name", "write_micro_batch"]

COMMITS_DIR = "_smt_commits"
STAGING_DIR = "_smt_staging"


def batch_file_prefix(batch_id: int, query: str | None = None) -> str:
    """The start of the name of every data file of micro-batch ``batch_id`` (of ``query``, when given)."""
    return f"batch-{query}-{batch_id:010d}-" if query else f"batch-{batch_id:010d}-"


class QueryCommits:
    """The micro-batches one streaming query writes to the folder ``path``, each committed once.

    ``checkpoint`` is the query's ``checkpoint.location``; its id is read from
    there at the first write (Spark writes it when the query starts).
    """

    def __init__(self, path: str, checkpoint: str) -> None:
        self.path = path
        self.checkpoint = checkpoint
        self._query: str | None = None
        self._first_write = True

    def write(self, fmt: Any, df: Any, batch_id: int) -> bool:
        """Write micro-batch ``batch_id`` once; False when it was committed before (or by another attempt)."""
        files = driver_files(df.sparkSession)
        root = self.path.rstrip("/")
        if self._query is None:
            self._query = query_name(files, self.checkpoint)
        first, self._first_write = self._first_write, False
        if first and batch_id > 0 and not files.exists(f"{root}/{COMMITS_DIR}/{self._query}"):
            legacy = f"{root}/{COMMITS_DIR}/{batch_id}"
            if files.exists(legacy):  # committed by this query before commits were kept per query
                _drop_other_attempts(files, root, batch_id, files.read_text(legacy).strip(), None)
                return False
        return _write_once(files, fmt, df, root, batch_id, self._query)


def query_name(files: Any, checkpoint: str) -> str:
    """What a query's commits are kept under: the first 16 hex digits of its id, from its checkpoint."""
    metadata = f"{checkpoint.rstrip('/')}/metadata"
    try:
        query_id = json.loads(files.read_text(metadata))["id"]
    except Exception as exc:  # missing, unreadable, or not Spark's {"id": ...}
        raise SmtError(
            f"checkpoint.location '{checkpoint}': cannot read the streaming query's id from {metadata} "
            f"to commit its micro-batches: {type(exc).__name__}: {exc}"
        ) from exc
    return str(query_id).replace("-", "")[:16]


def write_micro_batch(fmt: Any, df: Any, path: str, batch_id: int) -> bool:
    """Write micro-batch ``batch_id`` once in the layout kept for all queries together (see the module).

    False when it was committed before (or by another attempt).  A writer that
    knows its query uses :class:`QueryCommits`, so that another query's batch
    of the same id is not taken for its own.
    """
    files = driver_files(df.sparkSession)
    return _write_once(files, fmt, df, path.rstrip("/"), batch_id, None)


def _write_once(files: Any, fmt: Any, df: Any, root: str, batch_id: int, query: str | None) -> bool:
    scope = f"{query}/" if query else ""
    marker = f"{root}/{COMMITS_DIR}/{scope}{batch_id}"
    if files.exists(marker):
        _drop_other_attempts(files, root, batch_id, files.read_text(marker).strip(), query)
        return False
    attempt = uuid.uuid4().hex[:16]
    staging = f"{root}/{STAGING_DIR}/{scope}{batch_id}-{attempt}"
    fmt.write(df, staging, "overwrite")
    own = f"{batch_file_prefix(batch_id, query)}{attempt}-"
    for name in files.data_files(staging):
        files.rename(f"{staging}/{name}", f"{root}/{own}{name}")
    won = files.create_new(marker, attempt)
    if not won:
        for name in files.data_files(root):
            if name.startswith(own):
                files.delete(f"{root}/{name}")
        files.delete(staging)
        return False
    _drop_other_attempts(files, root, batch_id, attempt, query)
    return True


def _drop_other_attempts(files: Any, root: str, batch_id: int, winner: str, query: str | None) -> None:
    if not winner:  # a marker from before attempt ids: nothing tells the files apart
        return
    prefix = batch_file_prefix(batch_id, query)
    for name in files.data_files(root):
        if name.startswith(prefix) and not name.startswith(f"{prefix}{winner}-"):
            files.delete(f"{root}/{name}")
    staging_root = f"{root}/{STAGING_DIR}/{query}" if query else f"{root}/{STAGING_DIR}"
    for name in files.list_names(staging_root):
        if name == str(batch_id) or name.startswith(f"{batch_id}-"):
            files.delete(f"{staging_root}/{name}")
