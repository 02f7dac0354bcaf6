"""A PostgreSQL server for the JDBC tests, started from the machine's ``initdb``/``pg_ctl``.

One server per test session, on 127.0.0.1 and a free port, its data in a
temporary folder, trust authentication for user ``smt``.  PostgreSQL refuses
to run as root, so under root the server runs as the ``postgres`` user
(``runuser``).  Missing binaries fail the tests that need them, saying what
to install: the JDBC tests must not pass silently on a machine without
PostgreSQL.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

USER = "smt"
DATABASE = "postgres"


def _binary(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        pytest.fail(
            f"PostgreSQL's '{name}' is not installed, so the JDBC tests cannot start a server "
            "(install it: apt-get install postgresql)"
        )
    return found


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    """A running server: its JDBC URL, and ``query`` through ``psql``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = _free_port()
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        data = folder / "data"
        if self.as_user:
            shutil.chown(folder, "postgres")
        self._run(_binary("initdb"), "-D", str(data), "-U", USER, "--auth=trust", "-E", "UTF8")
        options = f"-p {self.port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c timezone=UTC"
        self._run(_binary("pg_ctl"), "-D", str(data), "-o", options, "-l", str(folder / "server.log"), "-w", "start")
        self.data = data

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:postgresql://127.0.0.1:{self.port}/{DATABASE}"

    def query(self, sql: str) -> list[list[str]]:
        """Rows of ``sql`` as lists of strings (psql's unaligned output)."""
        psql = shutil.which("psql") or _binary("psql")
        done = subprocess.run(
            [psql, "-h", "127.0.0.1", "-p", str(self.port), "-U", USER, "-d", DATABASE, "-At", "-F", "|", "-c", sql],
            capture_output=True, text=True, check=True, timeout=60,
        )  # fmt: skip
        return [line.split("|") for line in done.stdout.splitlines()]

    def stop(self) -> None:
        self._run(_binary("pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")

    def _run(self, *command: str) -> None:
        done = subprocess.run([*self.as_user, *command], capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stdout}{done.stderr}")


@pytest.fixture(scope="session")
def postgres():
    folder = Path(tempfile.mkdtemp(prefix="smt-postgres-"))
    server = PostgresServer(folder)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
