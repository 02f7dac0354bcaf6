"""smt.spark.transform on a classic session: records, dead letters, own columns, metrics, refusals."""

from __future__ import annotations

import json

import pytest
from pyspark.sql import functions as F

from smt.errors import ConfigError, SmtError
from smt.spark import chain, transform

MASK = {
    "value.converter": "json",
    "value.converter.schemas.enable": "false",
    "transforms": "mask,onlyOrders",
    "transforms.mask.type": "org.apache.kafka.connect.transforms.MaskField$Value",
    "transforms.mask.fields": "card",
    "transforms.onlyOrders.type": "Filter",
    "transforms.onlyOrders.predicate": "isTest",
    "predicates": "isTest",
    "predicates.isTest.type": "TopicNameMatches",
    "predicates.isTest.pattern": "test-.*",
    "errors.tolerance": "all",
}


def orders(spark):
    rows = [
        ("o1", "orders", json.dumps({"id": 1, "card": "4111"}), 20240101),
        ("o2", "test-orders", json.dumps({"id": 2, "card": "4222"}), 20240102),  # filtered
        ("o3", "orders", "{not json", 20240103),  # dead letter
        ("o4", "orders", json.dumps({"id": 4, "card": "4444"}), 20240104),
    ]
    return spark.createDataFrame(rows, "order_id string, topic string, value string, day int")


def test_a_chain_applies_to_a_dataframe_and_its_own_columns_travel_with_the_records(spark):
    result = transform(orders(spark), MASK)
    records = result.records.orderBy("order_id").collect()
    assert [(r.order_id, r.day, json.loads(r.value)) for r in records] == [
        ("o1", 20240101, {"id": 1, "card": ""}),
        ("o4", 20240104, {"id": 4, "card": ""}),
    ]
    assert result.records.columns == [
        "key",
        "value",
        "topic",
        "partition",
        "offset",
        "timestamp",
        "timestampType",
        "headers",
        "order_id",
        "day",
    ]
    assert [r.topic for r in records] == ["orders", "orders"]


def test_dead_letters_are_the_input_records_with_their_columns_and_why_they_failed(spark):
    result = transform(orders(spark), MASK)
    dead = result.dead_letters.collect()
    # As they came in: `value` was a string column.
    assert [(r.order_id, r.value, r.error_stage) for r in dead] == [("o3", "{not json", "VALUE_CONVERTER")]
    assert dead[0].error_class == "converters.json.converter.JsonConverter"
    assert "JSON" in dead[0].error_message or "json" in dead[0].error_message


def test_metrics_count_every_record_and_each_transform_after_an_action(spark):
    result = transform(orders(spark), MASK)
    with pytest.raises(SmtError, match=r"no metrics yet: run an action .* on result\.records or result\.dead_letters"):
        result.metrics()
    result.records.count()
    metrics = result.metrics()
    assert metrics["records"] == {
        "read": 4,
        "written": 2,
        "output_rows": 2,
        "filtered": 1,
        "failed": 1,
        "dead_lettered": 1,
    }
    assert [(alias, m["records_in"], m["records_out"], m["dropped"]) for alias, m in metrics["transforms"].items()] == [
        ("mask", 3, 3, 0),
        ("onlyOrders", 1, 0, 1),
    ]  # a stage runs on the records its predicate selects


def test_metrics_after_an_action_that_skipped_the_records_are_refused_as_unknown(spark):
    """Spark's adaptive plan may drop the scan of a cache whose rows a filter rules out (by the cached
    columns' statistics): the action then ran no record through the counts."""
    result = transform(orders(spark), MASK)
    cached = result.records.persist()
    try:
        assert cached.where(F.col("topic") == "elsewhere").select("topic").distinct().collect() == []
        with pytest.raises(SmtError, match=r"metrics unknown: the first action on result\.records .* skipped them"):
            result.metrics()
    finally:
        cached.unpersist()


def test_a_fan_out_copies_the_own_columns_to_every_output(spark, tmp_path):
    import wasmtime

    from tests.host_functions import wat_guests

    module = tmp_path / "fan_out.wasm"
    module.write_bytes(wasmtime.wat2wasm(wat_guests.FILTER_FAN_OUT))
    df = spark.createDataFrame([("a", "odd-a", 1), ("b", "b", 2)], "id string, value string, n int")
    # 'o' (0x6f) is odd: three outputs; 'b' (0x62) is even: dropped
    result = transform(
        df,
        {
            "transforms": "fan",
            "transforms.fan.type": "wasm",
            "transforms.fan.module.path": str(module),
            "transforms.fan.function.name": "filter_fan_out",
            "transforms.fan.config.suffix": "+",
        },
    )
    rows = result.records.collect()
    assert [(r.id, r.n, r.value) for r in rows] == [("a", 1, b"odd-a"), ("a", 1, b"+"), ("a", 1, b"+")]
    assert result.metrics()["records"]["filtered"] == 1


