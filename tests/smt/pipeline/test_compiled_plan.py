"""The compiled path against the Python path: the same hostile input gives the same table, dead letters and counts.

One input holds records the compiled path must take (two schemas, escapes,
raw UTF-8, nulls in optional fields) and records it must leave to the Python
path, one per difference between Spark's ``from_json`` and Kafka's
JsonConverter (see :mod:`converters.json.compiled`).  The pipeline runs with
``pipeline.compile=auto`` and ``off``; the tables and dead letters must be
equal, and the split must send exactly the hostile records to Python.
"""

from __future__ import annotations

import json
import logging

import pytest

from connectors.file.formats import FORMATS
from smt.pipeline import PipelineSpec, run_pipeline
from smt.pipeline.compiled_plan import SAMPLE_ROWS, _sample, compile_problem, plan_compiled
from smt.record import KAFKA_ROW_SCHEMA_DDL
from tests.connectors.table.conftest import kafka_rows

pytestmark = pytest.mark.spark

TIMESTAMP = "org.apache.kafka.connect.data.Timestamp"
DATE = "org.apache.kafka.connect.data.Date"


def _field(field: str, kind: str, optional: bool = True, **extra) -> dict:
    return {"field": field, "type": kind, "optional": optional, **extra}


#: Every primitive the compiled reader takes, with Timestamp and Date.
FLAT = {
    "type": "struct",
    "optional": False,
    "fields": [
        _field("id", "int64", optional=False),
        _field("email", "string"),
        _field("secret", "string"),
        _field("tiny", "int8"),
        _field("small", "int16"),
        _field("count", "int32"),
        _field("amount", "double"),
        _field("paid", "boolean"),
        _field("placed", "int64", name=TIMESTAMP),
        _field("day", "int32", name=DATE),
        _field("level", "int32", default=7),
    ],
}
#: A second schema: one more field.
WIDER = {**FLAT, "fields": [*FLAT["fields"], _field("note", "string")]}
#: A schema only a record that names two schemas has (the last wins).
LATE = {**FLAT, "fields": [*FLAT["fields"], _field("late", "string")]}
#: Types the compiled reader leaves to Python: float32, decimal, bytes, arrays, maps, nested structs.
RICH = {
    "type": "struct",
    "optional": False,
    "fields": [
        _field("id", "int64", optional=False),
        _field("email", "string"),
        _field("ratio", "float"),
        _field("price", "bytes", name="org.apache.kafka.connect.data.Decimal", parameters={"scale": "2"}),
        _field("blob", "bytes"),
        {"field": "tags", "type": "array", "items": {"type": "string"}, "optional": True},
        {"field": "counts", "type": "map", "keys": {"type": "string"}, "values": {"type": "int32"}, "optional": True},
        {"field": "address", "type": "struct", "optional": True, "fields": [_field("city", "string")]},
    ],
}


def _compact(document) -> str:
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False)


def _payload(i: int, **changes) -> dict:
    payload = {
        "id": i,
        "email": f"u{i}@example.com",
        "secret": "s",
        "tiny": 1,
        "small": 2,
        "count": 3,
        "amount": i * 0.25,
        "paid": True,
        "placed": 1_700_000_000_000 + i,
        "day": 19_000 + i,
        "level": 1,
    }
    payload.update(changes)
    return {k: v for k, v in payload.items() if v is not _MISSING}


_MISSING = object()


def _envelope(schema: dict, payload, *, raw_payload: str | None = None) -> bytes:
    text = raw_payload if raw_payload is not None else _compact(payload)
    return f'{{"schema":{_compact(schema)},"payload":{text}}}'.encode()


