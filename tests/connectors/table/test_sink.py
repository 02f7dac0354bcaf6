"""sink=table end to end on local Spark: typed columns into Parquet tables, batch and streaming."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import os
from pathlib import Path

import pytest

from connectors.table import TableSink
from connectors.table.writer import TableWriteError
from smt.errors import ConfigError
from smt.pipeline import PipelineSpec, run_pipeline
from smt.record import KAFKA_ROW_SCHEMA_DDL
from tests.connectors.table.conftest import ORDER_SCHEMA, envelope_order, kafka_rows

pytestmark = pytest.mark.spark

UTC = dt.timezone.utc


def table_pipeline(source_path: str, table_path: str, **keys) -> PipelineSpec:
    props = {
        "source": "file",
        "source.path": source_path,
        "source.format": "parquet",
        "value.converter": "json",
        "sink": "table",
        "sink.path": table_path,
        **{k.replace("__", "."): v for k, v in keys.items()},
    }
    return PipelineSpec.from_properties(props)


def test_json_envelope_values_become_typed_columns_with_metadata(spark, tmp_path, kafka_input):
    source = kafka_input([envelope_order(1, 1250), envelope_order(2, -5)])
    spec = table_pipeline(source, str(tmp_path / "orders"), sink__columns__metadata="topic,partition,offset,key")
    result = run_pipeline(spec, spark=spark)
    assert (result.counts.read, result.counts.written) == (2, 2)
    table = spark.read.parquet(str(tmp_path / "orders"))
    assert table.schema.simpleString() == (
        "struct<order_id:bigint,amount:decimal(38,2),country:string,placed:timestamp,day:date,tags:array<string>,"
        "counts:map<string,int>,address:struct<city:string>,_topic:string,_partition:int,_offset:bigint,_key:binary>"
    )
    rows = [r.asDict(recursive=True) for r in table.orderBy("order_id").collect()]
    assert rows[0] == {
        "order_id": 1,
        "amount": decimal.Decimal("12.50"),
        "country": "NL",
        "placed": dt.datetime(2023, 11, 14, 22, 13, 20, 1000),
        "day": dt.date(2022, 1, 9),
        "tags": ["new"],
        "counts": {"items": 1},
        "address": {"city": "Delft"},
        "_topic": "orders",
        "_partition": 0,
        "_offset": 0,
        "_key": bytearray(b"k0"),
    }
    assert rows[1]["amount"] == decimal.Decimal("-0.05")


def test_avro_values_become_typed_columns(spark, tmp_path, kafka_input):
    import io

    import fastavro

    avro_schema = {
        "type": "record",
        "name": "Order",
        "fields": [
            {"name": "order_id", "type": "long"},
            {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
            {"name": "placed", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "note", "type": ["null", "string"], "default": None},
        ],
    }
    parsed = fastavro.parse_schema(avro_schema)

    def encode(record):
        out = io.BytesIO()
        fastavro.schemaless_writer(out, parsed, record)
        return out.getvalue()

    placed = dt.datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    source = kafka_input(
        [
            encode({"order_id": 1, "amount": decimal.Decimal("9.99"), "placed": placed, "note": "gift"}),
            encode({"order_id": 2, "amount": decimal.Decimal("0.01"), "placed": placed, "note": None}),
        ]
    )
    spec = table_pipeline(
        source,
        str(tmp_path / "orders"),
        value__converter="avro",
        value__converter__avro__schema=json.dumps(avro_schema),
    )
    run_pipeline(spec, spark=spark)
    table = spark.read.parquet(str(tmp_path / "orders"))
    assert table.schema.simpleString() == "struct<order_id:bigint,amount:decimal(9,2),placed:timestamp,note:string>"
    assert [tuple(r) for r in table.orderBy("order_id").collect()] == [
        (1, decimal.Decimal("9.99"), dt.datetime(2024, 5, 1, 12, 0), "gift"),
        (2, decimal.Decimal("0.01"), dt.datetime(2024, 5, 1, 12, 0), None),
    ]


def _task_put_reasons(spark, dlq) -> dict:
    """The error message of each dead letter in folder ``dlq``, by offset; each failed at TASK_PUT."""
    reasons = {}
    for letter in spark.read.json(str(dlq)).collect():
        headers = {h["key"]: h["value"] for h in letter["headers"]}
        assert headers["__connect.errors.stage"] == "TASK_PUT"
        reasons[letter["offset"]] = headers["__connect.errors.exception.message"]
    return reasons


def test_schemaless_values_take_the_declared_schema_and_misfits_go_to_the_dead_letter_queue(
    spark, tmp_path, kafka_input
):
    source = kafka_input([b'{"id": 1, "amount": 2.5}', b'{"id": 2, "amount": 2.555}', b'{"id": "x"}', None])
    spec = table_pipeline(
        source,
        str(tmp_path / "t"),
        value__converter__schemas__enable="false",
        sink__value__schema="id BIGINT NOT NULL, amount DECIMAL(10,2)",
        errors__tolerance="all",
        errors__deadletterqueue__path=str(tmp_path / "dlq"),
        errors__deadletterqueue__context__headers__enable="true",
    )
    result = run_pipeline(spec, spark=spark)
    assert (result.counts.written, result.counts.dead_lettered) == (1, 3)
    assert [tuple(r) for r in spark.read.parquet(str(tmp_path / "t")).collect()] == [(1, decimal.Decimal("2.50"))]
    assert _task_put_reasons(spark, tmp_path / "dlq") == {
        1: "sink.value.schema: field 'amount': 2.555 has more than 2 decimal places",
        2: "sink.value.schema: field 'id': expected bigint, found str 'x'",
        3: "sink.value.schema: the value: a null value (tombstone) has no columns to write",
    }


def test_schemaless_values_without_a_declared_schema_fail_naming_the_key(spark, tmp_path, kafka_input):
    source = kafka_input([b'{"id": 1}'])
    spec = table_pipeline(source, str(tmp_path / "t"), value__converter__schemas__enable="false")
    with pytest.raises(
        Exception, match="the value has no schema; declare the columns with sink.value.schema, or use a converter"
    ):
        run_pipeline(spec, spark=spark)


def test_write_modes_and_partitions(spark, tmp_path, kafka_input):
    table = str(tmp_path / "t")
    first = kafka_input([envelope_order(1, 100, "NL"), envelope_order(2, 200, "DE")])
    second = kafka_input([envelope_order(3, 300, "NL")])
    run_pipeline(table_pipeline(first, table, sink__partition__by="country"), spark=spark)
    assert sorted(p.name for p in (tmp_path / "t").glob("country=*")) == ["country=DE", "country=NL"]
    run_pipeline(table_pipeline(second, table, sink__partition__by="country"), spark=spark)
    assert spark.read.parquet(table).count() == 3
    with pytest.raises(Exception, match=f"sink.path={table} already exists and sink.write.mode is error"):
        run_pipeline(table_pipeline(second, table, sink__write__mode="error"), spark=spark)
    run_pipeline(table_pipeline(second, table, sink__write__mode="overwrite"), spark=spark)
    assert [r.order_id for r in spark.read.parquet(table).collect()] == [3]


EXTENDED = {**ORDER_SCHEMA, "fields": ORDER_SCHEMA["fields"] + [{"field": "email", "type": "string", "optional": True}]}


def test_a_new_field_is_refused_unless_columns_may_be_added(spark, tmp_path, kafka_input):
    table = str(tmp_path / "t")
    run_pipeline(table_pipeline(kafka_input([envelope_order(1, 100)]), table), spark=spark)
    grown = kafka_input([envelope_order(2, 200, schema=EXTENDED, email="a@example.com")])
    with pytest.raises(
        Exception, match="field 'email' is not a column of the table; set sink.schema.evolution=add_columns to add it"
    ):
        run_pipeline(table_pipeline(grown, table), spark=spark)
    run_pipeline(table_pipeline(grown, table, sink__schema__evolution="add_columns"), spark=spark)
    rows = spark.read.option("mergeSchema", "true").parquet(table).orderBy("order_id").collect()
    assert [(r.order_id, r.email) for r in rows] == [(1, None), (2, "a@example.com")]


@pytest.mark.parametrize("evolution", ["none", "add_columns"])
def test_a_changed_field_type_is_refused_naming_the_field(spark, tmp_path, kafka_input, evolution):
    table = str(tmp_path / "t")
    run_pipeline(table_pipeline(kafka_input([envelope_order(1, 100)]), table), spark=spark)
    changed = kafka_input([envelope_order(2, 200, schema=_narrowed_placed(), placed=5)])
    with pytest.raises(Exception, match="field 'placed' is timestamp in one schema and int in another"):
        run_pipeline(table_pipeline(changed, table, sink__schema__evolution=evolution), spark=spark)


def _narrowed_placed() -> dict:
    """ORDER_SCHEMA with ``placed`` an int32, no longer a Timestamp."""
    fields = [dict(f, type="int32", name=None) if f["field"] == "placed" else f for f in ORDER_SCHEMA["fields"]]
    return {**ORDER_SCHEMA, "fields": [{k: v for k, v in f.items() if v is not None} for f in fields]}


@pytest.mark.parametrize("evolution", ["none", "add_columns"])
def test_a_record_whose_schema_does_not_fit_the_table_fails_alone_to_the_dead_letter_queue(
    spark, tmp_path, kafka_input, evolution
):
    table = str(tmp_path / "t")
    run_pipeline(table_pipeline(kafka_input([envelope_order(1, 100)]), table), spark=spark)
    mixed = kafka_input(
        [
            envelope_order(2, 200),
            envelope_order(3, 300, schema=_narrowed_placed(), placed=5),
            envelope_order(4, 400, schema=EXTENDED, email="a@example.com"),
        ]
    )
    spec = table_pipeline(
        mixed,
        table,
        sink__schema__evolution=evolution,
        errors__tolerance="all",
        errors__deadletterqueue__path=str(tmp_path / "dlq"),
        errors__deadletterqueue__context__headers__enable="true",
    )
    result = run_pipeline(spec, spark=spark)
    reasons = _task_put_reasons(spark, tmp_path / "dlq")
    narrowed = (
        f"sink.path={table}: field 'placed' is timestamp in one schema and int in another; the table's type stays"
    )
    rows = spark.read.option("mergeSchema", "true").parquet(table).orderBy("order_id").collect()
    if evolution == "none":
        assert (result.counts.written, result.counts.dead_lettered) == (1, 2)
        assert reasons == {
            1: narrowed,
            2: f"sink.path={table}: field 'email' is not a column of the table; "
            "set sink.schema.evolution=add_columns to add it",
        }
        assert [r.order_id for r in rows] == [1, 2]
    else:
        assert (result.counts.written, result.counts.dead_lettered) == (2, 1)
        assert reasons == {1: narrowed}
        assert [(r.order_id, r.email) for r in rows] == [(1, None), (2, None), (4, "a@example.com")]


REFUND_SCHEMA = {
    "type": "struct",
    "optional": False,
    "fields": [{"field": "refund_id", "type": "string", "optional": False}],
}


def test_topic_in_the_path_routes_each_record_to_its_topics_table(spark, tmp_path, kafka_input):
    refund = json.dumps({"schema": REFUND_SCHEMA, "payload": {"refund_id": "r-1"}}).encode()
    source = kafka_input(
        [envelope_order(1, 100), refund, envelope_order(2, 200)], topic=["orders", "refunds", "orders"]
    )
    spec = table_pipeline(source, str(tmp_path / "tables" / "${topic}"), sink__columns__metadata="topic")
    run_pipeline(spec, spark=spark)
    orders = spark.read.parquet(str(tmp_path / "tables" / "orders"))
    refunds = spark.read.parquet(str(tmp_path / "tables" / "refunds"))
    assert sorted((r.order_id, r._topic) for r in orders.collect()) == [(1, "orders"), (2, "orders")]
    assert refunds.columns == ["refund_id", "_topic"] and [r.refund_id for r in refunds.collect()] == ["r-1"]


def _refund(refund_id: str, **extra) -> bytes:
    fields = REFUND_SCHEMA["fields"] + [{"field": name, "type": "string", "optional": True} for name in extra]
    return json.dumps(
        {"schema": {**REFUND_SCHEMA, "fields": fields}, "payload": {"refund_id": refund_id, **extra}}
    ).encode()


def _dead_letter_options(tmp_path) -> dict:
    return {
        "errors__tolerance": "all",
        "errors__deadletterqueue__path": str(tmp_path / "dlq"),
        "errors__deadletterqueue__context__headers__enable": "true",
    }


def test_a_record_that_does_not_fit_its_topics_table_fails_alone(spark, tmp_path, kafka_input):
    tables = tmp_path / "tables"
    first = kafka_input([envelope_order(1, 100), _refund("r-1")], topic=["orders", "refunds"])
    run_pipeline(table_pipeline(first, str(tables / "${topic}")), spark=spark)
    (tables / "notes").mkdir()
    (tables / "notes" / "readme.txt").write_text("a folder beside the tables that is none")
    mixed = kafka_input(
        [
            envelope_order(2, 200),
            envelope_order(3, 300, schema=_narrowed_placed(), placed=5),  # orders' placed is a timestamp
            _refund("r-2", reason="late"),  # refunds has no column reason
            _refund("r-3"),
            envelope_order(4, 400, schema=_narrowed_placed(), placed=6),  # a new table: its own columns
        ],
        topic=["orders", "orders", "refunds", "refunds", "archive"],
    )
    result = run_pipeline(
        table_pipeline(mixed, str(tables / "${topic}"), **_dead_letter_options(tmp_path)), spark=spark
    )
    assert (result.counts.written, result.counts.dead_lettered) == (3, 2)
    assert _task_put_reasons(spark, tmp_path / "dlq") == {
        1: f"sink.path={tables}/orders: field 'placed' is timestamp in one schema and int in another; "
        "the table's type stays",
        2: f"sink.path={tables}/refunds: field 'reason' is not a column of the table; "
        "set sink.schema.evolution=add_columns to add it",
    }
    assert sorted(r.order_id for r in spark.read.parquet(str(tables / "orders")).collect()) == [1, 2]
    assert sorted(r.refund_id for r in spark.read.parquet(str(tables / "refunds")).collect()) == ["r-1", "r-3"]
    assert [(r.order_id, r.placed) for r in spark.read.parquet(str(tables / "archive")).collect()] == [(4, 6)]


def test_a_table_created_by_a_micro_batch_refuses_the_next_ones_misfits_alone(spark, tmp_path, kafka_input):
    source, table = tmp_path / "in", str(tmp_path / "t")
    source.mkdir()
    batches = [
        [envelope_order(1, 100), envelope_order(2, 200)],  # micro-batch 0 creates the table
        [
            envelope_order(3, 300),
            envelope_order(4, 400, schema=_narrowed_placed(), placed=5),
            envelope_order(5, 500, schema=EXTENDED, email="a@example.com"),
        ],
    ]
    for number, values in enumerate(batches):
        for part in Path(kafka_input(values)).glob("part-*"):
            moved = source / f"{number}-{part.name}"
            part.rename(moved)
            os.utime(moved, (1_700_000_000 + number, 1_700_000_000 + number))  # the order the stream reads them
    spec = table_pipeline(
        str(source),
        table,
        mode="streaming",
        checkpoint__location=str(tmp_path / "checkpoint"),
        streaming__trigger="availableNow",
        source__max__files__per__trigger="1",
        **_dead_letter_options(tmp_path),
    )
    result = run_pipeline(spec, spark=spark)
    assert (result.counts.written, result.counts.dead_lettered) == (3, 2)
    assert _task_put_reasons(spark, tmp_path / "dlq") == {
        1: f"sink.path={table}: field 'placed' is timestamp in one schema and int in another; the table's type stays",
        2: f"sink.path={table}: field 'email' is not a column of the table; "
        "set sink.schema.evolution=add_columns to add it",
    }
    assert sorted(r.order_id for r in spark.read.parquet(table).collect()) == [1, 2, 3]


def test_a_replayed_micro_batch_is_written_once_by_each_query(spark, tmp_path, kafka_input):
    source = kafka_input([envelope_order(i, i) for i in range(4)])
    spec = table_pipeline(source, str(tmp_path / "t"))
    # The records as the pipeline hands them to the sink: values encoded by the sink itself.
    values = [envelope_order(i, i) for i in range(4)]
    schemas, decoded = spec.value_converter.to_connect_batch(["orders"] * 4, values, pytest.fail)
    encoded = spec.sink.encode_values(["orders"] * 4, schemas, decoded).to_pylist()
    rows = spark.createDataFrame(kafka_rows(encoded), KAFKA_ROW_SCHEMA_DDL)
    with pytest.raises(TableWriteError, match="sink.path=.*: a micro-batch came before the streaming query's check"):
        spec.sink.write(rows, 0)

    def checkpoint(query_id: str) -> str:  # as Spark leaves it when a query starts
        folder = tmp_path / f"checkpoint-{query_id}"
        folder.mkdir()
        (folder / "metadata").write_text(json.dumps({"id": query_id}))
        return str(folder)

    def ids():
        return sorted(r.order_id for r in spark.read.parquet(str(tmp_path / "t")).collect())

    spec.sink.open(spec.sink_context(checkpoint=checkpoint("a8b1f0c6-0d2e-4000-8000-000000000001")))
    for batch_id in (0, 0, 1):  # batch 0 replayed after a crash, then batch 1
        spec.sink.write(rows, batch_id)
    assert ids() == [0, 0, 1, 1, 2, 2, 3, 3]
    # Another query (another checkpoint) numbers its micro-batches from 0 too: they are its own.
    spec.sink.open(spec.sink_context(checkpoint=checkpoint("b37c9e10-52aa-4000-8000-000000000002")))
    spec.sink.write(rows, 0)
    assert ids() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]


def test_streaming_writes_the_records_into_the_table(spark, tmp_path, kafka_input):
    source = kafka_input([envelope_order(i, i) for i in range(3)])
    spec = table_pipeline(
        source,
        str(tmp_path / "t"),
        mode="streaming",
        checkpoint__location=str(tmp_path / "checkpoint"),
        streaming__trigger="availableNow",
    )
    run_pipeline(spec, spark=spark)
    assert sorted(r.order_id for r in spark.read.parquet(str(tmp_path / "t")).collect()) == [0, 1, 2]


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ({"path": "/a", "table": "db.t"}, "sink.path: give one of sink.path and sink.table"),
        ({}, "sink.path: give one of sink.path and sink.table"),
        ({"table": "t", "format": "jdbc", "path": ""}, None),
        ({"path": "/a", "format": "jdbc"}, "sink.table: names the database table when format=jdbc"),
        ({"path": "/a", "format": "iceberg"}, "sink.path: an Iceberg table is written by name: give sink.table="),
        (
            {"path": "/a", "value.schema": "id bigint,"},
            "sink.value.schema.*not a Spark DDL column list: 'id bigint,' ends too early",
        ),
        ({"path": "/a", "columns.metadata": "topic,size"}, "unknown record field\\(s\\) size"),
        (
            {"path": "/a", "value.schema": "_topic string", "columns.metadata": "topic"},
            "column '_topic' is also a value field",
        ),
    ],
)
def test_configuration_errors_name_the_key(keys, message):
    from smt.plugin import PluginContext

    sink = TableSink()
    if message is None:
        sink.configure(keys, PluginContext("sink", "sink."))
        return
    with pytest.raises(ConfigError, match=message):
        sink.configure(keys, PluginContext("sink", "sink."))


def test_a_topic_names_a_table_with_only_letters_digits_and_underscores():
    from smt.plugin import PluginContext

    sink = TableSink()
    sink.configure(
        {"table": "db.t_${topic}", "format": "jdbc", "option.url": "jdbc:postgresql://db/x"},
        PluginContext("sink", "sink."),
    )
    assert sink.target.routes
    assert sink.target.for_topic("orders.v1-eu").table == "db.t_orders_v1_eu"
    sink.configure({"path": "/tables/${topic}"}, PluginContext("sink", "sink."))
    assert sink.target.for_topic("orders.v1").path == "/tables/orders.v1"


def test_a_routed_record_without_a_topic_fails_alone_naming_the_key(tmp_path):
    spec = table_pipeline(str(tmp_path), "/tables/${topic}")
    schemas, values = spec.value_converter.to_connect_batch(["a", "b"], [envelope_order(1, 1)] * 2, pytest.fail)
    errors = {row: str(exc) for row, exc in spec.sink.value_errors([None, "orders"], schemas, values)}
    assert errors == {0: "sink.path=/tables/${topic}: a record has no topic to name its table"}
