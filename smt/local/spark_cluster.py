"""A Spark standalone cluster on loopback: one master and N workers, from the PySpark install.

For trying a pipeline (and testing) against executors that are real separate
processes, as on a cluster: ``spark.master=spark://127.0.0.1:<port>``.  The
daemons run ``$SPARK_HOME/bin/spark-class`` with ``SPARK_HOME`` the pyspark
package folder, each in its own process group, logging into ``work_dir``.

The daemons start without the caller's ``PYTHONPATH``: like executors on a
real cluster, they only see the code the driver ships
(:mod:`smt.pipeline.cluster`), not a checkout that happens to be on the path.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

from smt.errors import SmtError

__all__ = ["LocalSparkCluster", "SparkClusterError", "spark_home"]

HOST = "127.0.0.1"


class SparkClusterError(SmtError):
    """The local cluster did not come up; the message names the daemon and its log."""


def spark_home() -> Path:
    """The pyspark package folder, which holds ``bin/spark-class`` and the jars."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


class LocalSparkCluster:
    """A master and ``workers`` workers (``cores`` cores, ``memory`` each) on 127.0.0.1.

    Use as a context manager, or call :meth:`start` and :meth:`stop`.
    """

    def __init__(self, work_dir: str | os.PathLike, workers: int = 2, cores: int = 1, memory: str = "1g") -> None:
        self.work_dir = Path(work_dir)
        self.workers = workers
        self.cores = cores
        self.memory = memory
        self.port = free_port()
        self.web_port = free_port()
        self._processes: list[tuple[str, subprocess.Popen, Path]] = []

    @property
    def master_url(self) -> str:
        return f"spark://{HOST}:{self.port}"

    def worker_dir(self, index: int) -> Path:
        """Where worker ``index`` puts its executors' folders (``app-*/<executor id>/``)."""
        return self.work_dir / f"worker-{index}"

    def start(self, timeout_s: float = 180) -> str:
        """Start the daemons and wait until every worker is registered; returns the master URL.

        Raises :class:`SparkClusterError` naming the daemon (and its log) that
        exited or did not register in time; the daemons started are stopped.
        """
        self.work_dir.mkdir(parents=True, exist_ok=True)
        try:
            self._launch(
                "master",
                "org.apache.spark.deploy.master.Master",
                "--host",
                HOST,
                "--port",
                str(self.port),
                "--webui-port",
                str(self.web_port),
            )
            self._wait(lambda status: status is not None, timeout_s, "the master did not answer")
            for index in range(self.workers):
                self.worker_dir(index).mkdir(parents=True, exist_ok=True)
                self._launch(
                    f"worker-{index}",
                    "org.apache.spark.deploy.worker.Worker",
                    "--host",
                    HOST,
                    "--webui-port",
                    str(free_port()),
                    "--cores",
                    str(self.cores),
                    "--memory",
                    self.memory,
                    "--work-dir",
                    str(self.worker_dir(index)),
                    self.master_url,
                )
            self._wait(
                lambda status: status is not None and self.alive_workers(status) >= self.workers,
                timeout_s,
                f"{self.workers} workers did not register",
            )
        except BaseException:
            self.stop()
            raise
        return self.master_url

    def status(self) -> dict[str, Any] | None:
        """The master's JSON status page, or None when it does not answer (yet)."""
        try:
            with urllib.request.urlopen(f"http://{HOST}:{self.web_port}/json/", timeout=5) as response:
                return json.load(response)
        except (OSError, ValueError):
            return None

    @staticmethod
    def alive_workers(status: dict[str, Any]) -> int:
        return sum(1 for worker in status.get("workers", []) if worker.get("state") == "ALIVE")

    def stop(self) -> None:
        """Stop the daemons this object started (their whole process groups)."""
        for _, process, _ in reversed(self._processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for _, process, _ in reversed(self._processes):
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(30)
        self._processes.clear()

    def __enter__(self) -> "LocalSparkCluster":
        self.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    def _launch(self, name: str, main_class: str, *args: str) -> None:
        home = spark_home()
        log = self.work_dir / f"{name}.log"
        env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        env.update(SPARK_HOME=str(home), SPARK_LOCAL_IP=HOST, SPARK_LOG_DIR=str(self.work_dir), SPARK_NO_DAEMONIZE="1")
        with open(log, "wb") as out:
            process = subprocess.Popen(
                [str(home / "bin" / "spark-class"), main_class, *args],
                env=env,
                cwd=self.work_dir,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self._processes.append((name, process, log))

    def _wait(self, ready, timeout_s: float, what: str) -> None:
        deadline = time.monotonic() + timeout_s
        while not ready(self.status()):
            for name, process, log in self._processes:
                if process.poll() is not None:
                    raise SparkClusterError(f"Spark {name} exited with code {process.returncode}; see {log}")
            if time.monotonic() > deadline:
                raise SparkClusterError(f"{what} within {timeout_s:.0f}s; see the logs in {self.work_dir}")
            time.sleep(0.5)
