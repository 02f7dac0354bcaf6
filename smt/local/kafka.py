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

By default clients connect over one PLAINTEXT listener.  A
:class:`BrokerSecurity` opens secured listeners instead (``SASL_PLAINTEXT``
with SASL/PLAIN users, ``SSL`` or ``SASL_SSL`` with a throwaway CA made by
``keytool``), each on its own port; the controller listener stays PLAINTEXT
on loopback.  :meth:`BrokerStatus.client_security` gives the settings a client
needs for one of them.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import time
import uuid
from pathlib import Path

from smt.errors import SmtError
from smt.local import maven
from smt.local._kafka_security import (
    BROKER_USER,
    BrokerSecurity,
    ClientSecurity,
    TlsFiles,
    ensure_tls_files,
    listener_properties,
)
from smt.local._probe import fetch_metadata

__all__ = [
    "KAFKA_VERSION", "BROKER_BUNDLE", "BrokerError", "BrokerSecurity", "BrokerStatus", "ClientSecurity",
    "LocalKafka", "TlsFiles",
]  # fmt: skip

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
    #: Listener protocol -> ``host:port``; the first one is ``bootstrap_servers``.
    listeners: dict[str, str] = dataclasses.field(default_factory=dict)
    #: The CA and stores of the TLS listeners, if any.
    tls: TlsFiles | None = None

    @property
    def log_file(self) -> Path:
        return self.state_dir / "logs" / "server.log"

    def client_security(
        self, protocol: str | None = None, username: str | None = None, password: str | None = None
    ) -> ClientSecurity:
        """What a client needs for the ``protocol`` listener (default: the first) as this user.

        Raises ``KeyError`` naming the listeners if the broker has no such listener.
        """
        protocol = protocol or next(iter(self.listeners), "PLAINTEXT")
        if self.listeners and protocol not in self.listeners:
            raise KeyError(f"the broker has no {protocol} listener, only {', '.join(self.listeners)}")
        return ClientSecurity(protocol, username, password, self.tls if protocol.endswith("SSL") else None)


