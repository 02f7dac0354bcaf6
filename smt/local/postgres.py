"""A local PostgreSQL server for trying change data capture: ``smt local postgres start|stop|status``.

Started from the machine's ``initdb``/``pg_ctl`` (``apt-get install postgresql``), on 127.0.0.1,
its data in a state folder, trust authentication, and logical decoding on (``wal_level=logical``,
replication slots and WAL senders), which Debezium's pgoutput plugin needs.  PostgreSQL refuses to
run as root, so under root the server runs as the ``postgres`` user (``runuser``), and its state
folder, by default, is :data:`ROOT_STATE_DIR` (root's home, where the cache lives, is closed to
that user).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
from pathlib import Path

from smt import maven
from smt.errors import SmtError

__all__ = ["DEFAULT_PORT", "LOGICAL_DECODING", "ROOT_STATE_DIR", "LocalPostgres", "PostgresError"]

DEFAULT_PORT = 5432
#: What Debezium's pgoutput plugin needs of the server: logical decoding, slots and WAL senders.
LOGICAL_DECODING = {"wal_level": "logical", "max_replication_slots": "4", "max_wal_senders": "4"}
#: The default state folder under root: one the ``postgres`` user can reach (kept across reboots).
ROOT_STATE_DIR = Path("/var/tmp/spark-smt/local/postgres")


class PostgresError(SmtError):
    """The server could not be set up, started or stopped; the message names the command and its output."""


class LocalPostgres:
    """The server whose data, socket and log live in ``state_dir``.

    Its default is ``<cache>/local/postgres``, under root :data:`ROOT_STATE_DIR`."""

    def __init__(self, state_dir: Path | str | None = None, user: str = "postgres",
                 settings: dict[str, str] | None = None) -> None:  # fmt: skip
        self._as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if state_dir:
            self.state_dir = Path(state_dir)
        else:
            self.state_dir = ROOT_STATE_DIR if self._as_user else maven.cache_dir() / "local" / "postgres"
        self.user = user
        self.settings = {**LOGICAL_DECODING, **(settings or {})}
        self.data = self.state_dir / "data"
        self.log_file = self.state_dir / "server.log"

    @property
    def port(self) -> int | None:
        """The port of the running server, else None."""
        pid_file = self.data / "postmaster.pid"
        try:
            return int(pid_file.read_text().splitlines()[3])  # line 4 of postmaster.pid: the port
        except (FileNotFoundError, IndexError, ValueError):
            return None

    def jdbc_url(self, database: str = "postgres") -> str:
        return f"jdbc:postgresql://127.0.0.1:{self.port}/{database}"

    def running(self) -> bool:
        if not self.data.is_dir():
            return False
        done = subprocess.run([*self._as_user, _binary("pg_ctl"), "-D", str(self.data), "status"],
                              capture_output=True, text=True, check=False, timeout=60)  # fmt: skip
        return done.returncode == 0

    def start(self, port: int | None = None, fresh: bool = False) -> int:
        """Start the server (creating its data folder first) and return its port; a running one is kept.

        ``port`` None: 5432 when free, else any free port; 0: any free port.  ``fresh`` discards earlier data."""
        if self.running():
            if not fresh:
                return self.port
            self.stop()
        if fresh and self.data.exists():
            shutil.rmtree(self.data)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        if self._as_user:
            shutil.chown(self.state_dir, "postgres")
            self._check_reachable()
        if not self.data.is_dir():
            self._run(_binary("initdb"), "-D", str(self.data), "-U", self.user, "--auth=trust", "-E", "UTF8")
        if port is None:
            port = DEFAULT_PORT if _port_is_free(DEFAULT_PORT) else 0
        chosen = port or _free_port()
        options = f"-p {chosen} -k {self.state_dir} -c listen_addresses=127.0.0.1 -c fsync=off -c timezone=UTC"
        options += "".join(f" -c {name}={value}" for name, value in self.settings.items())
        self._run(_binary("pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.log_file), "-w", "start")
        return chosen

    def stop(self) -> bool:
        """Stop the server at once (``-m fast``); False when none was running."""
        if not self.running():
            return False
        self._run(_binary("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
        return True

    def query(self, sql: str, database: str = "postgres") -> list[list[str]]:
        """Rows of ``sql`` as lists of strings (psql's unaligned output); raises CalledProcessError on an error."""
        done = subprocess.run(
            [_binary("psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user, "-d", database,
             "-At", "-F", "|", "-v", "ON_ERROR_STOP=1", "-c", sql],
            capture_output=True, text=True, check=True, timeout=60,
        )  # fmt: skip
        return [line.split("|") for line in done.stdout.splitlines()]

    def _check_reachable(self) -> None:
        """Under root: refuse a state folder the ``postgres`` user cannot reach (a parent closed to it)."""
        done = subprocess.run([*self._as_user, "test", "-w", str(self.state_dir)], capture_output=True, timeout=60,
                              check=False)  # fmt: skip
        if done.returncode != 0:
            closed = next((str(folder) for folder in reversed(self.state_dir.parents)
                           if not os.stat(folder).st_mode & 0o001), str(self.state_dir))  # fmt: skip
            raise PostgresError(
                f"the state folder {self.state_dir} is out of reach of the postgres user the server runs as under "
                f"root ({closed} is closed to it); give a --state-dir it can reach (or omit it: {ROOT_STATE_DIR})"
            )

    def _run(self, *command: str) -> None:
        done = subprocess.run([*self._as_user, *command], capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise PostgresError(f"{' '.join(command)} failed ({done.returncode}): {done.stdout}{done.stderr}")


def _binary(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        raise PostgresError(f"PostgreSQL's '{name}' is not installed (install it: apt-get install postgresql)")
    return found


def _port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
