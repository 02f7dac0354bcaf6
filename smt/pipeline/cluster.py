"""Running on a Spark cluster: ship this project's code to executors in other processes.

With a ``local[...]`` master the executors are threads of the driver's JVM and
the Python workers inherit the driver's ``PYTHONPATH``.  On any other master
(``spark://``, ``yarn``, ``k8s://``) executors are other processes, often on
other machines, where this package may not be installed.  So, for those
masters, the runner zips the packages a pipeline runs on the executors
(``smt``, ``converters``, ``host_functions``, ``connectors``, with their data
files such as ``.wat``/``.wasm`` guests and ``.avsc`` schemas) and adds the
zip with ``SparkContext.addPyFile``: each executor fetches it and puts it on
its Python path before it runs a task.  A Spark Connect session gets the same
zip with ``SparkSession.addArtifacts(..., pyfile=True)``: the server puts it on
the Python path of that session's workers.

What is *not* shipped: third-party Python dependencies (pyarrow, wasmtime,
fastavro, orjson, pluggy, ...) and third-party plugin distributions.  Point
``spark.pyspark.python`` at an interpreter that has them on every worker (or
ship a packed virtualenv with ``spark.archives``), and list a plugin's own
zip in ``spark.submit.pyFiles``.  Wasm module bytes and converter/transform
settings travel inside the pickled batch processor, so they need nothing more.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import re
import sys
import tempfile
import zipfile
from typing import Any

__all__ = [
    "PROJECT_PACKAGES",
    "is_local_master",
    "project_code_zip",
    "ship_project_code",
    "spark_master_url",
    "use_executor_python",
    "use_local_worker_python",
]

#: The top-level packages a pipeline needs on executors.
PROJECT_PACKAGES = ("smt", "converters", "host_functions", "connectors")

_SKIPPED_DIRS = {"__pycache__", ".pytest_cache"}


#: The master URLs SparkContext accepts (its createTaskScheduler), with a scheme and something after it.
_MASTER_URLS = (
    re.compile(r"local(\[(\*|[1-9][0-9]*)(\s*,\s*[0-9]+)?\])?"),
    re.compile(r"local-cluster\[\s*[1-9][0-9]*\s*,\s*[1-9][0-9]*\s*,\s*[1-9][0-9]*\s*\]"),
    re.compile(r"yarn"),
    re.compile(r"(spark|k8s)://\S+"),
)


def spark_master_url(value: str) -> None:
    """A validator: a master URL Spark can start (``local[*]``, ``spark://host:7077``, ``yarn``, ``k8s://...``)."""
    if not any(pattern.fullmatch(value) for pattern in _MASTER_URLS):
        raise ValueError(
            f"not a Spark master URL: '{value}'; use local, local[N], local[*], local-cluster[N,C,M], "
            "spark://HOST:PORT, yarn or k8s://URL"
        )


def is_local_master(master: str) -> bool:
    """True for ``local``, ``local[N]``, ``local[*]`` and friends (executors in the driver's JVM)."""
    return master.strip().startswith("local")


def use_executor_python(conf: dict[str, str]) -> None:
    """Honour ``spark.pyspark.python`` in a session built in-process.

    spark-submit turns the setting into ``PYSPARK_PYTHON``; a SparkSession
    built by this process reads only the environment variable.
    """
    python = conf.get("spark.pyspark.python")
    if python:
        os.environ["PYSPARK_PYTHON"] = python


def ship_project_code(spark: Any) -> str:
    """Add the project's packages, zipped, to ``spark``'s executors; returns the zip's path.

    On a Spark Connect session, the zip goes to the server as a session artifact.
    """
    from smt.sessions import is_connect

    path = project_code_zip()
    if is_connect(spark):
        spark.addArtifacts(path, pyfile=True)
    else:
        spark.sparkContext.addPyFile(path)
    return path


def project_code_zip(directory: str | None = None) -> str:
    """A zip of :data:`PROJECT_PACKAGES` as imported here, named by a hash of its contents.

    The same code gives the same file name, so a driver that starts twice
    reuses the zip (and executors their fetched copy).
    """
    files = sorted(_package_files())
    digest = hashlib.sha256()
    for archive_name, source in files:
        digest.update(archive_name.encode())
        with open(source, "rb") as handle:
            digest.update(handle.read())
    directory = directory or os.path.join(tempfile.gettempdir(), "spark-smt-code")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"spark-smt-{digest.hexdigest()[:16]}.zip")
    if not os.path.exists(path):
        partial = f"{path}.{os.getpid()}.partial"
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            for archive_name, source in files:
                archive.write(source, archive_name)
        os.replace(partial, path)
    return path


def _package_files() -> list[tuple[str, str]]:
    files = []
    for package in PROJECT_PACKAGES:
        module = importlib.import_module(package)
        package_dir = os.path.dirname(os.path.abspath(module.__file__))
        base = os.path.dirname(package_dir)
        for folder, subfolders, names in os.walk(package_dir):
            subfolders[:] = sorted(d for d in subfolders if d not in _SKIPPED_DIRS and not d.startswith("."))
            for name in names:
                if name.endswith((".pyc", ".pyo")):
                    continue
                source = os.path.join(folder, name)
                files.append((os.path.relpath(source, base), source))
    return files


def use_local_worker_python(session: Any) -> None:
    """Run a local classic session's Python workers on the interpreter the user chose, else on this one.

    PySpark starts workers with ``PYSPARK_PYTHON`` or, unset, whatever
    ``python3`` is first on ``PATH``: with a virtualenv that was not
    activated (``.venv/bin/python app.py``), an interpreter without this
    project, whose workers fail with "No module named 'smt'".  The user's
    choice wins: ``spark.pyspark.python`` (as spark-submit does), then
    ``PYSPARK_PYTHON``.  Other masters' workers run elsewhere, where this
    interpreter's path means nothing.
    """
    context = session.sparkContext
    if not is_local_master(context.master):
        return
    chosen = context.getConf().get("spark.pyspark.python") or os.environ.get("PYSPARK_PYTHON")
    context.pythonExec = chosen or sys.executable
