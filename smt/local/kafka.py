"""A real, single-node Apache Kafka broker for development and tests.

:class:`LocalKafka` runs Kafka in KRaft mode (one process is both broker and
controller) on loopback: the client listener on 9092 when free (see
:func:`smt.local._kafka_setup.choose_ports`).  The broker's jars come from Maven
Central through :mod:`smt.maven`; everything it writes (configuration,
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
import ssl
import subprocess
import time
import uuid
from pathlib import Path

from smt import maven
from smt.local._kafka_security import (
    BROKER_USER,
    BrokerSecurity,
    ClientSecurity,
    TlsFiles,
    ensure_tls_files,
    listener_properties,
)
from smt.local._kafka_setup import (
    DEFAULT_PORT,
    HOST,
    BrokerError,
    choose_ports,
    find_java,
    log4j_properties,
    server_properties,
)  # fmt: skip
from smt.local._probe import fetch_metadata

__all__ = [
    "KAFKA_VERSION", "BROKER_BUNDLE", "DEFAULT_PORT", "CONNECT_BUNDLE", "BrokerError", "BrokerSecurity", "BrokerStatus", "ClientSecurity",
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

#: Kafka Connect's own classes at the broker's version: the transforms, predicates and
#: converters spark-smt reproduces, run by the test suite's differential oracle.
CONNECT_BUNDLE = maven.Bundle(
    f"kafka-connect-{KAFKA_VERSION}",
    tuple(
        maven.Artifact("org.apache.kafka", name, KAFKA_VERSION)
        for name in ("connect-api", "connect-transforms", "connect-json", "connect-runtime")
    ),
)

_SERVER_MAIN = "kafka.Kafka"
_STORAGE_MAIN = "kafka.tools.StorageTool"
_JVM_OPTIONS = ("-Xms128m", "-Xmx512m", "-XX:+UseG1GC", "-Djava.awt.headless=true")


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
    ``port`` is the first listener's: None prefers :data:`DEFAULT_PORT` (9092)
    and falls back to the last run's port or any free one; 0 takes any free
    port (the last run's when it can); another number exactly that port.
    """

    def __init__(
        self, state_dir: Path | str | None = None, cache: Path | None = None, security: BrokerSecurity | None = None,
        port: int | None = None,
    ) -> None:  # fmt: skip
        self.cache = cache or maven.cache_dir()
        self.state_dir = Path(state_dir) if state_dir else self.cache / "local" / "kafka"
        self.security = security
        self.port = port
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

    def admin_client(self) -> tuple[str, ClientSecurity]:
        """Where and how the broker's own tools connect: its first listener, as the broker's own user.

        Raises :class:`BrokerError` when the broker is not running.
        """
        status = self.status()
        if not status.running:
            raise BrokerError(
                f"no Kafka broker is running for {self.state_dir}; start one with `smt local kafka start`"
            )
        password = self._read_state().get("broker_password")
        return status.bootstrap_servers, status.client_security(None, BROKER_USER, password)

    def topics(self) -> dict[str, int]:
        """Topic name -> partitions, internal topics included (one Metadata request, no JVM)."""
        servers, client = self.admin_client()
        return _metadata(int(servers.rsplit(":", 1)[1]), client, timeout=5.0).topics

    def _running_status(self, pid: int, state: dict) -> BrokerStatus:
        ports = state.get("listener_ports") or {"PLAINTEXT": state.get("broker_port")}
        tls = state.get("tls")
        return BrokerStatus(
            True, self.state_dir, pid, state.get("bootstrap_servers"),
            listeners={protocol: f"{HOST}:{port}" for protocol, port in ports.items()},
            tls=TlsFiles(Path(tls["directory"]), tls["password"]) if tls else None,
        )  # fmt: skip

    def start(self, timeout: float = 120.0, fresh: bool = False) -> BrokerStatus:
        """Start the broker (a no-op if it already runs) and wait until it serves.

        Keeps the data of an earlier run unless ``fresh`` or its controller
        port is taken.  Raises :class:`BrokerError` (with the end of the broker
        log) when Java is missing, the port asked for is taken, formatting
        fails, or the broker exits or does not answer within ``timeout``
        seconds; a broker that did not come up is stopped.  Raises
        :class:`smt.maven.MavenError` when its jars cannot be fetched.
        """
        current = self.status()
        if current.running:
            return dataclasses.replace(current, already_running=True)
        earlier = self._read_state()
        security = self.security or BrokerSecurity.from_json(earlier.get("security"))
        java = find_java()
        classpath = os.pathsep.join(str(p) for p in maven.resolve(BROKER_BUNDLE, self.cache))
        tls = ensure_tls_files(self._tls_dir, java, HOST) if security.tls else None
        formatted = (self._data_dir / "meta.properties").is_file()
        ports = choose_ports(security.listeners, {} if fresh else earlier, formatted and not fresh, self.port)
        first = security.listeners[0]
        state = {
            "broker_password": earlier.get("broker_password") or secrets.token_hex(16),
            "security": security.to_json(),
            "tls": {"directory": str(tls.directory), "password": tls.password} if tls else None,
            "broker_port": ports.listeners[first], "controller_port": ports.controller,
            "bootstrap_servers": f"{HOST}:{ports.listeners[first]}", "version": KAFKA_VERSION,
            "listener_ports": ports.listeners,
        }  # fmt: skip
        if ports.needs_format or any(earlier.get(k) != state[k] for k in ("security", "tls", "listener_ports")):
            self._write_config(security, ports.listeners, ports.controller, state["broker_password"], tls)
        if ports.needs_format:
            self._format(java, classpath)
        pid = self._spawn(java, classpath)
        self._write_state(pid=pid, **state)
        probe = ClientSecurity(first, BROKER_USER, state["broker_password"], tls if first.endswith("SSL") else None)
        self._wait_until_ready(pid, ports.listeners[first], probe, timeout)
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

    def _write_config(
        self, security: BrokerSecurity, listener_ports: dict[str, int], controller_port: int,
        broker_password: str, tls: TlsFiles | None,
    ) -> None:  # fmt: skip
        self.state_dir.mkdir(parents=True, exist_ok=True)
        listeners = listener_properties(security, listener_ports, controller_port, HOST, broker_password, tls)
        self._server_properties.write_text(server_properties(self._data_dir, controller_port, listeners))
        # It may hold SASL passwords: for this user's eyes only.
        self._server_properties.chmod(0o600)

    def _format(self, java: str, classpath: str) -> None:
        shutil.rmtree(self._data_dir, ignore_errors=True)
        self._logs_dir.mkdir(parents=True, exist_ok=True)
        self._data_dir.mkdir(parents=True)
        (self.state_dir / "log4j2.properties").write_text(log4j_properties(self._logs_dir))
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
        while time.monotonic() < deadline:
            if not self._is_our_broker(pid):
                raise BrokerError(
                    f"the Kafka broker (pid {pid}) exited during start-up; log {self._logs_dir}:\n{self._log_tail()}"
                )
            try:
                if _metadata(port, probe, timeout=2.0).brokers:
                    return
            except Exception as exc:  # not listening yet, or still starting
                last_error = exc
            time.sleep(0.25)
        self._terminate(pid, 10.0)
        raise BrokerError(
            f"the Kafka broker on {HOST}:{port} did not become ready within {timeout:.0f} s "
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


def _metadata(port: int, client: ClientSecurity, timeout: float):
    """The local broker's Metadata, asked on ``port`` as ``client``."""
    ssl_context = ssl.create_default_context(cafile=str(client.tls.ca_pem)) if client.tls else None
    sasl = (client.username or "", client.password or "") if client.protocol.startswith("SASL_") else None
    return fetch_metadata(HOST, port, timeout=timeout, ssl_context=ssl_context, sasl_plain=sasl)


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _new_cluster_id() -> str:
    """A random Kafka cluster id: 16 bytes, URL-safe base64 without padding.

    Like Kafka's own ``Uuid.randomUuid``, never one that starts with ``-``:
    ``kafka-storage format --cluster-id -abc`` reads it as an option.
    """
    while True:
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cluster_id.startswith("-"):
            return cluster_id
