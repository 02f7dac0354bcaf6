"""Kafka's own command-line tools, run against the local broker.

``smt local kafka topics|groups|produce|consume`` run the tools that ship with Kafka
(``kafka-topics``, ``kafka-consumer-groups``, ``kafka-console-producer``,
``kafka-console-consumer``: their Java classes, from the ``kafka-tools`` artifact
fetched from Maven Central like the broker), so they need only Java, and behave as a Kafka user expects.
They connect to the broker's first listener as the broker's own user, so a
secured broker needs no extra settings.

Lines in, lines out: a produced line is ``VALUE``, or ``KEY<TAB>VALUE`` with
keys, or ``NAME:VALUE,NAME:VALUE<TAB>KEY<TAB>VALUE`` with headers and keys;
consumed records are printed the same way, as Kafka's console tools do (no
headers: ``NO_HEADERS``, which a produced line cannot say; no key: ``null``).
A header, key or value holding the separator makes such a line ambiguous:
``consume_json`` prints one JSON object a record instead (a Python consumer).
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import orjson

from smt import maven
from smt.errors import SmtError
from smt.local._kafka_setup import find_java
from smt.local.kafka import KAFKA_VERSION, LOG4J_VERSION, LocalKafka

__all__ = ["TOOLS_BUNDLE", "KafkaTools"]

#: Kafka's tools and the log4j2 binding of their SLF4J logging.
TOOLS_BUNDLE = maven.Bundle(
    f"kafka-tools-{KAFKA_VERSION}",
    (
        maven.Artifact("org.apache.kafka", "kafka-tools", KAFKA_VERSION),
        maven.Artifact("org.apache.logging.log4j", "log4j-slf4j-impl", LOG4J_VERSION),
    ),
)

_TOPICS_MAIN = "org.apache.kafka.tools.TopicCommand"
_PRODUCER_MAIN = "org.apache.kafka.tools.ConsoleProducer"
_CONSUMER_MAIN = "org.apache.kafka.tools.consumer.ConsoleConsumer"
_GROUPS_MAIN = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
#: The isolation levels a consumer may read with (Kafka's ``isolation.level``).
ISOLATION_LEVELS = ("read_uncommitted", "read_committed")
#: librdkafka's logical offset of a partition's first record.
_BEGINNING = -2
# Short-lived tools: start fast rather than run fast.
_JVM_OPTIONS = ("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true")
_TOOL_TIMEOUT_S = 120

# Errors only; the console consumer reports the end of its idle time as an ERROR
# ("Error processing message ... TimeoutException"), which is how it is meant to stop.
_LOG4J = """status = error
appender.err.type = Console
appender.err.name = err
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = %p %m%n
rootLogger.level = ERROR
rootLogger.appenderRef.err.ref = err
logger.consumer.name = org.apache.kafka.tools.consumer.ConsoleConsumer
logger.consumer.level = OFF
"""


class KafkaTools:
    """Topics, producing and consuming on the broker of ``broker``'s state folder."""

    def __init__(self, broker: LocalKafka) -> None:
        self.broker = broker

    # --- topics ------------------------------------------------------------------

    def create_topic(
        self, name: str, partitions: int = 1, configs: dict[str, str] | None = None, if_not_exists: bool = False
    ) -> str:
        """Create ``name`` with the topic settings ``configs``; returns the tool's message (empty when
        ``if_not_exists`` and it was there). Raises :class:`SmtError` when it exists (without
        ``if_not_exists``) or a name or setting is invalid."""
        options = ["--create", "--topic", name, "--partitions", str(partitions), "--replication-factor", "1"]
        for key, value in (configs or {}).items():
            options += ["--config", f"{key}={value}"]
        if if_not_exists:
            options.append("--if-not-exists")
        return self._topic_command(*options)

    def delete_topic(self, name: str) -> None:
        """Delete ``name``. Raises :class:`SmtError` when there is no such topic."""
        self._topic_command("--delete", "--topic", name)

    def list_topics(self) -> list[str]:
        """The topics, internal ones (``__consumer_offsets``) left out."""
        return [line for line in self._topic_command("--list", "--exclude-internal").splitlines() if line]

    def describe_topic(self, name: str) -> str:
        """kafka-topics' description of ``name``: its settings, and each partition's leader and replicas.
        Raises :class:`SmtError` when there is no such topic."""
        self._require_topic(name)
        return self._topic_command("--describe", "--topic", name)

    # --- consumer groups -------------------------------------------------------------

    def describe_groups(self, group: str | None = None) -> str:
        """kafka-consumer-groups' table of ``group`` (default: every group): per partition, the group's
        committed offset, the log's end and the lag between them."""
        options = ["--describe", *(("--group", group) if group else ("--all-groups",))]
        return self._tool_output(_GROUPS_MAIN, "--command-config", options, "kafka-consumer-groups")

    def list_groups(self) -> list[str]:
        """The consumer groups the broker knows."""
        output = self._tool_output(_GROUPS_MAIN, "--command-config", ["--list"], "kafka-consumer-groups")
        return [line for line in output.splitlines() if line]

    # --- records -----------------------------------------------------------------

    def produce(self, topic: str, keys: bool = False, headers: bool = False, separator: str = "\t") -> None:
        """Send the lines of standard input to ``topic``, one record each, and wait for every acknowledgement."""
        self._require_topic(topic)
        options = ["--topic", topic, "--property", f"parse.key={str(keys).lower()}",
                   "--property", f"parse.headers={str(headers).lower()}",
                   "--property", f"key.separator={separator}", "--property", f"headers.delimiter={separator}",
                   "--producer-property", "acks=all"]  # fmt: skip
        self._run_attached(_PRODUCER_MAIN, "--producer.config", options)

    def consume(self, topic: str, keys: bool = False, headers: bool = False, separator: str = "\t",
                max_records: int | None = None, idle_seconds: float = 5.0, from_beginning: bool = True,
                timestamps: bool = False, partitions: bool = False,
                isolation: str = "read_uncommitted") -> None:  # fmt: skip
        """Print ``topic``'s records on standard output until ``max_records`` or ``idle_seconds`` without one.

        ``timestamps`` prints ``CreateTime:MS`` first, ``partitions`` ``Partition:N`` and ``Offset:N``
        (Kafka's console consumer's columns, separated by ``separator``); ``isolation`` is
        ``read_committed`` to leave out records of open and aborted transactions.
        """
        self._require_topic(topic)
        options = ["--topic", topic, "--timeout-ms", str(int(idle_seconds * 1000)),
                   "--isolation-level", isolation,
                   "--property", f"print.key={str(keys).lower()}", "--property", f"print.headers={str(headers).lower()}",
                   "--property", f"print.timestamp={str(timestamps).lower()}",
                   "--property", f"print.partition={str(partitions).lower()}",
                   "--property", f"print.offset={str(partitions).lower()}",
                   "--property", f"key.separator={separator}", "--property", "headers.separator=,"]  # fmt: skip
        if from_beginning:
            options.append("--from-beginning")
        if max_records is not None:
            options += ["--max-messages", str(max_records)]
        self._run_attached(_CONSUMER_MAIN, "--consumer.config", options)

    def consume_json(self, topic: str, max_records: int | None = None, idle_seconds: float = 5.0,
                     isolation: str = "read_uncommitted", out=None) -> int:  # fmt: skip
        """Print ``topic``'s records from the beginning as JSON lines, unambiguous whatever they hold; returns
        how many. Each line: partition, offset, timestamp, headers (a list of [name, value] pairs, in
        order, repeats kept), key and value; bytes that are UTF-8 are a string, others ``{"base64": ...}``,
        a missing key or value null. It stops at ``max_records``, when every partition is read to its
        end, or after ``idle_seconds`` without a record. Nothing is committed."""
        from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition

        self._require_topic(topic)
        out = out or sys.stdout
        servers, client = self.broker.admin_client()
        consumer = Consumer({**client.librdkafka(), "bootstrap.servers": servers, "group.id": "smt-local-consume",
                             "enable.auto.commit": False, "isolation.level": isolation,
                             "enable.partition.eof": True})  # fmt: skip
        count = 0
        try:
            partitions = sorted(consumer.list_topics(topic, timeout=_TOOL_TIMEOUT_S).topics[topic].partitions)
            consumer.assign([TopicPartition(topic, p, _BEGINNING) for p in partitions])
            at_end: set[int] = set()  # partitions read to their end, until another record arrives there
            idle_until = time.monotonic() + idle_seconds
            while (max_records is None or count < max_records) and time.monotonic() < idle_until:
                message = consumer.poll(min(0.5, idle_seconds))
                if message is None:
                    continue
                if message.error() is not None:
                    if message.error().code() != KafkaError._PARTITION_EOF:
                        raise KafkaException(message.error())
                    at_end.add(message.partition())
                    if at_end >= set(partitions):
                        break  # every partition read to its end: nothing more to wait for
                    continue
                at_end.discard(message.partition())
                out.write(orjson.dumps(_record_json(message)).decode() + "\n")
                count += 1
                idle_until = time.monotonic() + idle_seconds
        finally:
            consumer.close()
        return count

    # --- running a tool --------------------------------------------------------------

    def _require_topic(self, topic: str) -> None:
        if topic not in self.broker.topics():
            raise SmtError(f"topic '{topic}' does not exist; create it with `smt local kafka topics create {topic}`")

    def _topic_command(self, *options: str) -> str:
        return self._tool_output(_TOPICS_MAIN, "--command-config", list(options), "kafka-topics")

    def _tool_output(self, main: str, config_option: str, options: list[str], tool: str) -> str:
        """What a tool printed; raises :class:`SmtError` with its error line when it fails."""
        command = self._command(main, config_option, options)
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=_TOOL_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired as exc:
            raise SmtError(f"{tool} {' '.join(options)} did not finish within {_TOOL_TIMEOUT_S} s") from exc
        if done.returncode != 0:
            raise SmtError(_tool_error(done.stdout + done.stderr) or f"{tool} exited with {done.returncode}")
        return done.stdout

    def _run_attached(self, main: str, config_option: str, options: list[str]) -> None:
        """Run a tool on this process's standard input and output."""
        done = subprocess.run(self._command(main, config_option, options), check=False)
        if done.returncode != 0:
            raise SmtError(f"{main.rsplit('.', 1)[1]} exited with {done.returncode} (its messages are above)")

    def _command(self, main: str, config_option: str, options: Sequence[str]) -> list[str]:
        servers, client = self.broker.admin_client()
        classpath = os.pathsep.join(str(p) for p in maven.resolve(TOOLS_BUNDLE, self.broker.cache))
        folder = self.broker.state_dir / "tools"
        folder.mkdir(parents=True, exist_ok=True)
        log_config = _write_private(folder / "log4j2.properties", _LOG4J)
        client_config = _write_private(folder / "client.properties",
                                       "".join(f"{k}={_escape(v)}\n" for k, v in client.java().items()))  # fmt: skip
        return [find_java(), *_JVM_OPTIONS, f"-Dlog4j2.configurationFile={log_config}", "-cp", classpath, main,
                "--bootstrap-server", servers, config_option, str(client_config), *options]  # fmt: skip


def _record_json(message: Any) -> dict[str, Any]:
    _, timestamp = message.timestamp()
    return {
        "partition": message.partition(),
        "offset": message.offset(),
        "timestamp": timestamp,
        "headers": [[name, _bytes_json(value)] for name, value in (message.headers() or [])],
        "key": _bytes_json(message.key()),
        "value": _bytes_json(message.value()),
    }


def _bytes_json(data: bytes | None) -> str | dict[str, str] | None:
    """UTF-8 bytes as their text; other bytes as ``{"base64": ...}``; None as null."""
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def _write_private(path: Path, text: str) -> Path:
    """Write ``text`` readable by this user only: the client settings hold the broker's password."""
    path.touch(mode=0o600)
    path.write_text(text)
    return path


def _escape(value: str) -> str:
    """A value for a Java properties file (backslashes and line breaks escaped)."""
    return value.replace("\\", "\\\\").replace("\n", "\\n")


def _tool_error(output: str) -> str:
    """The line a Kafka tool says what went wrong on (``Error while executing topic command : ...``)."""
    for line in output.splitlines():
        if line.startswith("Error while executing"):
            return line.split(" : ", 1)[-1].strip()
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[0] if lines else ""
