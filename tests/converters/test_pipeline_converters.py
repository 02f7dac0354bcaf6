"""JSON and Avro input through a real Spark pipeline: converters in, a transform, converters out.

The Avro records are produced and checked with Confluent's own Python
serializer, through the schema registry stand-in (registry_stand_in.py);
Spark's Python workers reach it over 127.0.0.1, so the converters travel to
the executors and talk to the registry from there.
"""

import base64
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from smt.batch import RecordBatch
from smt.pipeline import PipelineSpec, run_pipeline
from smt.record import Record
from smt.testing import output_lines
from tests.converters.pipeline_plugins import converter_test_plugins

pytestmark = pytest.mark.spark

PERSON_SCHEMA = {
    "type": "struct",
    "name": "Order",
    "optional": False,
    "fields": [
        {"type": "int64", "optional": False, "field": "id"},
        {"type": "string", "optional": False, "field": "item"},
    ],
}
ORDER_AVRO = {
    "type": "record",
    "name": "Order",
    "namespace": "shop",
    "fields": [{"name": "id", "type": "long"}, {"name": "item", "type": "string"}],
}


def dead_letter_headers(dead_letter):
    # The file dead-letter queue is jsonl: UTF-8 header values as text, others base64.
    return {
        h["key"]: h["value"] if "value" in h else base64.b64decode(h["value_base64"]).decode()
        for h in dead_letter["headers"]
    }


def json_envelope(order):
    return json.dumps({"schema": PERSON_SCHEMA, "payload": order}, separators=(",", ":"))


def test_json_with_schemas_through_spark(spark, tmp_path):
    source = tmp_path / "orders.jsonl"
    lines = [json_envelope({"id": 1, "item": "pen"}), "{not json", json_envelope({"id": 2, "item": "ink"})]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    spec = PipelineSpec.from_properties(
        {
            "source": "file",
            "source.path": str(source),
            "source.topic": "orders",
            "sink": "file",
            "sink.path": str(tmp_path / "out"),
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "transforms": "upper",
            "transforms.upper.type": "UppercaseItem",
            "errors.tolerance": "all",
            "errors.deadletterqueue.path": str(tmp_path / "dlq"),
            "errors.deadletterqueue.context.headers.enable": "true",
        },
        plugins=converter_test_plugins(),
    )
    result = run_pipeline(spec, spark=spark)
    out = sorted(json.loads(line)["payload"]["id"] for line in output_lines(tmp_path / "out"))
    assert out == [1, 2]
    written = {json.loads(line)["payload"]["id"]: json.loads(line) for line in output_lines(tmp_path / "out")}
    assert written[1] == {"schema": PERSON_SCHEMA, "payload": {"id": 1, "item": "PEN"}}
    assert written[2]["payload"] == {"id": 2, "item": "INK"}
    dead = [json.loads(line) for line in output_lines(tmp_path / "dlq")]
    assert len(dead) == 1
    headers = dead_letter_headers(dead[0])
    assert headers["__connect.errors.stage"] == "VALUE_CONVERTER"
    assert "JsonConverter (VALUE_CONVERTER) failed on topic 'orders'" in headers["__connect.errors.exception.message"]
    assert "malformed JSON" in headers["__connect.errors.exception.message"]
    assert (result.counts.read, result.counts.written, result.counts.failed) == (3, 2, 1)


def test_schemaless_json_through_spark(spark, tmp_path):
    source = tmp_path / "orders.jsonl"
    source.write_text('{"id":1,"item":"pen","tags":["a"]}\n{"id":2,"item":"ink","price":1.5}\n', encoding="utf-8")
    spec = PipelineSpec.from_properties(
        {
            "source": "file",
            "source.path": str(source),
            "sink": "file",
            "sink.path": str(tmp_path / "out"),
            "value.converter": "json",
            "value.converter.schemas.enable": "false",
            "transforms": "upper",
            "transforms.upper.type": "UppercaseItem",
        },
        plugins=converter_test_plugins(),
    )
    run_pipeline(spec, spark=spark)
    assert sorted(output_lines(tmp_path / "out")) == [
        '{"id":1,"item":"PEN","tags":["a"]}',
        '{"id":2,"item":"INK","price":1.5}',
    ]


