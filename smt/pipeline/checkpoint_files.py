"""How Spark writes a streaming run's checkpoint files on a local disk.

Spark writes two small files into the checkpoint for each micro-batch: the
offsets it planned (``walCommit`` in a micro-batch's phases) and, once the
batch is written, its commit (``commitOffsets``).  Its default way of writing
them (``FileContextBasedCheckpointFileManager``, Hadoop's ``FileContext``)
renames each file into place through Hadoop's ``AbstractFileSystem``, which on
the local file system asks for the target's link status by starting a
``readlink`` process (``RawLocalFileSystem.deprecatedGetFileLinkStatusInternal``).
Measured on a 2-core machine: 34 ms for each of the two writes, a third of a
hand-written Kafka → Kafka micro-batch at 1,000 records/s, and 66 ms for the
commit of a micro-batch through Python.  Spark's other way
(``FileSystemBasedCheckpointFileManager``, Hadoop's ``FileSystem``) renames
with the operating system's ``rename``: 7 ms.  It checks that the target is
not there and then renames, where ``FileContext`` refuses an existing target
in the rename itself: the difference matters only to two runs writing one
checkpoint at once, which the run's lock keeps out on a local disk
(:mod:`smt.pipeline.checkpoint_lock`).

So a streaming run whose checkpoint is on the local file system starts its
query with the second (``spark.sql.streaming.checkpointFileManagerClass``),
unless the session sets that key itself.  Spark reads the key when the query
starts, so the session's own setting is put back right after: the session's
other queries (a user's, on a shared session) keep Spark's default.  A Spark
Connect session's checkpoint is the server's to write, and is left as it is.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Iterator

__all__ = ["CHECKPOINT_FILE_MANAGER_KEY", "LOCAL_FILE_MANAGER", "local_checkpoint_files", "manager_class"]

log = logging.getLogger(__name__)

#: Spark's setting of the class that writes a streaming query's checkpoint files.
CHECKPOINT_FILE_MANAGER_KEY = "spark.sql.streaming.checkpointFileManagerClass"
#: The manager that renames with the operating system.
LOCAL_FILE_MANAGER = "FileSystemBasedCheckpointFileManager"
#: The package of Spark's checkpoint file managers in each release, newest first: 4.1 moved them.
_MANAGER_PACKAGES = (
    "org.apache.spark.sql.execution.streaming.checkpointing",
    "org.apache.spark.sql.execution.streaming",
)


@contextlib.contextmanager
def local_checkpoint_files(spark: Any, location: str) -> Iterator[None]:
    """Around the start of the streaming query whose checkpoint is ``location``: Spark's file-system-based
    checkpoint file manager where ``location`` is on the local file system of a classic session and the
    session does not choose one itself (see the module's doc)."""
    manager = _local_file_manager(spark, location)
    if manager is None:
        yield
        return
    spark.conf.set(CHECKPOINT_FILE_MANAGER_KEY, manager)
    try:
        yield
    finally:
        spark.conf.unset(CHECKPOINT_FILE_MANAGER_KEY)


def _local_file_manager(spark: Any, location: str) -> str | None:
    """The manager's class name for a query checkpointing at ``location``, or None to leave Spark's choice."""
    jvm = getattr(spark, "_jvm", None)
    if jvm is None or spark.conf.get(CHECKPOINT_FILE_MANAGER_KEY, None) is not None:
        return None  # Spark Connect (the server writes the checkpoint), or the session's own choice
    hadoop_conf = spark._jsc.hadoopConfiguration()
    try:
        scheme = jvm.org.apache.hadoop.fs.Path(location).getFileSystem(hadoop_conf).getScheme()
    except Exception:  # no file system for its scheme: the query's start says so
        return None
    if scheme != "file":
        return None
    name = manager_class(jvm, LOCAL_FILE_MANAGER)
    if name is None:
        log.info("checkpoint files are written as Spark does by default: no %s in this Spark", LOCAL_FILE_MANAGER)
    return name


def manager_class(jvm: Any, simple_name: str) -> str | None:
    """The full name of Spark's checkpoint file manager ``simple_name`` in the JVM ``jvm``, or None."""
    for package in _MANAGER_PACKAGES:
        name = f"{package}.{simple_name}"
        try:
            jvm.java.lang.Class.forName(name)
        except Exception:
            continue
        return name
    return None
