"""Kafka → Wasm and built-ins → Kafka over Spark Connect, with a dead-letter topic and metrics.

The connector's jars reach the Connect server as session artifacts; the
Kafka checks that need the JVM are skipped there, with a notice.
"""

from __future__ import annotations

import json

import pytest

from tests.connect_client import run_smt
from tests.host_functions.wat_guests import TO_UPPER

pytestmark = [pytest.mark.kafka, pytest.mark.spark, pytest.mark.slow]


def test_kafka_to_kafka_over_spark_connect(spark_connect_server, kafka_broker, tmp_path):
    stem = kafka_broker.unique_topic("connect")
    source = kafka_broker.create_topic(f"{stem}-in", partitions=2)
    for topic in (f"{stem}-out", f"{stem}-dlq"):
        kafka_broker.create_topic(topic)
    kafka_broker.produce(source, [
        {"key": "k1", "value": json.dumps({"user": "ann", "card": "4111"}), "headers": [("trace", "t1")]},
        {"key": "k2", "value": "not json", "headers": [("trace", "t2")]},
        {"key": "k3", "value": json.dumps({"user": "bob", "card": "5500"}), "partition": 1},
    ])  # fmt: skip
    (tmp_path / "to_upper.wat").write_text(TO_UPPER, encoding="utf-8")
    servers = kafka_broker.bootstrap_servers
    (tmp_path / "pipeline.properties").write_text(
        f"spark.remote={spark_connect_server.url}\n"
        f"source=kafka\nsource.kafka.bootstrap.servers={servers}\nsource.topics={source}\n"
        f"sink=kafka\nsink.kafka.bootstrap.servers={servers}\n"
        "value.converter=json\nvalue.converter.schemas.enable=false\n"
        "transforms=mask,upper,route\n"
        "transforms.mask.type=MaskField$Value\ntransforms.mask.fields=card\n"
        "transforms.upper.type=wasm\ntransforms.upper.module.path=to_upper.wat\n"
        "transforms.upper.function.name=to_upper\ntransforms.upper.value.converter=json\n"
        "transforms.upper.value.converter.schemas.enable=false\n"
        "transforms.route.type=RegexRouter\ntransforms.route.regex=(.*)-in\ntransforms.route.replacement=$1-out\n"
        f"errors.tolerance=all\nerrors.deadletterqueue.topic.name={stem}-dlq\n"
        "errors.deadletterqueue.context.headers.enable=true\n",
        encoding="utf-8",
    )
    run = run_smt(["run", "pipeline.properties", "--metrics-json", "metrics.json"], tmp_path)

    out = kafka_broker.consume(f"{stem}-out", 2)
    assert sorted((r.key, json.loads(r.value)) for r in out) == [
        (b"k1", {"USER": "ANN", "CARD": ""}),
        (b"k3", {"USER": "BOB", "CARD": ""}),
    ]
    dead = kafka_broker.consume(f"{stem}-dlq", 1)
    assert [(r.key, r.value) for r in dead] == [(b"k2", b"not json")]
    assert dict(dead[0].headers)["__connect.errors.stage"] == b"VALUE_CONVERTER"
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["records"] == {
        "read": 3,
        "written": 2,
        "output_rows": 2,
        "filtered": 0,
        "failed": 1,
        "dead_lettered": 1,
    }
    assert metrics["transforms"]["upper"]["records_in"] == 2
    assert "Spark Connect: the Kafka checks for source.kafka.bootstrap.servers" in run.stderr


def test_a_server_without_the_connector_gets_its_jars_and_counts_a_run_into_one_topic(
    kafka_broker, connect_servers, tmp_path
):
    # A server of its own, started without Spark's Kafka connector: the session uploads the jars.
    # One destination, no dead letters: nothing but the write itself runs the records.
    stem = kafka_broker.unique_topic("connect-one")
    source, out = kafka_broker.create_topic(f"{stem}-in", partitions=2), kafka_broker.create_topic(f"{stem}-out")
    kafka_broker.produce(source, [{"value": v, "partition": n % 2} for n, v in enumerate("abc")])
    servers = kafka_broker.bootstrap_servers
    with connect_servers(tmp_path / "server") as server:
        (tmp_path / "pipeline.properties").write_text(
            f"spark.remote={server.url}\n"
            f"source=kafka\nsource.kafka.bootstrap.servers={servers}\nsource.topics={source}\n"
            f"sink=kafka\nsink.kafka.bootstrap.servers={servers}\nsink.topic={out}\n"
            "transforms=stamp\ntransforms.stamp.type=InsertHeader\ntransforms.stamp.header=via\n"
            "transforms.stamp.value.literal=smt\n",
            encoding="utf-8",
        )
        run = run_smt(["run", "pipeline.properties", "--metrics-json", "metrics.json", "-v"], tmp_path)
    assert "uploading spark-sql-kafka-0-10_2.13-" in run.stderr

    assert sorted(r.value for r in kafka_broker.consume(out, 3)) == [b"a", b"b", b"c"]
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert (metrics["records"]["read"], metrics["records"]["written"]) == (3, 3)
