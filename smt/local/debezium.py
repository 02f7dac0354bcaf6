"""A Kafka Connect standalone worker running Debezium's PostgreSQL connector, on the local broker.

The worker is Kafka Connect's own runtime at the broker's version (:data:`CONNECT_BUNDLE`) with
Debezium's connector added on its classpath (:data:`DEBEZIUM_POSTGRES_BUNDLE`), both from Maven
Central through :mod:`smt.maven`; it is what ``connect-standalone.sh`` of a Kafka distribution runs
with the connector in its ``plugin.path``.  Events are written with JsonConverter and their schemas
(Debezium's usual setup, what ``key.converter=json`` / ``value.converter=json`` read), source offsets
to a file in the worker's folder, so a restarted worker resumes where it stopped.

The database needs ``wal_level=logical`` (pgoutput, PostgreSQL's own logical decoding plugin) and a
user allowed to replicate; the connector creates its replication slot and publication.
"""

from __future__ import annotations

import dataclasses
import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

from smt import maven
from smt.local._kafka_setup import BrokerError, find_java
from smt.local.kafka import CONNECT_BUNDLE, LOG4J_VERSION

__all__ = ["DEBEZIUM_POSTGRES_BUNDLE", "DEBEZIUM_VERSION", "DebeziumError", "DebeziumWorker", "PostgresSource"]

DEBEZIUM_VERSION = "3.6.1.Final"

#: Debezium's PostgreSQL connector (its JDBC driver included) and the log4j2 binding the worker's
#: SLF4J logging needs; Kafka Connect's runtime comes from CONNECT_BUNDLE.
DEBEZIUM_POSTGRES_BUNDLE = maven.Bundle(
    f"debezium-connector-postgres-{DEBEZIUM_VERSION}",
    (
        maven.Artifact("io.debezium", "debezium-connector-postgres", DEBEZIUM_VERSION),
        maven.Artifact("org.apache.logging.log4j", "log4j-slf4j-impl", LOG4J_VERSION),
    ),
)

_MAIN = "org.apache.kafka.connect.cli.ConnectStandalone"
_JVM_OPTIONS = ("-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true")


class DebeziumError(BrokerError):
    """The worker could not start, or its connector failed; the message says why (and where its log is)."""


@dataclasses.dataclass(frozen=True)
class PostgresSource:
    """The database Debezium reads: where it is, who connects, which tables, the topics' prefix."""

    port: int
    tables: tuple[str, ...]
    topic_prefix: str = "shop"
    host: str = "127.0.0.1"
    database: str = "postgres"
    user: str = "postgres"
    password: str = ""

    def connector_properties(self, name: str) -> str:
        """The connector's settings: pgoutput, a slot and publication named after the connector, topics
        of one partition created by the worker (the local broker does not create topics on use)."""
        slot = re.sub(r"[^a-z0-9_]", "_", name.lower())
        return "\n".join([
            f"name={name}",
            "connector.class=io.debezium.connector.postgresql.PostgresConnector",
            "tasks.max=1",
            "plugin.name=pgoutput",
            f"slot.name={slot}",
            f"publication.name={slot}",
            "publication.autocreate.mode=filtered",
            f"database.hostname={self.host}",
            f"database.port={self.port}",
            f"database.user={self.user}",
            f"database.password={self.password}",
            f"database.dbname={self.database}",
            f"topic.prefix={self.topic_prefix}",
            f"table.include.list={','.join(self.tables)}",
            "topic.creation.default.replication.factor=1",
            "topic.creation.default.partitions=1",
            "",
        ])  # fmt: skip


def worker_classpath(resolve=maven.resolve) -> list[Path]:
    """Kafka Connect's jars at the broker's version, then the connector's jars that Connect lacks.

    Debezium 3.6.1 asks for a newer kafka-clients and connect-api; a worker loads its plugins on its
    own Connect classes, so ours (the broker's version) win, as in a Kafka distribution."""
    jars = resolve(CONNECT_BUNDLE)
    present = {_artifact_of(jar) for jar in jars}
    return jars + [jar for jar in resolve(DEBEZIUM_POSTGRES_BUNDLE) if _artifact_of(jar) not in present]


def _artifact_of(jar: Path) -> str:
    """``connect-api`` for ``connect-api-4.3.0.jar``: the name without its version."""
    return re.sub(r"-\d.*$", "", jar.stem)


