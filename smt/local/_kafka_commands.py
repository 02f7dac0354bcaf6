"""``smt local kafka ...``: the local broker's lifecycle, its topics, and a quick look at records."""

from __future__ import annotations

import argparse
from pathlib import Path

from smt.commands.output import EXIT_NOT_RUNNING, EXIT_OK
from smt.errors import SmtError
from smt.local._kafka_security import PROTOCOLS
from smt.local._kafka_setup import DEFAULT_PORT, port_is_free
from smt.local.kafka_tools import ISOLATION_LEVELS

__all__ = ["add_commands"]


def add_commands(services: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    kafka = services.add_parser("kafka", parents=[common], help="a single-node Kafka broker (KRaft) on 127.0.0.1",
                                description="A single-node Kafka broker (KRaft) on 127.0.0.1, its topics, and "
                                "Kafka's console producer and consumer.")  # fmt: skip
    kafka.add_argument("--state-dir", type=Path, default=None,
                       help="where the broker keeps config, data and logs (default: <cache>/local/kafka)")  # fmt: skip
    actions = kafka.add_subparsers(dest="action", metavar="ACTION", required=True)
    _add_lifecycle(actions, common)
    _add_topics(actions, common)
    _add_groups(actions, common)
    _add_records(actions, common)


def _add_lifecycle(actions: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    start = actions.add_parser("start", parents=[common], help="start the broker and wait until it serves")
    start.add_argument("--port", type=int, default=None,
                       help=f"the client listener's port (default: the last start's when free, else {DEFAULT_PORT} "
                       "when free, else any free port; 0: any free port)")  # fmt: skip
    start.add_argument("--fresh", action="store_true", help="discard the data of earlier runs")
    start.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for readiness (default 120)")
    start.add_argument(
        "--listener",
        action="append",
        dest="listeners",
        metavar="PROTOCOL",
        choices=PROTOCOLS,
        help="a client listener: " + ", ".join(PROTOCOLS) + " (repeatable; "
        "default: those of the last start; SASL_PLAINTEXT with --user; else PLAINTEXT)",
    )
    start.add_argument("--user", action="append", dest="users", metavar="NAME:PASSWORD", type=_user, default=[],
                       help="a SASL/PLAIN user of the SASL listeners (repeatable)")  # fmt: skip
    start.set_defaults(handler=_start)
    actions.add_parser("stop", parents=[common], help="stop the broker").set_defaults(handler=_stop)
    status = actions.add_parser(
        "status", parents=[common], help="is the broker running, and where (exit 4: not running)"
    )
    status.set_defaults(handler=_status)


def _add_topics(actions: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    topics = actions.add_parser("topics", parents=[common], help="create, list and delete topics (kafka-topics)")
    verbs = topics.add_subparsers(dest="verb", metavar="VERB", required=True)
    create = verbs.add_parser("create", parents=[common], help="create a topic")
    create.add_argument("name", help="the topic's name")
    create.add_argument("--partitions", type=_positive, default=1, help="number of partitions (default 1)")
    create.add_argument("--if-not-exists", action="store_true", help="succeed when the topic is already there")
    create.add_argument("--config", action="append", dest="configs", type=_topic_config, default=[],
                        metavar="KEY=VALUE", help="a topic setting, such as retention.ms=-1 (repeatable)")  # fmt: skip
    create.set_defaults(handler=_topics_create)
    verbs.add_parser("list", parents=[common], help="list the topics, one per line").set_defaults(handler=_topics_list)
    delete = verbs.add_parser("delete", parents=[common], help="delete a topic and its records")
    delete.add_argument("name", help="the topic's name")
    delete.set_defaults(handler=_topics_delete)
    describe = verbs.add_parser("describe", parents=[common],
                                help="a topic's settings and partitions (leader, replicas, in-sync replicas)")  # fmt: skip
    describe.add_argument("name", help="the topic's name")
    describe.set_defaults(handler=_topics_describe)


def _add_groups(actions: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    groups = actions.add_parser("groups", parents=[common],
                                help="consumer groups, their committed offsets and lag (kafka-consumer-groups)")  # fmt: skip
    verbs = groups.add_subparsers(dest="verb", metavar="VERB", required=True)
    verbs.add_parser("list", parents=[common], help="list the consumer groups, one per line").set_defaults(
        handler=_groups_list
    )
    describe = verbs.add_parser("describe", parents=[common],
                                help="per partition: the group's committed offset, the log's end, and the lag")  # fmt: skip
    describe.add_argument("group", nargs="?", default=None, help="the group (default: every group)")
    describe.set_defaults(handler=_groups_describe)


def _add_records(actions: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    produce = actions.add_parser("produce", parents=[common], help="send lines from standard input as records",
                                 description="Send each line of standard input as one record "
                                 "(kafka-console-producer).")  # fmt: skip
    consume = actions.add_parser("consume", parents=[common], help="print a topic's records as lines",
                                 description="Print a topic's records from the beginning, one line each, "
                                 "until none arrives for --idle seconds (kafka-console-consumer).")  # fmt: skip
    for parser, verb in ((produce, "read"), (consume, "print")):
        parser.add_argument("topic", help="the topic")
        parser.add_argument("--keys", action="store_true", help=f"{verb} KEY<SEP>VALUE lines")
        parser.add_argument(
            "--headers",
            action="store_true",
            help=f"{verb} NAME:VALUE,NAME:VALUE<SEP> before the key and value (with --keys)",
        )
        parser.add_argument(
            "--separator", default="\t", metavar="SEP", help="between headers, key and value (default: a tab)"
        )
    produce.set_defaults(handler=_produce)
    consume.add_argument(
        "--max", type=_positive, default=None, dest="max_records", metavar="N", help="stop after N records"
    )
    consume.add_argument(
        "--idle",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="stop when no record arrives for this long (default 5)",
    )
    consume.add_argument("--timestamps", action="store_true",
                         help="print CreateTime:MS (or LogAppendTime:MS)<SEP> first")  # fmt: skip
    consume.add_argument("--partitions", action="store_true",
                         help="print Partition:N<SEP>Offset:N<SEP> before the headers, key and value")  # fmt: skip
    consume.add_argument("--isolation", choices=ISOLATION_LEVELS, default="read_uncommitted",
                         help="read_committed leaves out the records of open and aborted transactions (what an "
                         "exactly-once pipeline's readers see); default read_uncommitted")  # fmt: skip
    consume.add_argument("--json", action="store_true",
                         help="print each record as one JSON object: partition, offset, timestamp, headers as "
                         "[name, value] pairs, key and value (UTF-8 as text, other bytes as {\"base64\": ...}); "
                         "unambiguous whatever the record holds")  # fmt: skip
    consume.set_defaults(handler=_consume)


def _user(text: str) -> tuple[str, str]:
    name, colon, password = text.partition(":")
    if not colon:
        raise argparse.ArgumentTypeError(f"expected NAME:PASSWORD, got '{text}'")
    return name, password


def _topic_config(text: str) -> tuple[str, str]:
    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got '{text}'")
    return key.strip(), value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got '{text}'")
    return value


def _broker(args: argparse.Namespace):
    from smt.local.kafka import BrokerSecurity, LocalKafka

    listeners, users = getattr(args, "listeners", None), getattr(args, "users", None)
    port = getattr(args, "port", None)
    if not listeners and not users:
        return LocalKafka(state_dir=args.state_dir, port=port)
    try:
        security = BrokerSecurity(tuple(listeners or ("SASL_PLAINTEXT",)), dict(users or ()))
    except ValueError as exc:
        raise SmtError(f"--listener/--user: {exc}") from exc
    return LocalKafka(state_dir=args.state_dir, security=security, port=port)


def _tools(args: argparse.Namespace):
    from smt.local.kafka_tools import KafkaTools

    return KafkaTools(_broker(args))


def _start(args: argparse.Namespace) -> int:
    from smt.local.kafka import KAFKA_VERSION

    status = _broker(args).start(timeout=args.timeout, fresh=args.fresh)
    verb = "already running" if status.already_running else "started"
    print(f"Kafka {KAFKA_VERSION} broker {verb} (pid {status.pid}); state {status.state_dir}; log {status.log_file}")
    port = int(status.bootstrap_servers.rsplit(":", 1)[1])
    if args.port is None and port != DEFAULT_PORT and not status.already_running:
        why = "as it did when last started" if port_is_free(DEFAULT_PORT) else f"port {DEFAULT_PORT} is in use"
        print(f"the broker listens on port {port}: {why}")
    _print_listeners(status)
    print(status.bootstrap_servers)
    return EXIT_OK


def _print_listeners(status) -> None:
    """The listeners and TLS files of a secured broker (nothing for a plain one)."""
    if list(status.listeners) in ([], ["PLAINTEXT"]):
        return
    for protocol, servers in status.listeners.items():
        print(f"listener {protocol} {servers}")
    if status.tls is not None:
        print(f"TLS CA certificate {status.tls.ca_pem}; truststore {status.tls.truststore} (PKCS12, "
              f"password in {status.tls.directory / 'store-password'})")  # fmt: skip


def _stop(args: argparse.Namespace) -> int:
    before = _broker(args).stop()
    if before.running:
        print(f"Kafka broker stopped (pid {before.pid})")
    else:
        print(f"no Kafka broker running for {before.state_dir}")
    return EXIT_OK


def _status(args: argparse.Namespace) -> int:
    status = _broker(args).status()
    if not status.running:
        print(f"Kafka broker not running (state {status.state_dir})")
        return EXIT_NOT_RUNNING
    print(f"Kafka broker running (pid {status.pid}); state {status.state_dir}; log {status.log_file}")
    _print_listeners(status)
    print(status.bootstrap_servers)
    return EXIT_OK


def _topics_create(args: argparse.Namespace) -> int:
    tools = _tools(args)
    message = tools.create_topic(args.name, args.partitions, dict(args.configs), args.if_not_exists).strip()
    print(message or f"Topic {args.name} already exists.")
    return EXIT_OK


def _topics_list(args: argparse.Namespace) -> int:
    for name in _tools(args).list_topics():
        print(name)
    return EXIT_OK


def _topics_delete(args: argparse.Namespace) -> int:
    _tools(args).delete_topic(args.name)
    print(f"Deleted topic {args.name}.")
    return EXIT_OK


def _produce(args: argparse.Namespace) -> int:
    _tools(args).produce(args.topic, args.keys, args.headers, args.separator)
    return EXIT_OK


def _consume(args: argparse.Namespace) -> int:
    if args.json:
        if args.keys or args.headers or args.timestamps or args.partitions:
            raise SmtError("--json prints every part of a record: leave out --keys, --headers, --timestamps and "
                           "--partitions")  # fmt: skip
        _tools(args).consume_json(args.topic, args.max_records, args.idle, isolation=args.isolation)
        return EXIT_OK
    _tools(args).consume(args.topic, args.keys, args.headers, args.separator, args.max_records, args.idle,
                         timestamps=args.timestamps, partitions=args.partitions, isolation=args.isolation)  # fmt: skip
    return EXIT_OK


def _topics_describe(args: argparse.Namespace) -> int:
    print(_tools(args).describe_topic(args.name).rstrip())
    return EXIT_OK


def _groups_list(args: argparse.Namespace) -> int:
    for name in _tools(args).list_groups():
        print(name)
    return EXIT_OK


def _groups_describe(args: argparse.Namespace) -> int:
    print(_tools(args).describe_groups(args.group).rstrip())
    return EXIT_OK
