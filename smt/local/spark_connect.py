"""A Spark Connect server on loopback, from the PySpark install (``local[N]`` inside).

For trying a pipeline (and testing) over Spark Connect: ``spark.remote=sc://127.0.0.1:<port>``.
The server is ``spark-submit --class ...SparkConnectServer`` run from the
pyspark package folder, bound to 127.0.0.1 on a free port, logging into
``work_dir``; its Python workers run ``python`` (default: this interpreter).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Mapping

from smt.errors import SmtError
from smt.local.spark_cluster import HOST, free_port, spark_home

__all__ = ["LocalConnectServer", "SparkConnectServerError"]

_SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"


class SparkConnectServerError(SmtError):
    """The server did not come up; the message names its log."""


class LocalConnectServer:
    """One Spark Connect server process; use as a context manager, or :meth:`start` and :meth:`stop`."""

    def __init__(
        self,
        work_dir: str | os.PathLike,
        master: str = "local[2]",
        conf: Mapping[str, str] | None = None,
        python: str | None = None,
    ) -> None:
        self.work_dir = Path(work_dir)
        self.master = master
        self.conf = dict(conf or {})
        self.python = python or sys.executable
        self.port = free_port()
        self._process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"sc://{HOST}:{self.port}"

    @property
    def log_file(self) -> Path:
        return self.work_dir / "spark-connect.log"

    def start(self, timeout_s: float = 180) -> str:
        """Start the server and wait until it accepts connections; returns its ``sc://`` URL.

        Raises :class:`SparkConnectServerError` naming the log when it exits or
        does not listen in time (and stops it).
        """
        self.work_dir.mkdir(parents=True, exist_ok=True)
        home = spark_home()
        conf = {
            "spark.connect.grpc.binding.address": HOST,
            "spark.connect.grpc.binding.port": str(self.port),
            "spark.driver.host": HOST,
            "spark.driver.bindAddress": HOST,
            "spark.ui.enabled": "false",
            "spark.sql.session.timeZone": "UTC",
            **self.conf,
        }
        command = [
            str(home / "bin" / "spark-submit"),
            "--class",
            _SERVER_CLASS,
            "--master",
            self.master,
            "--name",
            "smt-local-connect",
        ]
        for key, value in conf.items():
            command += ["--conf", f"{key}={value}"]
        command.append("spark-internal")
        env = {key: value for key, value in os.environ.items() if key not in ("SPARK_REMOTE", "PYTHONPATH")}
        env.update(
            SPARK_HOME=str(home), SPARK_LOCAL_IP=HOST, PYSPARK_PYTHON=self.python, PYSPARK_DRIVER_PYTHON=self.python
        )
        with open(self.log_file, "wb") as log:
            self._process = subprocess.Popen(
                command, env=env, cwd=self.work_dir, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        try:
            self._wait(timeout_s)
        except BaseException:
            self.stop()
            raise
        return self.url

    def _wait(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not _listening(self.port):
            if self._process.poll() is not None:
                raise SparkConnectServerError(
                    f"the Spark Connect server exited with code {self._process.returncode}; see {self.log_file}"
                )
            if time.monotonic() > deadline:
                raise SparkConnectServerError(
                    f"the Spark Connect server did not listen on {HOST}:{self.port} within {timeout_s:.0f}s; "
                    f"see {self.log_file}"
                )
            time.sleep(0.5)

    def stop(self) -> None:
        """Stop the server (its whole process group)."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(30)

    def __enter__(self) -> "LocalConnectServer":
        self.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex((HOST, port)) == 0