class DebeziumWorker:
    """One standalone worker whose files (settings, offsets, log, pid) live in ``state_dir``."""

    def __init__(self, state_dir: Path | str) -> None:
        self.state_dir = Path(state_dir)
        self.pid_file = self.state_dir / "worker.pid"
        self.log_file = self.state_dir / "worker.log"
        self.offsets_file = self.state_dir / "offsets.dat"

    def start(self, bootstrap_servers: str, source: PostgresSource, name: str = "debezium-postgres") -> int:
        """Start the worker in the background (a session of its own) and return its pid.

        Returns at once; :meth:`wait_until_streaming` waits for the connector.  Raises
        :class:`DebeziumError` when one is running already or Java is missing."""
        self.state_dir.mkdir(parents=True, exist_ok=True)
        pid = self.pid()
        if pid is not None:
            raise DebeziumError(f"a Debezium worker is running already (pid {pid}, {self.state_dir})")
        worker = self.state_dir / "worker.properties"
        worker.write_text(self._worker_properties(bootstrap_servers), encoding="utf-8")
        connector = self.state_dir / "connector.properties"
        connector.write_text(source.connector_properties(name), encoding="utf-8")
        log4j = self.state_dir / "log4j2.properties"
        log4j.write_text(_LOG4J, encoding="utf-8")
        classpath = os.pathsep.join(str(jar) for jar in worker_classpath())
        command = [
            find_java(), *_JVM_OPTIONS, f"-Dlog4j2.configurationFile={log4j}", f"-Dsmt.log={self.log_file}",
            "-cp", classpath, _MAIN, str(worker), str(connector),
        ]  # fmt: skip
        with open(self.state_dir / "worker.out", "ab") as out:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.pid_file.write_text(str(process.pid))
        return process.pid

    def wait_until_streaming(self, timeout: float = 120.0) -> None:
        """Wait until the connector streams changes (its snapshot done); raises :class:`DebeziumError`
        when the worker ends or its connector fails first, quoting the log."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            log = self.log_file.read_text(errors="replace") if self.log_file.exists() else ""
            if "Starting streaming" in log or "Processing messages" in log:
                return
            error = _first_error(log)
            if self.pid() is None or (error is not None and "task is being killed" in log.lower()):
                raise DebeziumError(
                    f"Debezium's connector failed: {error or 'the worker ended'} (log: {self.log_file})"
                )
            time.sleep(0.2)
        raise DebeziumError(
            f"Debezium's connector did not start streaming within {timeout:.0f} s (log: {self.log_file})"
        )

    def pid(self) -> int | None:
        """The running worker's pid, or None."""
        try:
            pid = int(self.pid_file.read_text())
        except (FileNotFoundError, ValueError):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        if _is_zombie(pid):
            return None
        return pid

    def stop(self, timeout: float = 30.0) -> bool:
        """Stop the worker (SIGTERM: it flushes its offsets; SIGKILL after ``timeout``); False if none ran."""
        pid = self.pid()
        if pid is None:
            return False
        os.killpg(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while self.pid() is not None and time.monotonic() < deadline:
            time.sleep(0.1)
        if self.pid() is not None:
            os.killpg(pid, signal.SIGKILL)
        self.pid_file.unlink(missing_ok=True)
        return True

    def _worker_properties(self, bootstrap_servers: str) -> str:
        return "\n".join([
            "# Generated by spark-smt: a standalone Kafka Connect worker on the local broker.",
            f"bootstrap.servers={bootstrap_servers}",
            "key.converter=org.apache.kafka.connect.json.JsonConverter",
            "value.converter=org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable=true",
            "value.converter.schemas.enable=true",
            f"offset.storage.file.filename={self.offsets_file}",
            "offset.flush.interval.ms=1000",
            f"listeners=http://127.0.0.1:{_free_port()}",
            "plugin.discovery=only_scan",
            "",
        ])  # fmt: skip


_ERROR_LINE = re.compile(r"^\[[^\]]*\] ERROR (.*?)(?: \([\w.$]+\))?$")
_EXCEPTION_LINE = re.compile(r"^[\w.$]+(?:Exception|Error): .*$")


def _first_error(log: str) -> str | None:
    """The log's first ERROR message, with the exception under it (what the user must fix), or None."""
    lines = log.splitlines()
    for index, line in enumerate(lines):
        found = _ERROR_LINE.match(line)
        if found is not None:
            below = lines[index + 1] if index + 1 < len(lines) else ""
            return found.group(1) + (f": {below}" if _EXCEPTION_LINE.match(below) else "")
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _is_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except (FileNotFoundError, IndexError):
        return False


_LOG4J = """status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = ${sys:smt.log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
logger.kafka.name = org.apache.kafka
logger.kafka.level = WARN
logger.runtime.name = org.apache.kafka.connect.runtime
logger.runtime.level = INFO
"""