def _good() -> list[bytes]:
    return [
        _envelope(FLAT, _payload(1)),
        _envelope(FLAT, _payload(2, email=None, amount=None)),  # nulls in optional fields, a masked null
        _envelope(FLAT, _payload(4, secret="rå UTF-8 ✓")),
        _envelope(WIDER, {**_payload(5), "note": "wider"}),
        _envelope(FLAT, _payload(6, amount=-1.5, tiny=-128, small=-1, count=0, paid=False)),
        _envelope(FLAT, _payload(7, amount=1.0e-3, placed=-999_999_999_999, day=-9_999)),
    ]


def _hostile() -> list[bytes | None]:
    flat = _compact(FLAT)
    ok = _compact(_payload(100))
    return [
        _envelope(FLAT, _payload(10, email=5)),  # a number in a string field: Spark reads "5"
        _envelope(FLAT, _payload(11, count="3")),  # a string in an int field
        _envelope(FLAT, _payload(3, secret='quote " and \\ and \n newline')),  # escapes: no backslash compiles
        _envelope(FLAT, _payload(12, amount="NaN")),  # Spark reads the string "NaN" as a double
        _envelope(FLAT, None, raw_payload=ok.replace('"amount":25.0', '"amount":NaN')),  # not JSON for Kafka
        _envelope(FLAT, _payload(14, amount=1.7976931348623157e308)),  # Java writes it back as 1.7976931348623157E308
        _envelope(FLAT, _payload(15, id=None)),  # a required field null
        _envelope(FLAT, _payload(16, id=_MISSING)),  # a required field missing
        _envelope(FLAT, _payload(17, email=_MISSING)),  # an optional field missing
        _envelope(FLAT, _payload(18, count=2**31)),  # int32 overflow
        _envelope(FLAT, _payload(19, tiny=200)),  # int8 overflow
        _envelope(FLAT, None, raw_payload=ok.replace('"id":100', '"id":9223372036854775808')),  # int64 overflow
        _envelope(FLAT, _payload(21, count=3.0)),  # a float in an int field
        _envelope(FLAT, _payload(22, paid=1)),  # a number in a boolean field
        _envelope(FLAT, _payload(23, secret="x")).replace(b'"secret":"x"', b'"secret":"\xff\xfe"'),  # invalid UTF-8
        _envelope(FLAT, None, raw_payload=ok[:-1] + ',"id":24}'),  # a duplicate key
        _envelope(FLAT, None, raw_payload=ok.replace('"email"', '"em\\u0061il"')),  # an escaped key
        _envelope(FLAT, {**_payload(26), "extra": {"email": 1}}),  # an extra field
        # Schema twice: the last wins, and it is one no other record has (its column exists only if seen).
        _envelope(FLAT, _payload(27))[:-1] + b',"schema":' + _compact(LATE).encode() + b"}",
        json.dumps({"schema": FLAT, "payload": _payload(28)}).encode(),  # whitespace: not the compact text
        _envelope(FLAT, _payload(29, placed=253_402_300_800_000)),  # a timestamp past year 9999
        _envelope(FLAT, _payload(30, day=-1_000_000)),  # a date before year 1900
        _envelope(FLAT, _payload(31, level=None)),  # null where the schema has a default
        _envelope(FLAT, _payload(32, secret="\u00e9")).replace("é".encode(), b"\\u00e9"),  # an escape Spark writes raw
        _envelope(FLAT, _payload(33))[:-1] + b" }",  # trailing whitespace
        _envelope(FLAT, None, raw_payload="null"),  # a null payload
        f'{{"schema":{flat},"payload":{ok}'.encode(),  # cut short
        b"not json",
        None,  # a tombstone
        _envelope(
            RICH,
            {
                "id": 40,
                "email": "r@x",
                "ratio": 0.5,
                "price": "AAAE4g==",
                "blob": "AQI=",
                "tags": ["a"],
                "counts": {"a": 1},
                "address": {"city": "Delft"},
            },
        ),  # fmt: skip
        _envelope(
            {**FLAT, "fields": [_field("id", "int64", optional=False), _field("mail", "string")]},
            {"id": 41, "mail": "m"},
        ),  # fmt: skip  # no field to mask: not compiled
    ]


