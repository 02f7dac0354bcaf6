"""Kill -9 a streaming Kafka → Kafka `smt run` mid-stream, restart it: no record is lost.

Spark's Kafka sink is at-least-once: the micro-batch that was running when the
job died is written again on restart, so duplicates are allowed (at most that
one micro-batch), loss is not, and nothing may be written into the topic the
pipeline reads.
"""

import collections

import pytest

from tests.smt.pipeline._sigkill import kill_after, start

pytestmark = [pytest.mark.kafka, pytest.mark.spark, pytest.mark.slow]

RECORDS, PER_BATCH = 240, 30


def pipeline_file(tmp_path, servers, source, plain, audit):
    """Records with the header "audit" are routed to ``audit``; ``sink.topic`` takes the others."""
    path = tmp_path / "pipeline.properties"
    path.write_text(
        "name=kafka-recovery\nmode=streaming\ncheckpoint.location=checkpoint\n"
        "streaming.trigger=availableNow\n"
        "spark.master=local[2]\nspark.ui.enabled=false\nspark.sql.shuffle.partitions=2\n"
        f"source=kafka\nsource.topics={source}\nsource.kafka.bootstrap.servers={servers}\n"
        f"source.max.offsets.per.trigger={PER_BATCH}\n"
        f"sink=kafka\nsink.topic={plain}\nsink.kafka.bootstrap.servers={servers}\n"
        "transforms=audit\ntransforms.audit.type=RegexRouter\n"
        f"transforms.audit.regex=.*\ntransforms.audit.replacement={audit}\ntransforms.audit.predicate=audited\n"
        "predicates=audited\npredicates.audited.type=HasHeaderKey\npredicates.audited.name=audit\n",
        encoding="utf-8",
    )
    return path


def completed_batches(checkpoint):
    commits = checkpoint / "commits"
    return len([n for n in commits.iterdir() if n.name.isdigit()]) if commits.exists() else 0


def test_sigkill_mid_stream_then_restart_loses_no_record(kafka_broker, tmp_path, pytestconfig, record_property):
    stem = kafka_broker.unique_topic("recovery")
    source = kafka_broker.create_topic(f"{stem}-raw", partitions=2)
    plain, audit = kafka_broker.create_topic(f"{stem}-plain"), kafka_broker.create_topic(f"{stem}-audit")
    ids = [f"record-{n:04d}" for n in range(RECORDS)]
    kafka_broker.produce(source, [{"value": value, "partition": n % 2, "headers": [("audit", "y")] if n % 3 == 0 else []}
                                  for n, value in enumerate(ids)])  # fmt: skip
    pipeline = pipeline_file(tmp_path, kafka_broker.bootstrap_servers, source, plain, audit)
    root = str(pytestconfig.rootpath)

    killed_at = kill_after(start(pipeline, root, cwd=tmp_path), lambda: completed_batches(tmp_path / "checkpoint"), 2)
    assert 2 <= killed_at < RECORDS // PER_BATCH, "the kill must land mid-stream"

    second = start(pipeline, root, cwd=tmp_path)
    _, stderr = second.communicate(timeout=300)
    assert second.returncode == 0, stderr[-3000:]

    audited = kafka_broker.consume(audit)
    plain_records = kafka_broker.consume(plain)
    seen = collections.Counter(r.value.decode() for r in audited + plain_records)
    assert set(seen) == set(ids), f"records were lost: {sorted(set(ids) - set(seen))[:5]}"
    duplicates = sum(seen.values()) - len(ids)
    record_property("duplicates", duplicates)
    print(f"at-least-once after SIGKILL at micro-batch {killed_at}: {duplicates} duplicates of {len(ids)} records")
    assert duplicates <= PER_BATCH, "only the micro-batch running at the kill may be written twice"
    assert {r.value.decode() for r in audited} == {ids[n] for n in range(0, RECORDS, 3)}, "routing survives the restart"
    assert len(kafka_broker.consume(source)) == RECORDS, "nothing may be written into the source topic"
