"""``smt local postgres ...`` and ``smt local debezium ...``: a database and its change stream on the local broker.

``start`` and ``status`` print what the next step needs as their last line: the database's JDBC
URL, the topics Debezium writes.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from smt.commands.output import EXIT_NOT_RUNNING, EXIT_OK
from smt.errors import SmtError

__all__ = ["add_commands"]


def add_commands(services: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    _add_postgres(services, common)
    _add_debezium(services, common)


def _add_postgres(services: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    postgres = services.add_parser(
        "postgres", parents=[common], help="a PostgreSQL server on 127.0.0.1 with logical decoding, for Debezium",
        description="A PostgreSQL server (the machine's initdb/pg_ctl) on 127.0.0.1, user postgres without a "
        "password, wal_level=logical: what Debezium's PostgreSQL connector reads.",
    )  # fmt: skip
    postgres.add_argument("--state-dir", type=Path, default=None,
                          help="where the server keeps its data and log (default: <cache>/local/postgres; under "
                               "root, where the server runs as postgres: /var/tmp/spark-smt/local/postgres)")  # fmt: skip
    actions = postgres.add_subparsers(dest="action", metavar="ACTION", required=True)
    start = actions.add_parser("start", parents=[common], help="start the server; prints its JDBC URL last")
    start.add_argument(
        "--port",
        type=int,
        default=None,
        help="its port (default: 5432 when free, else any free port; 0: any free port)",
    )
    start.add_argument("--fresh", action="store_true", help="discard the data of earlier runs")
    start.set_defaults(handler=_postgres_start)
    actions.add_parser("stop", parents=[common], help="stop the server").set_defaults(handler=_postgres_stop)
    actions.add_parser("status", parents=[common], help="is the server running, and where (exit 4: not running)"
                       ).set_defaults(handler=_postgres_status)  # fmt: skip


def _add_debezium(services: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    debezium = services.add_parser(
        "debezium", parents=[common], help="Debezium's PostgreSQL connector in a Kafka Connect worker, to the broker",
        description="Debezium's PostgreSQL connector (pgoutput) in a standalone Kafka Connect worker, writing a "
        "table's changes to the local broker as JsonConverter's JSON with schemas, one topic per table: "
        "<prefix>.<schema>.<table>. Its offsets stay in the state folder: a restart resumes.",
    )  # fmt: skip
    debezium.add_argument("--state-dir", type=Path, default=None,
                          help="where the worker keeps settings, offsets and log (default: <cache>/local/debezium)")  # fmt: skip
    actions = debezium.add_subparsers(dest="action", metavar="ACTION", required=True)
    start = actions.add_parser("start", parents=[common],
                               help="start the worker, wait until it streams; prints the topics last")  # fmt: skip
    start.add_argument("--database", required=True, metavar="JDBC_URL",
                       help="the database, jdbc:postgresql://HOST:PORT/NAME (what `smt local postgres start` prints)")  # fmt: skip
    start.add_argument("--table", action="append", dest="tables", required=True, metavar="SCHEMA.TABLE",
                       help="a table to capture, such as public.customers (repeatable)")  # fmt: skip
    start.add_argument("--user", default="postgres", help="the database user, allowed to replicate (default postgres)")
    start.add_argument("--password", default="", help="its password (default: none)")
    start.add_argument("--topic-prefix", default="shop", help="the topics' prefix (default shop)")
    start.add_argument("--bootstrap-servers", default=None,
                       help="the Kafka cluster (default: the broker of `smt local kafka start`)")  # fmt: skip
    start.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for streaming (default 120)")
    start.set_defaults(handler=_debezium_start)
    actions.add_parser("stop", parents=[common], help="stop the worker (its offsets are kept)"
                       ).set_defaults(handler=_debezium_stop)  # fmt: skip
    actions.add_parser("status", parents=[common], help="is the worker running (exit 4: not running)"
                       ).set_defaults(handler=_debezium_status)  # fmt: skip


def _postgres(args: argparse.Namespace):
    from smt.local.postgres import LocalPostgres

    return LocalPostgres(args.state_dir)


def _postgres_start(args: argparse.Namespace) -> int:
    server = _postgres(args)
    server.start(port=args.port, fresh=args.fresh)
    print(f"PostgreSQL running (user postgres, no password); state {server.state_dir}; log {server.log_file}")
    print(f"psql -h 127.0.0.1 -p {server.port} -U postgres")
    print(server.jdbc_url())
    return EXIT_OK


def _postgres_stop(args: argparse.Namespace) -> int:
    server = _postgres(args)
    print("PostgreSQL stopped" if server.stop() else f"no PostgreSQL running for {server.state_dir}")
    return EXIT_OK


def _postgres_status(args: argparse.Namespace) -> int:
    server = _postgres(args)
    if not server.running():
        print(f"PostgreSQL not running (state {server.state_dir})")
        return EXIT_NOT_RUNNING
    print(f"PostgreSQL running; state {server.state_dir}; log {server.log_file}")
    print(server.jdbc_url())
    return EXIT_OK


def _worker(args: argparse.Namespace):
    from smt import maven
    from smt.local.debezium import DebeziumWorker

    return DebeziumWorker(args.state_dir or maven.cache_dir() / "local" / "debezium")


def _debezium_start(args: argparse.Namespace) -> int:
    from smt.local.debezium import DEBEZIUM_VERSION, PostgresSource

    host, port, database = _jdbc_parts(args.database)
    source = PostgresSource(port=port, tables=tuple(args.tables), topic_prefix=args.topic_prefix, host=host,
                            database=database, user=args.user, password=args.password)  # fmt: skip
    worker = _worker(args)
    worker.start(args.bootstrap_servers or _local_broker(), source)
    worker.wait_until_streaming(args.timeout)
    print(
        f"Debezium {DEBEZIUM_VERSION} streaming (pid {worker.pid()}); state {worker.state_dir}; log {worker.log_file}"
    )
    print(",".join(f"{args.topic_prefix}.{table}" for table in args.tables))
    return EXIT_OK


def _debezium_stop(args: argparse.Namespace) -> int:
    worker = _worker(args)
    print("Debezium worker stopped" if worker.stop() else f"no Debezium worker running for {worker.state_dir}")
    return EXIT_OK


def _debezium_status(args: argparse.Namespace) -> int:
    worker = _worker(args)
    pid = worker.pid()
    if pid is None:
        print(f"Debezium worker not running (state {worker.state_dir})")
        return EXIT_NOT_RUNNING
    print(f"Debezium worker running (pid {pid}); state {worker.state_dir}; log {worker.log_file}")
    return EXIT_OK


def _jdbc_parts(url: str) -> tuple[str, int, str]:
    """``("127.0.0.1", 5432, "postgres")`` for ``jdbc:postgresql://127.0.0.1:5432/postgres``."""
    found = re.fullmatch(r"jdbc:postgresql://([^:/]+)(?::(\d+))?/([^?/]+)", url.strip())
    if found is None:
        raise SmtError(f"--database: expected jdbc:postgresql://HOST:PORT/DATABASE, got '{url}'")
    return found.group(1), int(found.group(2) or 5432), found.group(3)


def _local_broker() -> str:
    from smt.local.kafka import LocalKafka

    status = LocalKafka().status()
    if not status.running:
        raise SmtError("no Kafka broker: start one with `smt local kafka start`, or pass --bootstrap-servers")
    return status.bootstrap_servers
