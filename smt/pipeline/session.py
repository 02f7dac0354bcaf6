"""The SparkSession a pipeline runs on: classic (``spark.master``) or Spark Connect (``spark.remote``).

``spark.remote=sc://host:port`` in the pipeline file (or the ``SPARK_REMOTE``
environment variable, as PySpark reads it) runs the pipeline on a Spark
Connect server.  A Connect client can only set a session's runtime settings
(``spark.sql.*``): the connectors' jars go to the server with
``SparkSession.addArtifacts``, so does a zip of this project's packages
(:mod:`smt.pipeline.cluster`), and any other ``spark.*`` key of the file is
the server's to set when it starts (each one is named in a warning).  The
server's Python workers need the project's dependencies (pyarrow, wasmtime,
orjson, fastavro, ...).

A session on a ``local`` master is fitted to the machine: Delta replays a
table's log (to know its files, at each write) in
``spark.databricks.delta.snapshotPartitions`` tasks, 50 by default, a number
meant for a cluster.  On a local master those 50 tiny tasks took about a second
of every Delta write on a 2-core machine: half of a 10,000-change upsert.  So a
local session replays in as many tasks as it has cores
(:data:`LOCAL_DELTA_SNAPSHOT_PARTITIONS`), unless the file sets the key.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any

from smt.pipeline.cluster import is_local_master, ship_project_code, use_executor_python, use_local_worker_python
from smt.pipeline.quick_start import quick_start_conf
from smt.sessions import connect_session

__all__ = ["REMOTE_KEY", "build_spark_session", "remote_url"]

log = logging.getLogger(__name__)

REMOTE_KEY = "spark.remote"

#: The Delta setting a local session sizes to its cores, unless the file sets it (see the module doc).
LOCAL_DELTA_SNAPSHOT_PARTITIONS = "spark.databricks.delta.snapshotPartitions"

#: Keys the Connect client handles itself.
_CLIENT_KEYS = frozenset({REMOTE_KEY, "spark.jars"})


def remote_url(conf: dict[str, str]) -> str | None:
    """The Spark Connect URL the pipeline asks for (``spark.remote``, else ``SPARK_REMOTE``), or None."""
    return conf.get(REMOTE_KEY) or os.environ.get("SPARK_REMOTE") or None


def build_spark_session(spec: Any, jvm_log: str | os.PathLike | None = None):
    """A SparkSession configured from the pipeline (``spark.*`` keys, connector needs).

    With ``jvm_log``, a JVM this call starts writes its output (Spark's logs,
    Python workers' stderr) to that file instead of the terminal; a Spark
    Connect session starts no JVM here.  A small local batch run starts its
    JVM with the quick JIT only (:mod:`smt.pipeline.quick_start`).
    """
    conf = spec.spark_conf()
    remote = remote_url(conf)
    if remote:
        return _connect_session(spec, conf, remote)
    return _classic_session(spec, quick_start_conf(spec, conf), jvm_log)


def _classic_session(spec: Any, conf: dict[str, str], jvm_log: str | os.PathLike | None):
    from pyspark.sql import SparkSession

    use_executor_python(conf)
    if conf["spark.master"].startswith("local"):
        # Local workers must run the same interpreter (and packages) as the driver.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    jars = [jar for jar in conf.get("spark.jars", "").split(",") if jar]
    log.info("starting Spark: master %s, %d jar%s, %d settings", conf["spark.master"], len(jars),
             "" if len(jars) == 1 else "s", len(conf))  # fmt: skip
    started = time.perf_counter()
    if jvm_log is not None:
        from smt.pipeline.jvm_output import start_jvm_logging_to

        start_jvm_logging_to(jvm_log, {**conf, "spark.app.name": spec.config["name"]})
    master = conf.pop("spark.master")
    builder = SparkSession.builder.appName(spec.config["name"]).master(master)
    for key, value in conf.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    log.info("Spark %s ready in %.1f s", session.version, time.perf_counter() - started)
    session.sparkContext.setLogLevel(conf.get("spark.log.level", "ERROR"))
    if not is_local_master(master):
        # Executors in other processes may not have this package installed.
        ship_project_code(session)
    else:
        use_local_worker_python(session)  # also a session this process had already started
        if LOCAL_DELTA_SNAPSHOT_PARTITIONS not in conf:
            session.conf.set(LOCAL_DELTA_SNAPSHOT_PARTITIONS, str(session.sparkContext.defaultParallelism))
    return session


def _connect_session(spec: Any, conf: dict[str, str], remote: str):
    session = connect_session(remote)
    server_keys = []
    for key, value in conf.items():
        if key.startswith("spark.sql."):
            try:
                session.conf.set(key, value)
            except Exception:  # a static spark.sql.* setting
                server_keys.append(key)
        elif key not in _CLIENT_KEYS:
            server_keys.append(key)
    user_keys = sorted(key for key in server_keys if key in spec.props)
    if user_keys:
        log.warning(
            "Spark Connect (%s): %s can only be set on the server, when it starts; ignored here",
            remote,
            ", ".join(user_keys),
        )
    jars = [jar for jar in conf.get("spark.jars", "").split(",") if jar]
    remote_jars = [jar for jar in jars if not os.path.isfile(jar)]
    if remote_jars:
        log.warning(
            "Spark Connect (%s): spark.jars %s are not local files to upload; the server needs them itself",
            remote,
            ", ".join(remote_jars),
        )
    local_jars = _jars_to_upload(session, [jar for jar in jars if os.path.isfile(jar)])
    if local_jars:
        log.info(
            "Spark Connect (%s): uploading %s for this session; a server started with them (--jars) "
            "serves any number of sessions",
            remote,
            ", ".join(os.path.basename(jar) for jar in local_jars),
        )
        session.addArtifacts(*local_jars)
    ship_project_code(session)
    return session


def _jars_to_upload(session: Any, jars: list[str]) -> list[str]:
    """The jars the server does not already have on its classpath (its ``spark.jars``, by file name).

    Uploaded jars load in a class loader of the session's own; Spark's Kafka
    connector, loaded that way, registers its settings once per server JVM,
    so a second session that uploads it again fails ("Config entry
    spark.kafka.producer.cache.timeout already registered").  A server
    started with the jars needs none uploaded.
    """
    try:
        on_server = session.conf.get("spark.jars", "") or ""
    except Exception:  # noqa: BLE001 - a server that does not say: upload
        on_server = ""
    present = {os.path.basename(jar.strip()) for jar in on_server.split(",") if jar.strip()}
    return [jar for jar in jars if os.path.basename(jar) not in present]