@pytest.fixture
def kafka_input(spark, tmp_path):
    """Writes Kafka-layout records into a Parquet folder a file source reads; returns its path."""

    def write(values: list) -> str:
        path = str(tmp_path / "in")
        FORMATS["parquet"].write(
            spark.createDataFrame(kafka_rows(values), KAFKA_ROW_SCHEMA_DDL).coalesce(1), path, "errorifexists"
        )
        return path

    return write


def _spec(source: str, table: str, dlq: str, compile_mode: str) -> PipelineSpec:
    return PipelineSpec.from_properties(
        {
            "source": "file",
            "source.path": source,
            "source.format": "parquet",
            "value.converter": "json",
            "transforms": "mask,drop,tag",
            "transforms.mask.type": "MaskField$Value",
            "transforms.mask.fields": "email",
            "transforms.drop.type": "ReplaceField$Value",
            "transforms.drop.exclude": "secret",
            "transforms.drop.renames": "amount:total",
            "transforms.tag.type": "InsertField$Value",
            "transforms.tag.static.field": "origin!",
            "transforms.tag.static.value": "shop",
            "sink": "table",
            "sink.path": table,
            "errors.tolerance": "all",
            "errors.deadletterqueue.path": dlq,
            "pipeline.compile": compile_mode,
        }
    )


def _bytes(value) -> bytes | None:
    return None if value is None else bytes(value)


def _table(spark, path: str) -> tuple[str, list]:
    df = spark.read.parquet(path)
    rows = sorted((tuple(r) for r in df.collect()), key=repr)
    return df.schema.simpleString(), rows


def _dead_letters(spark, path: str) -> list:
    return sorted(
        json.dumps(r.asDict(recursive=True), sort_keys=True, default=str) for r in spark.read.json(path).collect()
    )


def test_the_compiled_path_writes_what_the_python_path_writes(spark, tmp_path, kafka_input):
    good, hostile = _good(), _hostile()
    source = kafka_input(good + hostile)
    results = {}
    for mode in ("off", "auto"):
        spec = _spec(source, str(tmp_path / mode), str(tmp_path / f"dlq-{mode}"), mode)
        result = run_pipeline(spec, spark=spark)
        results[mode] = (
            result.counts,
            _table(spark, str(tmp_path / mode)),
            _dead_letters(spark, str(tmp_path / f"dlq-{mode}")),
        )
    assert results["auto"] == results["off"]
    counts, (columns, rows), dead = results["auto"]
    assert "total:double" in columns and "placed:timestamp" in columns and "secret" not in columns
    assert "origin:string" in columns
    assert counts.read == len(good) + len(hostile) and counts.failed == len(dead) > 0
    assert len(rows) == counts.written

    # The split: exactly the good records take the compiled path.
    spec = _spec(source, str(tmp_path / "x"), str(tmp_path / "dlq-x"), "auto")
    df = spec.source.read(spark)
    plan = plan_compiled(spec, spark, df)
    known, unknown, compiled = plan.split(df)
    assert sum(rows.count() for rows in compiled) == len(good)
    assert known.count() + unknown.count() == len(hostile)


def test_what_keeps_a_pipeline_off_the_compiled_path_is_named(tmp_path, kafka_input):
    source = kafka_input([_envelope(FLAT, _payload(1))])
    spec = _spec(source, str(tmp_path / "t"), str(tmp_path / "d"), "off")
    assert compile_problem(spec) == "pipeline.compile=off"
    props = dict(spec.props, **{"pipeline.compile": "auto", "transforms.mask.predicate": "p", "predicates": "p",
                                "predicates.p.type": "TopicNameMatches", "predicates.p.pattern": "x"})  # fmt: skip
    assert compile_problem(PipelineSpec.from_properties(props)) == "transform 'mask' has a predicate"
    props = dict(spec.props, **{"pipeline.compile": "auto", "source.format": "jsonl"})
    assert compile_problem(PipelineSpec.from_properties(props)) == (
        "source: source.format=jsonl: Spark's reader is not the Python tasks' reader"
    )
    props = dict(spec.props, **{"pipeline.compile": "auto", "sink.columns.metadata": "offset"})
    assert compile_problem(PipelineSpec.from_properties(props)) == (
        "sink: sink.columns.metadata or a table per topic: records need their Kafka fields"
    )


