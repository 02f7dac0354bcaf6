"""Directory operations on the driver through pyarrow's file systems, for Spark Connect sessions.

A Spark Connect client has no JVM, so it cannot use Hadoop's FileSystem
(:class:`smt.driver_files.HadoopFiles`); pyarrow opens the same local
paths and ``file://``, ``hdfs://`` (with libhdfs), ``s3://`` and ``gs://``
URIs.  The paths must be visible where this runs: the client, and for a
streaming sink the server's ``foreachBatch`` process.
"""

from __future__ import annotations

import os

import pyarrow.fs as pafs

from smt._local_file import create_local_file


class ArrowFiles:
    """The same operations as :class:`smt.driver_files.HadoopFiles`, through pyarrow."""

    def _resolve(self, path: str) -> tuple[pafs.FileSystem, str]:
        return pafs.FileSystem.from_uri(path if "://" in path else f"file://{_absolute(path)}")

    def _info(self, path: str) -> pafs.FileInfo:
        fs, inner = self._resolve(path)
        return fs.get_file_info(inner)

    def exists(self, path: str) -> bool:
        return self._info(path).type != pafs.FileType.NotFound

    def mkdirs(self, path: str) -> None:
        fs, inner = self._resolve(path)
        fs.create_dir(inner, recursive=True)

    def delete(self, path: str) -> None:
        """Delete a file or a whole directory; no error when it is not there."""
        fs, inner = self._resolve(path)
        kind = fs.get_file_info(inner).type
        if kind == pafs.FileType.Directory:
            fs.delete_dir(inner)
        elif kind != pafs.FileType.NotFound:
            fs.delete_file(inner)

    def list_names(self, directory: str) -> list[str]:
        """Names of the entries of ``directory`` (empty when it does not exist)."""
        fs, inner = self._resolve(directory)
        if fs.get_file_info(inner).type != pafs.FileType.Directory:
            return []
        return sorted(info.base_name for info in fs.get_file_info(pafs.FileSelector(inner)))

    def data_files(self, directory: str) -> list[str]:
        """Data file names in ``directory``: not hidden (``.``) or metadata (``_``), as Spark reads."""
        return [name for name in self.list_names(directory) if not name.startswith(("_", "."))]

    def rename(self, source: str, target: str) -> None:
        fs, inner_source = self._resolve(source)
        _, inner_target = self._resolve(target)
        try:
            fs.move(inner_source, inner_target)
        except OSError as exc:
            raise OSError(f"cannot rename '{source}' to '{target}': {exc}") from exc

    def touch(self, path: str) -> None:
        fs, inner = self._resolve(path)
        _make_parent(fs, inner)
        with fs.open_output_stream(inner):
            pass

    def create_new(self, path: str, text: str) -> bool:
        """Create ``path`` holding ``text`` unless it exists: False when it did (atomic on a local disk only)."""
        fs, inner = self._resolve(path)
        if isinstance(fs, pafs.LocalFileSystem):
            return create_local_file(inner, text)
        if fs.get_file_info(inner).type != pafs.FileType.NotFound:
            return False
        _make_parent(fs, inner)
        with fs.open_output_stream(inner) as stream:
            stream.write(text.encode("utf-8"))
        return True

    def read_text(self, path: str) -> str:
        fs, inner = self._resolve(path)
        with fs.open_input_stream(inner) as stream:
            return stream.read().decode("utf-8")

    def write_text(self, path: str, text: str) -> None:
        """Write ``text`` to ``path`` atomically (a temporary file renamed into place)."""
        fs, inner = self._resolve(path)
        _make_parent(fs, inner)
        with fs.open_output_stream(f"{inner}.tmp") as stream:
            stream.write(text.encode("utf-8"))
        fs.move(f"{inner}.tmp", inner)


def _absolute(path: str) -> str:
    return os.path.abspath(path)


def _make_parent(fs: pafs.FileSystem, inner: str) -> None:
    # Hadoop's create() makes missing parent folders; pyarrow's streams do not.
    parent = inner.rsplit("/", 1)[0]
    if parent:
        fs.create_dir(parent, recursive=True)
