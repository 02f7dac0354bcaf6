"""A real, single-node Apache Kafka broker for development and tests.

:class:`LocalKafka` runs Kafka in KRaft mode (one process is both broker and
controller) on free loopback ports.  The broker's jars come from Maven
Central through :mod:`smt.local.maven`; everything it writes (configuration,
data, logs, a state file with its pid and ports) lives in one state folder,
by default ``<cache>/local/kafka``.  ``start`` returns once the broker answers
a Metadata request; ``stop`` shuts it down cleanly (SIGTERM, then SIGKILL).
Topics are not auto-created, so a missing topic is an error, as it should be,
and records are kept whatever their age (no time-based retention), so events
with old timestamps stay readable.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from pathlib import Path

from smt.errors import SmtError
from smt.local import maven
from smt.local._probe import fetch_metadata

__all__ = ["KAFKA_VERSION", "BROKER_BUNDLE", "BrokerError", "BrokerStatus", "LocalKafka"]

KAFKA_VERSION = "4.1.1"
LOG4J_VERSION = "2.24.3"

#: The broker and its runtime dependencies, plus the log4j2 binding its
#: SLF4J logging needs (the Kafka distribution ships it in libs/).
BROKER_BUNDLE = maven.Bundle(
    f"kafka-broker-{KAFKA_VERSION}",
    (
        maven.Artifact("org.apache.kafka", "kafka_2.13", KAFKA_VERSION),
        maven.Artifact("org.apache.logging.log4j", "log4j-slf4j-impl", LOG4J_VERSION),
    ),
)

_HOST = "127.0.0.1"
_SERVER_MAIN = "kafka.Kafka"
_STORAGE_MAIN = "kafka.tools.StorageTool"
_JVM_OPTIONS = ("-Xms128m", "-Xmx512m", "-XX:+UseG1GC", "-Djava.awt.headless=true")


class BrokerError(SmtError):
    """The local broker could not be started or stopped; the message says why and where."""


@dataclasses.dataclass(frozen=True)
class BrokerStatus:
    running: bool
    state_dir: Path
    pid: int | None = None
    bootstrap_servers: str | None = None
    #: True when ``start`` found the broker already running.
    already_running: bool = False

    @property
    def log_file(self) -> Path:
        return self.state_dir / "logs" / "server.log"


class LocalKafka:
    """The broker whose state lives in ``state_dir``."""

    def __init__(self, state_dir: Path | str | None = None, cache: Path | None = None) -> None:
        self.cache = cache or maven.cache_dir()
        self.state_dir = Path(state_dir) if state_dir else self.cache / "local" / "kafka"
        self._process: subprocess.Popen | None = None

    # --- paths ---------------------------------------------------------------

    @property
    def _state_file(self) -> Path:
        return self.state_dir / "broker.json"

    @property
    def _server_properties(self) -> Path:
        return self.state_dir / "server.properties"

    @property
    def _data_dir(self) -> Path:
        return self.state_dir / "data"

    @property
    def _logs_dir(self) -> Path:
        return self.state_dir / "logs"

    # --- lifecycle -------------------------------------------------------------

    def status(self) -> BrokerStatus:
        """Whether the broker of this state folder runs, and where."""
        state = self._read_state()
        pid = state.get("pid")
        if pid and self._is_our_broker(pid):
            return BrokerStatus(True, self.state_dir, pid, state.get("bootstrap_servers"))
        return BrokerStatus(False, self.state_dir)

    def start(self, timeout: float = 120.0, fresh: bool = False) -> BrokerStatus:
        """Start the broker (a no-op if it already runs) and wait until it serves.

        Keeps the data of an earlier run unless ``fresh`` or its ports are
        taken.  Raises :class:`BrokerError` (with the end of the broker log)
        when Java is missing, formatting fails, or the broker exits or does not
        answer within ``timeout`` seconds; a broker that did not come up is
        stopped.  Raises :class:`smt.local.maven.MavenError` when its jars
        cannot be fetched.
        """
        current = self.status()
        if current.running:
            return dataclasses.replace(current, already_running=True)
        java = _find_java()
        classpath = os.pathsep.join(str(p) for p in maven.resolve(BROKER_BUNDLE, self.cache))
        ports = self._reusable_ports() if not fresh else None
        if ports is None:
            ports = (_free_port(), _free_port())
            self._format(java, classpath, *ports)
        bootstrap = f"{_HOST}:{ports[0]}"
        pid = self._spawn(java, classpath)
        self._write_state(pid=pid, broker_port=ports[0], controller_port=ports[1],
                          bootstrap_servers=bootstrap, version=KAFKA_VERSION)  # fmt: skip
        self._wait_until_ready(pid, ports[0], timeout)
        return BrokerStatus(True, self.state_dir, pid, bootstrap)

    def stop(self, timeout: float = 30.0) -> BrokerStatus:
        """Stop the broker; returns its status from before (``running`` False if none ran)."""
        current = self.status()
        if current.running and current.pid:
            self._terminate(current.pid, timeout)
        state = self._read_state()
        state.pop("pid", None)
        if self._state_file.exists():
            self._write_state(**state)
        return current

    # --- start-up steps --------------------------------------------------------

    def _reusable_ports(self) -> tuple[int, int] | None:
        state = self._read_state()
        ports = (state.get("broker_port"), state.get("controller_port"))
        formatted = (self._data_dir / "meta.properties").is_file()
        if formatted and all(ports) and all(_port_is_free(p) for p in ports):
            return ports  # type: ignore[return-value]
        return None

    def _format(self, java: str, classpath: str, broker_port: int, controller_port: int) -> None:
        shutil.rmtree(self._data_dir, ignore_errors=True)
        self._logs_dir.mkdir(parents=True, exist_ok=True)
        self._data_dir.mkdir(parents=True)
        self._server_properties.write_text(_server_properties(self._data_dir, broker_port, controller_port))
        (self.state_dir / "log4j2.properties").write_text(_log4j_properties(self._logs_dir))
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        command = [java, *self._jvm_args(classpath), _STORAGE_MAIN, "format",
                   "--cluster-id", cluster_id, "--config", str(self._server_properties)]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise BrokerError(
                f"formatting Kafka storage in {self._data_dir} failed (exit {done.returncode}):\n"
                + (done.stdout + done.stderr).strip()[-2000:]
            )

    def _jvm_args(self, classpath: str) -> list[str]:
        log_config = self.state_dir / "log4j2.properties"
        return [*_JVM_OPTIONS, f"-Dlog4j2.configurationFile={log_config}", "-cp", classpath]

    def _spawn(self, java: str, classpath: str) -> int:
        self._logs_dir.mkdir(parents=True, exist_ok=True)
        command = [java, *self._jvm_args(classpath), _SERVER_MAIN, str(self._server_properties)]
        with open(self._logs_dir / "broker.out", "ab") as out:
            # A session of its own: the broker outlives `smt local kafka start`.
            self._process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                cwd=self.state_dir, start_new_session=True,
            )  # fmt: skip
        return self._process.pid

    def _wait_until_ready(self, pid: int, port: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last_error: Exception | None = None
        while time.monotonic() < deadline:
            if not self._is_our_broker(pid):
                raise BrokerError(
                    f"the Kafka broker (pid {pid}) exited during start-up; "
                    f"log {self._logs_dir}:\n{self._log_tail()}"
                )
            try:
                if fetch_metadata(_HOST, port, timeout=2.0).brokers:
                    return
            except Exception as exc:  # not listening yet, or still starting
                last_error = exc
            time.sleep(0.25)
        self._terminate(pid, 10.0)
        raise BrokerError(
            f"the Kafka broker on {_HOST}:{port} did not become ready within {timeout:.0f} s "
            f"(last probe: {last_error}); it was stopped. Log {self._logs_dir}:\n{self._log_tail()}"
        )

    # --- process handling ------------------------------------------------------

    def _is_our_broker(self, pid: int) -> bool:
        """True if ``pid`` is a live broker started with this state folder's config."""
        if self._process is not None and self._process.pid == pid:
            # Our own child: its /proc entry can read empty just after exec.
            return self._process.poll() is None
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return False
        # A zombie has an empty command line; a reused pid has another one.
        return _SERVER_MAIN.encode() in cmdline and str(self._server_properties).encode() in cmdline

    def _terminate(self, pid: int, timeout: float) -> None:
        """SIGTERM (Kafka's controlled shutdown), then SIGKILL after ``timeout`` seconds."""
        for signum, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 10.0)):
            _signal(pid, signum)
            deadline = time.monotonic() + wait
            while self._is_our_broker(pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            if not self._is_our_broker(pid):
                break
        if self._process is not None and self._process.pid == pid:
            self._process.wait(timeout=10)  # reap our child
            self._process = None

    def _log_tail(self, lines: int = 20) -> str:
        """The broker's last words: from its last ERROR on, else the end of its output."""
        for name in ("server.log", "broker.out"):
            path = self._logs_dir / name
            if not path.is_file():
                continue
            text = path.read_text(errors="replace").splitlines()
            errors = [i for i, line in enumerate(text) if " ERROR " in line or " FATAL " in line]
            if errors:
                return "\n".join(text[errors[-1] :][:lines])
        out = self._logs_dir / "broker.out"
        if out.is_file():
            return "\n".join(out.read_text(errors="replace").splitlines()[-lines:]) or "(no output)"
        return "(no log written)"

    # --- state file ------------------------------------------------------------

    def _read_state(self) -> dict:
        try:
            return json.loads(self._state_file.read_text())
        except (OSError, ValueError):
            return {}

    def _write_state(self, **state: object) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        partial = self._state_file.with_suffix(".partial")
        partial.write_text(json.dumps(state, indent=2) + "\n")
        os.replace(partial, self._state_file)


def _find_java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    candidate = Path(java_home) / "bin" / "java" if java_home else None
    if candidate is not None and candidate.is_file():
        return str(candidate)
    found = shutil.which("java")
    if found is None:
        raise BrokerError(
            "cannot start Kafka: no 'java' on PATH and JAVA_HOME is not set "
            "(install a JDK 17 or newer)"
        )
    return found


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((_HOST, 0))
        return sock.getsockname()[1]


def _port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((_HOST, port))
        except OSError:
            return False
        return True


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _server_properties(data_dir: Path, broker_port: int, controller_port: int) -> str:
    return f"""# Generated by `smt local kafka start`: one KRaft node, loopback only.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@{_HOST}:{controller_port}
listeners=PLAINTEXT://{_HOST}:{broker_port},CONTROLLER://{_HOST}:{controller_port}
advertised.listeners=PLAINTEXT://{_HOST}:{broker_port}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs={data_dir}
num.partitions=1
auto.create.topics.enable=false
# Keep records whatever their timestamps: test events are often dated in the past.
log.retention.ms=-1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
"""


def _log4j_properties(logs_dir: Path) -> str:
    return f"""# Generated by `smt local kafka start`.
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = {logs_dir / "server.log"}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
"""