def write_kafka_parquet(path, values, topic="orders"):
    records = [
        Record(topic=topic, partition=0, offset=i, timestamp=1000 + i, key=b"k%d" % i, value=v)
        for i, v in enumerate(values)
    ]
    pq.write_table(pa.Table.from_batches([RecordBatch.from_records(records).to_arrow()]), str(path))


def test_avro_confluent_wire_format_through_spark(spark, tmp_path, registry):
    from confluent_kafka import serialization
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer

    client = SchemaRegistryClient({"url": registry.url})
    context = serialization.SerializationContext("orders", serialization.MessageField.VALUE)
    serialize = AvroSerializer(client, json.dumps(ORDER_AVRO))
    values = [serialize({"id": i, "item": item}, context) for i, item in enumerate(["pen", "ink", "cap"])]
    values.insert(1, b"\x07not avro")
    input_dir = tmp_path / "in"
    input_dir.mkdir()
    write_kafka_parquet(input_dir / "part-0.parquet", values)
    spec = PipelineSpec.from_properties(
        {
            "source": "kafka-parquet",
            "source.path": str(input_dir),
            "sink": "kafka-parquet",
            "sink.path": str(tmp_path / "out"),
            "key.converter": "string",
            "value.converter": "io.confluent.connect.avro.AvroConverter",
            "value.converter.schema.registry.url": registry.url,
            "transforms": "upper",
            "transforms.upper.type": "UppercaseItem",
            "errors.tolerance": "all",
            "errors.deadletterqueue.path": str(tmp_path / "dlq"),
            "errors.deadletterqueue.context.headers.enable": "true",
        },
        plugins=converter_test_plugins(),
    )
    result = run_pipeline(spec, spark=spark)
    rows = pq.read_table(str(tmp_path / "out")).to_pylist()
    deserialize = AvroDeserializer(client)
    decoded = sorted((row["key"], deserialize(row["value"], context)["item"]) for row in rows)
    assert decoded == [(b"k0", "PEN"), (b"k2", "INK"), (b"k3", "CAP")]
    written_ids = {int.from_bytes(row["value"][1:5], "big") for row in rows}
    assert all(row["value"][0] == 0 for row in rows)
    assert written_ids <= set(registry.subjects["orders-value"])
    dead = [json.loads(line) for line in output_lines(tmp_path / "dlq")]
    assert len(dead) == 1
    headers = dead_letter_headers(dead[0])
    assert headers["__connect.errors.stage"] == "VALUE_CONVERTER"
    assert "Unknown magic byte! Expected 0x00, found 0x07" in headers["__connect.errors.exception.message"]
    assert (result.counts.read, result.counts.written, result.counts.failed) == (4, 3, 1)


def test_plain_avro_through_spark(spark, tmp_path):
    import converters

    writer = converters.load("avro", {"avro.schema": json.dumps(ORDER_AVRO)})
    values = [writer.from_connect_data("orders", None, {"id": i, "item": item}) for i, item in enumerate(["a", "b"])]
    input_dir = tmp_path / "in"
    input_dir.mkdir()
    write_kafka_parquet(input_dir / "part-0.parquet", values)
    spec = PipelineSpec.from_properties(
        {
            "source": "kafka-parquet",
            "source.path": str(input_dir),
            "sink": "kafka-parquet",
            "sink.path": str(tmp_path / "out"),
            "value.converter": "avro",
            "value.converter.avro.schema": json.dumps(ORDER_AVRO),
            "transforms": "upper",
            "transforms.upper.type": "UppercaseItem",
        },
        plugins=converter_test_plugins(),
    )
    run_pipeline(spec, spark=spark)
    rows = pq.read_table(str(tmp_path / "out")).to_pylist()
    items = sorted(writer.to_connect_data("orders", row["value"])[1].get("item") for row in rows)
    assert items == ["A", "B"]
