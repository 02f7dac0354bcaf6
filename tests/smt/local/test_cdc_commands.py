"""`smt local postgres start|stop|status` runs a real server; `smt local debezium` refuses what it cannot use."""

from __future__ import annotations

import os
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


as_root = pytest.mark.skipif(os.geteuid() != 0, reason="under root only: the server then runs as the postgres user")


@as_root
def test_postgres_without_state_dir_starts_under_root_in_a_folder_the_postgres_user_reaches(capsys, monkeypatch):
    from smt.local import postgres

    assert postgres.LocalPostgres().state_dir == postgres.ROOT_STATE_DIR  # not root's cache, closed to postgres
    assert not str(postgres.ROOT_STATE_DIR).startswith(os.path.expanduser("~"))
    folder = Path(tempfile.mkdtemp(prefix="smt-local-pg-"))
    folder.chmod(0o755)  # as /var/tmp is
    monkeypatch.setattr(postgres, "ROOT_STATE_DIR", folder / "spark-smt" / "local" / "postgres")
    try:
        code, lines, err = run(capsys, "postgres", "start", "--port", "0")
        assert code == EXIT_OK, err
        assert lines[-1] == postgres.LocalPostgres().jdbc_url()
        code, lines, _ = run(capsys, "postgres", "status")
        assert code == EXIT_OK and f"state {folder / 'spark-smt' / 'local' / 'postgres'}" in lines[0]
    finally:
        code, lines, _ = run(capsys, "postgres", "stop")
        shutil.rmtree(folder, ignore_errors=True)
    assert (code, lines) == (EXIT_OK, ["PostgreSQL stopped"])


@as_root
def test_postgres_start_under_root_names_a_state_dir_the_postgres_user_cannot_reach(capsys):
    folder = Path(tempfile.mkdtemp(prefix="smt-local-pg-"))
    folder.chmod(0o755)
    closed = folder / "closed"
    closed.mkdir(mode=0o700)  # as /root is
    try:
        code, _, err = run(capsys, "postgres", "--state-dir", str(closed / "pg"), "start", "--port", "0")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert code != EXIT_OK
    assert f"the state folder {closed / 'pg'} is out of reach of the postgres user" in err
    assert f"({closed} is closed to it)" in err