def test_df_transform_style_returns_the_records_and_keeps_the_result(spark):
    masking = chain(MASK)
    records = orders(spark).transform(masking)
    assert records.select("order_id").orderBy("order_id").collect() == [("o1",), ("o4",)]
    assert [r.order_id for r in masking.result.dead_letters.collect()] == ["o3"]


def test_a_chain_from_a_properties_file_resolves_paths_against_its_folder(spark, tmp_path):
    import wasmtime

    from tests.host_functions import wat_guests

    (tmp_path / "guests").mkdir()
    (tmp_path / "guests" / "upper.wasm").write_bytes(wasmtime.wat2wasm(wat_guests.TO_UPPER))
    (tmp_path / "chain.properties").write_text(
        "transforms=upper\ntransforms.upper.type=wasm\ntransforms.upper.module.path=guests/upper.wasm\n"
        "transforms.upper.function.name=to_upper\n"
    )
    df = spark.createDataFrame([("hello",)], "value string")
    assert transform(df, tmp_path / "chain.properties").records.select("value").first()[0] == b"HELLO"


def test_absent_kafka_fields_take_defaults_and_present_ones_are_used(spark):
    df = spark.createDataFrame([(b"k", "v", 7, 3)], "key binary, value string, partition bigint, offset int")
    row = transform(df, {}).records.first()
    assert (row.key, row.value, row.topic, row.partition, row.offset, row.timestamp, row.headers) == (
        b"k",
        b"v",
        "",
        7,
        3,
        None,
        [],
    )


def test_a_streaming_dataframe_gives_streaming_results_and_metrics_from_its_query(spark, tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text('{"card":"1"}\n{"card":"2"}\nbroken\n')
    df = spark.readStream.format("text").load(str(tmp_path / "in")).withColumn("file", F.input_file_name())
    result = transform(df, MASK)
    assert result.records.isStreaming
    query = (
        result.records.writeStream.format("parquet")
        .option("path", str(tmp_path / "out"))
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    written = spark.read.parquet(str(tmp_path / "out")).collect()
    assert sorted(json.loads(r.value)["card"] for r in written) == ["", ""]
    assert all(r.file.endswith("a.txt") for r in written)
    assert result.metrics(query)["records"] == {
        "read": 3,
        "written": 2,
        "output_rows": 2,
        "filtered": 0,
        "failed": 1,
        "dead_lettered": 1,
    }
    with pytest.raises(SmtError, match=r"a streaming result's metrics come from its query: result\.metrics\(query\)"):
        result.metrics()


# --- what transform() refuses ------------------------------------------------


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("source", r"source: not a transform\(\) setting: the DataFrame given to transform\(\) is the source"),
        ("sink.path", r"sink\.path: not a transform\(\) setting: transform\(\) returns DataFrames"),
        (
            "errors.deadletterqueue.topic.name",
            r"errors\.deadletterqueue\.topic\.name: not a transform\(\) setting: "
            r"dead letters come back as result\.dead_letters",
        ),
        ("spark.master", r"spark\.master: not a transform\(\) setting: the DataFrame's own session runs the chain"),
        ("mode", r"mode: not a transform\(\) setting: a streaming DataFrame gives a streaming result"),
    ],
)
def test_pipeline_keys_are_refused_each_named(spark, key, message):
    with pytest.raises(ConfigError, match=message):
        chain({**MASK, key: "x"})


def test_chain_problems_are_reported_before_anything_runs(spark):
    with pytest.raises(ConfigError, match=r"transforms\.mask\.fields"):
        transform(orders(spark), {**MASK, "transforms.mask.fields": ""})


@pytest.mark.parametrize(
    ("ddl", "message"),
    [
        (
            "id int, payload string",
            r"value: the DataFrame needs a 'value' column \(string or binary\); its columns: id, payload",
        ),
        ("value int", r"value: column 'value' is int; expected binary or string"),
        (
            "value string, timestamp string",
            r"timestamp: column 'timestamp' is string; expected timestamp or timestamp_ntz",
        ),
        ("value string, _smt_x int", r"_smt_x: column names starting with '_smt_' are the pipeline's own; rename it"),
        (
            "value string, error_stage string",
            r"error_stage: column 'error_stage' would clash with the dead letters' "
            r"error columns",
        ),
    ],
)
def test_unusable_columns_are_refused_each_named(spark, ddl, message):
    df = spark.createDataFrame([], ddl)
    with pytest.raises(ConfigError, match=message):
        transform(df, {})
