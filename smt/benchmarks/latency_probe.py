"""The latency benchmark's probe: sends stamped records at a steady rate and times their arrival at the output.

Runs as its own process (``python -m smt.benchmarks.latency_probe SPEC``,
SPEC a JSON object), so that neither its sending nor its reading shares an
interpreter lock with the Spark driver it measures.  It

1. primes: sends one record every :data:`PRIME_INTERVAL_S` until one
   arrives at the output (the query under test has started and runs);
2. sends ``rate`` records/s for ``warmup_s + measure_s`` seconds, each JSON
   value carrying its send time in microseconds (``sent_us``);
3. reads the output while it sends and for at most ``drain_s`` after, and
   prints one JSON line: the latencies (ms) of the records sent after the
   warm-up, and how many such records were sent.

The output is a Kafka topic (read committed: an exactly-once writer's
records count when their transaction commits) or a table folder: Parquet
(a file counts once Spark's commit has moved it into the folder), or Delta
(a file counts once a commit in the table's log adds it).
"""

from __future__ import annotations

import glob
import json
import os
import sys
import threading
import time
import urllib.parse
from typing import Callable, Iterator

PRIME_INTERVAL_S = 0.2
PRIME_TIMEOUT_S = 300.0
#: How often the sender checks how many records are due (records go out in small bursts).
SEND_TICK_S = 0.002
TABLE_POLL_S = 0.02


def value(number: int, sent_us: int) -> bytes:
    """One input record's JSON value: the fields the benchmark's chain masks and keeps, and the send time."""
    return (
        f'{{"id":{number},"user":"user-{number % 1000}","email":"user{number}@example.com","sent_us":{sent_us}}}'
    ).encode()


def now_us() -> int:
    return time.time_ns() // 1000


class Arrivals:
    """Send stamps seen at the output, each with the time it was seen (thread-safe appends)."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, int]] = []
        self.stop = threading.Event()

    def add(self, stamps: list[int]) -> None:
        arrived = now_us()
        self.seen.extend((stamp, arrived) for stamp in stamps)


def kafka_stamps(servers: str, topic: str, arrivals: Arrivals) -> None:
    from confluent_kafka import Consumer

    consumer = Consumer({
        "bootstrap.servers": servers, "group.id": f"smt-latency-{os.getpid()}-{topic}",
        "auto.offset.reset": "earliest", "enable.auto.commit": "false", "isolation.level": "read_committed",
        "fetch.wait.max.ms": "5",
    })  # fmt: skip
    consumer.subscribe([topic])
    try:
        while not arrivals.stop.is_set():
            messages = consumer.consume(1000, 0.01)
            stamps = [json.loads(m.value())["sent_us"] for m in messages if m.error() is None and m.value()]
            if stamps:
                arrivals.add(stamps)
    finally:
        consumer.close()


def table_stamps(path: str, arrivals: Arrivals) -> None:
    import pyarrow.parquet as pq

    read: set[str] = set()
    while not arrivals.stop.is_set():
        for name in _parquet_files(path):
            if name not in read:
                read.add(name)
                arrivals.add(pq.read_table(name, columns=["sent_us"]).column("sent_us").to_pylist())
        time.sleep(TABLE_POLL_S)


def delta_stamps(path: str, arrivals: Arrivals) -> None:
    """The stamps of a Delta table's rows, as each commit in its log makes them visible: the files a
    commit adds (its ``add`` actions), read once the commit's log entry exists."""
    import pyarrow.parquet as pq

    read: set[str] = set()
    log = os.path.join(path, "_delta_log")
    while not arrivals.stop.is_set():
        for commit in sorted(glob.glob(os.path.join(log, "*.json"))):
            if commit in read:
                continue
            read.add(commit)
            for added in _added_files(commit):
                arrivals.add(
                    pq.read_table(os.path.join(path, added), columns=["sent_us"]).column("sent_us").to_pylist()
                )
        time.sleep(TABLE_POLL_S)


def _added_files(commit: str) -> list[str]:
    """The data files a Delta commit adds (paths relative to the table, URL-decoded)."""
    with open(commit, encoding="utf-8") as lines:
        actions = [json.loads(line) for line in lines if line.strip()]
    return [urllib.parse.unquote(action["add"]["path"]) for action in actions if "add" in action]


def _parquet_files(path: str) -> Iterator[str]:
    """The table's committed files: none under a folder whose name starts with ``_`` or ``.`` (staging,
    Spark's ``_temporary``), as Spark's own reader skips them."""
    for name in sorted(glob.glob(os.path.join(path, "**", "*.parquet"), recursive=True)):
        if not any(part.startswith(("_", ".")) for part in os.path.relpath(name, path).split(os.sep)):
            yield name


def send(servers: str, topic: str, arrivals: Arrivals, rate: float, warmup_s: float, seconds: float) -> tuple[int, int]:
    """Prime, then send ``rate`` records/s for ``warmup_s + seconds``; (first stamp measured, records measured)."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": servers, "linger.ms": "0", "acks": "1"})
    number = 0
    deadline = time.monotonic() + PRIME_TIMEOUT_S
    while not arrivals.seen:
        if time.monotonic() > deadline:
            raise SystemExit(f"no record reached the output within {PRIME_TIMEOUT_S:.0f} s")
        producer.produce(topic, value(number, now_us()))
        producer.poll(0)
        number += 1
        time.sleep(PRIME_INTERVAL_S)
    start = time.monotonic()
    measured_from = now_us() + int(warmup_s * 1e6)
    sent = measured = 0
    while (elapsed := time.monotonic() - start) < warmup_s + seconds:
        for _ in range(int(elapsed * rate) - sent):
            stamp = now_us()
            producer.produce(topic, value(number, stamp))
            number, sent, measured = number + 1, sent + 1, measured + (stamp >= measured_from)
        producer.poll(0)
        time.sleep(SEND_TICK_S)
    producer.flush(30)
    return measured_from, measured


def probe(spec: dict) -> dict:
    arrivals = Arrivals()
    if spec.get("table_path"):
        stamps = delta_stamps if spec.get("table_format") == "delta" else table_stamps
        reader: Callable[[], None] = lambda: stamps(spec["table_path"], arrivals)  # noqa: E731
    else:
        reader = lambda: kafka_stamps(spec["servers"], spec["output"], arrivals)  # noqa: E731
    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    warmup_s, measure_s = spec["warmup_s"], spec["measure_s"]
    measured_from, expected = send(spec["servers"], spec["input"], arrivals, spec["rate"], warmup_s, measure_s)
    drain_until = time.monotonic() + spec["drain_s"]
    while time.monotonic() < drain_until and _measured(arrivals, measured_from) < expected:
        time.sleep(0.05)
    arrivals.stop.set()
    thread.join(10)
    latencies = sorted((arrived - stamp) / 1000 for stamp, arrived in list(arrivals.seen) if stamp >= measured_from)
    return {"latencies_ms": latencies, "expected": expected}


def _measured(arrivals: Arrivals, measured_from: int) -> int:
    return sum(1 for stamp, _ in list(arrivals.seen) if stamp >= measured_from)


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps(probe(json.loads(sys.argv[1]))))
