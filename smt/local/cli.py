"""``smt local ...``: local services for development and tests.

``smt local kafka start|stop|status`` manages the single-node broker of
:mod:`smt.local.kafka`; ``start`` and ``status`` print the bootstrap servers
(``host:port``) as their last line, so scripts can take ``| tail -n1``.
``start --listener SASL_PLAINTEXT --user alice:secret`` opens secured
listeners instead of PLAINTEXT (``--listener`` repeats; the first one's
servers are printed last; the others, and the TLS CA, are printed before).
``smt local fetch`` downloads every Java artifact the project uses (the broker
and Spark's Kafka connector) into the cache, for CI or offline work.

Exit codes: 0 success, 1 error (message on stderr), 2 usage, 3 ``status`` of a
broker that is not running (as LSB init scripts do).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from smt.errors import SmtError
from smt.local._kafka_security import PROTOCOLS

__all__ = ["main"]

EXIT_NOT_RUNNING = 3


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # argparse's usage errors and --help
        return int(exc.code or 0)
    try:
        return args.handler(args)
    except SmtError as exc:
        print(f"smt local: error: {exc}", file=sys.stderr)
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="smt local", description="Local services for development and tests.")
    commands = parser.add_subparsers(dest="command", required=True)

    kafka = commands.add_parser("kafka", help="a single-node Kafka broker (KRaft) on 127.0.0.1")
    kafka.add_argument("--state-dir", type=Path, default=None,
                       help="where the broker keeps config, data and logs (default: <cache>/local/kafka)")  # fmt: skip
    actions = kafka.add_subparsers(dest="action", required=True)
    start = actions.add_parser("start", help="start the broker and wait until it serves")
    start.add_argument("--fresh", action="store_true", help="discard the data of earlier runs")
    start.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for readiness")
    start.add_argument("--listener", action="append", dest="listeners", metavar="PROTOCOL",
                       choices=PROTOCOLS, help="a client listener: " + ", ".join(PROTOCOLS) + " (repeatable; "
                       "default: those of the last start; SASL_PLAINTEXT with --user; else PLAINTEXT)")
    start.add_argument("--user", action="append", dest="users", metavar="NAME:PASSWORD", type=_user, default=[],
                       help="a SASL/PLAIN user of the SASL listeners (repeatable)")  # fmt: skip
    start.set_defaults(handler=_kafka_start)
    actions.add_parser("stop", help="stop the broker").set_defaults(handler=_kafka_stop)
    actions.add_parser("status", help="is the broker running, and where").set_defaults(handler=_kafka_status)

    fetch = commands.add_parser("fetch", help="download the Java artifacts the project uses into the cache")
    fetch.set_defaults(handler=_fetch)
    return parser


def _user(text: str) -> tuple[str, str]:
    name, colon, password = text.partition(":")
    if not colon:
        raise argparse.ArgumentTypeError(f"expected NAME:PASSWORD, got '{text}'")
    return name, password


def _broker(args: argparse.Namespace):
    from smt.local.kafka import BrokerSecurity, LocalKafka

    listeners, users = getattr(args, "listeners", None), getattr(args, "users", None)
    if not listeners and not users:
        return LocalKafka(state_dir=args.state_dir)
    try:
        security = BrokerSecurity(tuple(listeners or ("SASL_PLAINTEXT",)), dict(users or ()))
    except ValueError as exc:
        raise SmtError(f"--listener/--user: {exc}") from exc
    return LocalKafka(state_dir=args.state_dir, security=security)


def _kafka_start(args: argparse.Namespace) -> int:
    from smt.local.kafka import KAFKA_VERSION

    status = _broker(args).start(timeout=args.timeout, fresh=args.fresh)
    verb = "already running" if status.already_running else "started"
    print(f"Kafka {KAFKA_VERSION} broker {verb} (pid {status.pid}); state {status.state_dir}; log {status.log_file}")
    _print_listeners(status)
    print(status.bootstrap_servers)
    return 0


def _print_listeners(status) -> None:
    """The listeners and TLS files of a secured broker (nothing for a plain one)."""
    if list(status.listeners) in ([], ["PLAINTEXT"]):
        return
    for protocol, servers in status.listeners.items():
        print(f"listener {protocol} {servers}")
    if status.tls is not None:
        print(f"TLS CA certificate {status.tls.ca_pem}; truststore {status.tls.truststore} (PKCS12, "
              f"password in {status.tls.directory / 'store-password'})")  # fmt: skip


def _kafka_stop(args: argparse.Namespace) -> int:
    before = _broker(args).stop()
    if before.running:
        print(f"Kafka broker stopped (pid {before.pid})")
    else:
        print(f"no Kafka broker running for {before.state_dir}")
    return 0


def _kafka_status(args: argparse.Namespace) -> int:
    status = _broker(args).status()
    if not status.running:
        print(f"Kafka broker not running (state {status.state_dir})")
        return EXIT_NOT_RUNNING
    print(f"Kafka broker running (pid {status.pid}); state {status.state_dir}; log {status.log_file}")
    _print_listeners(status)
    print(status.bootstrap_servers)
    return 0


def _fetch(args: argparse.Namespace) -> int:
    from connectors.kafka import spark_kafka_bundle
    from smt.local import maven
    from smt.local.kafka import BROKER_BUNDLE

    for bundle in (BROKER_BUNDLE, spark_kafka_bundle()):
        started = time.monotonic()
        jars = maven.resolve(bundle)
        print(f"{bundle.name}: {len(jars)} jars ({time.monotonic() - started:.1f} s)")
    print(f"cache: {maven.cache_dir()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
