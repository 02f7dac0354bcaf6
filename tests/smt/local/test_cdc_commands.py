"""`smt local postgres start|stop|status` runs a real server; `smt local debezium` refuses what it cannot use."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from smt import cli
from smt.commands.output import EXIT_NOT_RUNNING, EXIT_OK


def run(capsys, *argv: str) -> tuple[int, list[str], str]:
    code = cli.main(["local", *argv])
    captured = capsys.readouterr()
    return code, captured.out.strip().splitlines(), captured.err


@pytest.fixture
def state():
    """A folder the server may use when it runs as the postgres user (under root)."""
    folder = Path(tempfile.mkdtemp(prefix="smt-local-pg-"))
    folder.chmod(0o755)
    yield str(folder / "postgres")
    shutil.rmtree(folder, ignore_errors=True)


def test_postgres_start_status_stop(capsys, state):
    from smt.local.postgres import LocalPostgres

    try:
        code, lines, err = run(capsys, "postgres", "--state-dir", state, "start", "--port", "0")
        assert code == EXIT_OK, err
        assert lines[-1].startswith("jdbc:postgresql://127.0.0.1:") and lines[-1].endswith("/postgres")
        server = LocalPostgres(state)
        assert lines[-1] == server.jdbc_url()
        assert server.query("show wal_level") == [["logical"]]  # what Debezium's pgoutput needs
        code, lines, _ = run(capsys, "postgres", "--state-dir", state, "status")
        assert (code, lines[-1]) == (EXIT_OK, server.jdbc_url())
    finally:
        code, lines, _ = run(capsys, "postgres", "--state-dir", state, "stop")
    assert (code, lines) == (EXIT_OK, ["PostgreSQL stopped"])
    code, lines, _ = run(capsys, "postgres", "--state-dir", state, "status")
    assert (code, lines) == (EXIT_NOT_RUNNING, [f"PostgreSQL not running (state {state})"])
    code, lines, _ = run(capsys, "postgres", "--state-dir", state, "stop")
    assert (code, lines) == (EXIT_OK, [f"no PostgreSQL running for {state}"])


def test_debezium_start_names_a_database_url_it_cannot_read(capsys, tmp_path):
    code, _, err = run(capsys, "debezium", "--state-dir", str(tmp_path), "start", "--database", "postgres://x/db",
                       "--table", "public.customers", "--bootstrap-servers", "127.0.0.1:1")  # fmt: skip
    assert code != EXIT_OK
    assert "--database: expected jdbc:postgresql://HOST:PORT/DATABASE, got 'postgres://x/db'" in err


def test_debezium_status_and_stop_of_no_worker(capsys, tmp_path):
    code, lines, _ = run(capsys, "debezium", "--state-dir", str(tmp_path), "status")
    assert (code, lines) == (EXIT_NOT_RUNNING, [f"Debezium worker not running (state {tmp_path})"])
    code, lines, _ = run(capsys, "debezium", "--state-dir", str(tmp_path), "stop")
    assert (code, lines) == (EXIT_OK, [f"no Debezium worker running for {tmp_path}"])