@pytest.mark.parametrize("reader", ["auto", "spark"], ids=["read-in-the-driver", "read-by-spark"])
def test_the_sample_is_the_first_records_whoever_reads_them(spark, tmp_path, kafka_input, reader):
    """The plan's sample: the source's first records but the longest, tombstones too, read by the source's
    Python tasks in the driver where it has them (no Spark job), else by Spark; the same records either way."""
    from pyspark.sql import functions as F

    values = [_envelope(FLAT, _payload(i)) for i in range(SAMPLE_ROWS + 50)]
    values[3] = b"x" * 70_000  # longer than a sampled record may be
    values[5] = None  # a tombstone
    spec = _spec(kafka_input(values), str(tmp_path / "t"), str(tmp_path / "d"), "auto")
    spec = PipelineSpec.from_properties(dict(spec.props, **{"source.reader": reader}))
    assert (spec.source.read_tasks(spark) is None) == (reader == "spark")
    sample = _sample(spark, spec.source, spec.source.read(spark), F)
    assert [_bytes(row["value"]) for row in sample.collect()] == values[:3] + values[4:SAMPLE_ROWS]


@pytest.mark.parametrize("with_hostile", [False, True], ids=["every-record-exact", "hostile-after-the-sample"])
def test_the_bet_on_every_record_gives_what_the_python_path_gives(spark, tmp_path, kafka_input, caplog, with_hostile):
    """With a sample of exact records the run bets on the compiled path in one pass; a record after the
    sample that is not exact fails that write, and the run starts again, split."""
    good = [_envelope(FLAT, _payload(i)) for i in range(SAMPLE_ROWS + 100)]
    source = kafka_input(good + (_hostile() if with_hostile else []))
    results = {}
    for mode in ("off", "auto"):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="smt.pipeline.runner"):
            spec = _spec(source, str(tmp_path / mode), str(tmp_path / f"dlq-{mode}"), mode)
            result = run_pipeline(spec, spark=spark)
        results[mode] = (result.counts, _table(spark, str(tmp_path / mode)))
        if with_hostile:
            results[mode] += (_dead_letters(spark, str(tmp_path / f"dlq-{mode}")),)
    assert results["auto"] == results["off"]
    counts = results["auto"][0]
    assert counts.read == len(good) + (len(_hostile()) if with_hostile else 0)
    if with_hostile:
        assert counts.failed > 0
    else:
        assert counts.written == len(good) and counts.failed == 0
    betting = [
        r.getMessage() for r in caplog.records if "betting" in r.getMessage() or "running again" in r.getMessage()
    ]
    assert betting[0].startswith("betting that every record takes the compiled path")
    assert len(betting) == (2 if with_hostile else 1)


def test_a_split_whose_python_half_writes_no_row_counts_both_halves(spark, tmp_path, kafka_input):
    """Every record the Python half takes is a dead letter: the sink's input has compiled rows only."""
    good = [_envelope(FLAT, _payload(i)) for i in range(5)]
    source = kafka_input(good + [b"not json"])
    results = {}
    for mode in ("off", "auto"):
        spec = _spec(source, str(tmp_path / mode), str(tmp_path / f"dlq-{mode}"), mode)
        result = run_pipeline(spec, spark=spark)
        results[mode] = (result.counts, _table(spark, str(tmp_path / mode)))
    assert results["auto"] == results["off"]
    counts = results["auto"][0]
    assert (counts.read, counts.written, counts.failed) == (6, 5, 1)
