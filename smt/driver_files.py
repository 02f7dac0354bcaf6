"""Directory operations on the driver through Hadoop's FileSystem API.

Spark resolves ``file:``, ``hdfs:``, ``s3a:`` and friends through Hadoop; so
do we, so a path that Spark can write is a path we can commit in.  Renames are
atomic on local and HDFS file systems (not on object stores).

A Spark Connect session has no JVM to ask: :func:`driver_files` then gives
the same operations through pyarrow (:mod:`smt._arrow_files`).

Both the pipeline (its checkpoint's fingerprint) and the file connector
(streaming commits) need them, so they live in the core.
"""

from __future__ import annotations

from typing import Any

from smt._local_file import create_local_file
from smt.sessions import is_connect

__all__ = ["HadoopFiles", "create_local_file", "driver_files", "local_files"]


def driver_files(spark: Any) -> Any:
    """File operations for the driver of ``spark``: Hadoop's on a classic session, pyarrow's on Spark Connect."""
    if is_connect(spark):
        from smt._arrow_files import ArrowFiles

        return ArrowFiles()
    return HadoopFiles(spark)


def local_files() -> Any:
    """The same operations without a session (pyarrow's), for checks made before Spark starts."""
    from smt._arrow_files import ArrowFiles

    return ArrowFiles()


class HadoopFiles:
    """The Hadoop FileSystem of the SparkSession, for paths given as strings."""

    def __init__(self, spark: Any) -> None:
        self._jvm = spark.sparkContext._jvm
        self._conf = spark.sparkContext._jsc.hadoopConfiguration()

    def _path(self, path: str):
        return self._jvm.org.apache.hadoop.fs.Path(path)

    def _fs(self, path: str):
        return self._path(path).getFileSystem(self._conf)

    def exists(self, path: str) -> bool:
        return bool(self._fs(path).exists(self._path(path)))

    def mkdirs(self, path: str) -> None:
        self._fs(path).mkdirs(self._path(path))

    def delete(self, path: str) -> None:
        """Delete a file or a whole directory; no error when it is not there."""
        self._fs(path).delete(self._path(path), True)

    def list_names(self, directory: str) -> list[str]:
        """Names of the entries of ``directory`` (empty when it does not exist)."""
        fs = self._fs(directory)
        path = self._path(directory)
        if not fs.exists(path):
            return []
        return sorted(status.getPath().getName() for status in fs.listStatus(path))

    def data_files(self, directory: str) -> list[str]:
        """Data file names in ``directory``: not hidden (``.``) or metadata (``_``), as Spark reads."""
        return [name for name in self.list_names(directory) if not name.startswith(("_", "."))]

    def rename(self, source: str, target: str) -> None:
        if not self._fs(source).rename(self._path(source), self._path(target)):
            raise OSError(f"cannot rename '{source}' to '{target}'")

    def touch(self, path: str) -> None:
        self._fs(path).create(self._path(path), True).close()

    def create_new(self, path: str, text: str) -> bool:
        """Create ``path`` holding ``text`` unless it exists: False when it did.

        Atomic where the file system makes it so: a local disk (``O_EXCL``) and
        HDFS; on object stores two writers may both see True.
        """
        fs = self._fs(path)
        uri = fs.makeQualified(self._path(path)).toUri()
        if uri.getScheme() == "file":
            return create_local_file(str(uri.getPath()), text)
        try:
            out = fs.create(self._path(path), False)
        except Exception as exc:  # py4j's error wrapping Hadoop's FileAlreadyExistsException
            if "FileAlreadyExistsException" in str(exc):
                return False
            raise
        try:
            out.write(bytearray(text.encode("utf-8")))
        finally:
            out.close()
        return True

    def read_text(self, path: str) -> str:
        stream = self._fs(path).open(self._path(path))
        try:
            return str(self._jvm.org.apache.commons.io.IOUtils.toString(stream, "UTF-8"))
        finally:
            stream.close()

    def write_text(self, path: str, text: str) -> None:
        """Write ``text`` to ``path`` atomically (a temporary file renamed into place)."""
        temporary = f"{path}.tmp"
        out = self._fs(path).create(self._path(temporary), True)
        try:
            out.write(bytearray(text.encode("utf-8")))
        finally:
            out.close()
        self.delete(path)
        self.rename(temporary, path)