class LocalKafka:
    """The broker whose state lives in ``state_dir``.

    ``security`` chooses its client listeners; without it a start keeps the
    listeners of the broker's last run (PLAINTEXT for a new state folder).
    """

    def __init__(
        self, state_dir: Path | str | None = None, cache: Path | None = None, security: BrokerSecurity | None = None
    ) -> None:
        self.cache = cache or maven.cache_dir()
        self.state_dir = Path(state_dir) if state_dir else self.cache / "local" / "kafka"
        self.security = security
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

    @property
    def _tls_dir(self) -> Path:
        return self.state_dir / "tls"

    # --- lifecycle -------------------------------------------------------------

    def status(self) -> BrokerStatus:
        """Whether the broker of this state folder runs, and where."""
        state = self._read_state()
        pid = state.get("pid")
        if pid and self._is_our_broker(pid):
            return self._running_status(pid, state)
        return BrokerStatus(False, self.state_dir)

    def _running_status(self, pid: int, state: dict) -> BrokerStatus:
        ports = state.get("listener_ports") or {"PLAINTEXT": state.get("broker_port")}
        tls = state.get("tls")
        return BrokerStatus(
            True, self.state_dir, pid, state.get("bootstrap_servers"),
            listeners={protocol: f"{_HOST}:{port}" for protocol, port in ports.items()},
            tls=TlsFiles(Path(tls["directory"]), tls["password"]) if tls else None,
        )  # fmt: skip

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
        earlier = self._read_state()
        security = self.security or BrokerSecurity.from_json(earlier.get("security"))
        java = _find_java()
        classpath = os.pathsep.join(str(p) for p in maven.resolve(BROKER_BUNDLE, self.cache))
        tls = ensure_tls_files(self._tls_dir, java, _HOST) if security.tls else None
        ports = self._reusable_ports(security) if not fresh else None
        state = {
            "broker_password": earlier.get("broker_password") or secrets.token_hex(16),
            "security": security.to_json(),
            "tls": {"directory": str(tls.directory), "password": tls.password} if tls else None,
        }
        if ports is None:
            ports = ({protocol: _free_port() for protocol in security.listeners}, _free_port())
            self._write_config(security, *ports, state["broker_password"], tls)
            self._format(java, classpath)
        elif any(earlier.get(key) != state[key] for key in ("security", "tls")):
            # Same listeners, other users or stores: keep the data, rewrite the config.
            self._write_config(security, *ports, state["broker_password"], tls)
        listener_ports, controller_port = ports
        first = security.listeners[0]
        state.update(broker_port=listener_ports[first], controller_port=controller_port,
                     bootstrap_servers=f"{_HOST}:{listener_ports[first]}", version=KAFKA_VERSION,
                     listener_ports=listener_ports)  # fmt: skip
        pid = self._spawn(java, classpath)
        self._write_state(pid=pid, **state)
        probe = ClientSecurity(first, BROKER_USER, state["broker_password"], tls if first.endswith("SSL") else None)
        self._wait_until_ready(pid, listener_ports[first], probe, timeout)
        return self._running_status(pid, state)

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

    def _reusable_ports(self, security: BrokerSecurity) -> tuple[dict[str, int], int] | None:
        """The ports of the last run, if its data is kept and they are free for the same listeners."""
        state = self._read_state()
        listener_ports = state.get("listener_ports") or {"PLAINTEXT": state.get("broker_port")}
        controller_port = state.get("controller_port")
        formatted = (self._data_dir / "meta.properties").is_file()
        if not formatted or not controller_port or list(listener_ports) != list(security.listeners):
            return None
        ports = [*listener_ports.values(), controller_port]
        if all(ports) and all(_port_is_free(p) for p in ports):
            return listener_ports, controller_port
        return None

    def _write_config(
        self, security: BrokerSecurity, listener_ports: dict[str, int], controller_port: int,
        broker_password: str, tls: TlsFiles | None,
    ) -> None:  # fmt: skip
        self.state_dir.mkdir(parents=True, exist_ok=True)
        listeners = listener_properties(security, listener_ports, controller_port, _HOST, broker_password, tls)
        self._server_properties.write_text(_server_properties(self._data_dir, controller_port, listeners))
        # It may hold SASL passwords: for this user's eyes only.
        self._server_properties.chmod(0o600)

    def _format(self, java: str, classpath: str) -> None:
        shutil.rmtree(self._data_dir, ignore_errors=True)
        self._logs_dir.mkdir(parents=True, exist_ok=True)
        self._data_dir.mkdir(parents=True)
        (self.state_dir / "log4j2.properties").write_text(_log4j_properties(self._logs_dir))
        cluster_id = _new_cluster_id()
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

    def _wait_until_ready(self, pid: int, port: int, probe: ClientSecurity, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last_error: Exception | None = None
        ssl_context = ssl.create_default_context(cafile=str(probe.tls.ca_pem)) if probe.tls else None
        sasl = (probe.username or "", probe.password or "") if probe.protocol.startswith("SASL_") else None
        while time.monotonic() < deadline:
            if not self._is_our_broker(pid):
                raise BrokerError(
                    f"the Kafka broker (pid {pid}) exited during start-up; "
                    f"log {self._logs_dir}:\n{self._log_tail()}"
                )
            try:
                if fetch_metadata(_HOST, port, timeout=2.0, ssl_context=ssl_context, sasl_plain=sasl).brokers:
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
        partial.touch(mode=0o600)  # it may hold SASL and keystore passwords
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


def _server_properties(data_dir: Path, controller_port: int, listeners: str) -> str:
    return f"""# Generated by `smt local kafka start`: one KRaft node, loopback only.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@{_HOST}:{controller_port}
{listeners.rstrip()}
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


def _new_cluster_id() -> str:
    """A random Kafka cluster id: 16 bytes, URL-safe base64 without padding.

    Like Kafka's own ``Uuid.randomUuid``, never one that starts with ``-``:
    ``kafka-storage format --cluster-id -abc`` reads it as an option.
    """
    while True:
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cluster_id.startswith("-"):
            return cluster_id
