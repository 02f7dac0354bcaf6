"""ExtractNewRecordState's compiled form against its Python path, on generated Debezium envelopes.

Envelopes (``before``/``after``/``source``/``transaction``/``op``/``ts_ms``)
around generated flat row schemas are written by the JSON converter:
creates, reads, updates (``before`` null or not), deletes, truncates, and
deletes whose ``before`` has another schema than ``after``.  For every
generated configuration (each delete mode, ``add.fields`` of envelope,
``source`` and ``transaction`` fields, renamed, prefixed, absent), each record
the compiled reader and the transform's form vouch for must give, column by
column, the value the converter and the transform give in Python, under the
same schema; each record the reader vouches for and the form does not must be
one the Python path drops, makes a tombstone, or writes under another schema.
One Spark job for every case.
"""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import strategies as st

import converters
from smt.compiled import CompiledValue, NotCompilable
from smt.data import Schema, SchemaBuilder, Struct, Timestamp
from smt.record import Record
from tests.converters.strategies import values
from tests.oracle._generation import generate
from tests.parity._drivers import configure
from tests.smt.transforms.debezium._events import POSTGRES_SOURCE, struct_schema

pytestmark = pytest.mark.spark

_ROW_TYPES = [
    Schema.INT32_SCHEMA,
    Schema.INT64_SCHEMA,
    Schema.STRING_SCHEMA,
    Schema.OPTIONAL_INT64_SCHEMA,
    Schema.OPTIONAL_STRING_SCHEMA,
    Schema.OPTIONAL_FLOAT64_SCHEMA,
    Schema.OPTIONAL_BOOLEAN_SCHEMA,
    Timestamp.SCHEMA,
]
_NAMES = st.text(alphabet="abcxyz_019", min_size=1, max_size=4)
_SOURCE = struct_schema(
    POSTGRES_SOURCE,
    {"version": Schema.STRING_SCHEMA, "name": Schema.STRING_SCHEMA, "ts_ms": Schema.INT64_SCHEMA,
     "table": Schema.STRING_SCHEMA, "lsn": Schema.OPTIONAL_INT64_SCHEMA},
)  # fmt: skip
_TRANSACTION = struct_schema(
    "event.block", {"id": Schema.STRING_SCHEMA, "total_order": Schema.INT64_SCHEMA}, optional=True
)
EVENTS_PER_ENVELOPE = 12
DRAWS = 2
CASES = 12


def _row_schema(names, types, table):
    return struct_schema(f"srv.public.{table}.Value", dict(zip(names, types)), optional=True)


def _rows():
    names = st.lists(_NAMES, min_size=1, max_size=4, unique_by=str.lower)
    return names.flatmap(
        lambda ns: st.lists(st.sampled_from(_ROW_TYPES), min_size=len(ns), max_size=len(ns)).map(
            lambda types: _row_schema(ns, types, "t")
        )
    )


def _envelope(row, before=None):
    return (
        SchemaBuilder.struct()
        .name("srv.public.t.Envelope")
        .field("before", before or row)
        .field("after", row)
        .field("source", _SOURCE)
        .field("transaction", _TRANSACTION)
        .field("op", Schema.STRING_SCHEMA)
        .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
        .build()
    )


#: The kinds of events each envelope's records are, in turn.
_KINDS = ("c", "r", "u", "u-no-before", "d", "t")


@st.composite
def _event(draw, envelope, kind):
    """An event of ``kind`` in ``envelope``; ``before`` of its own schema (which may differ from after's)."""
    before_schema, after_schema = envelope.field("before").schema, envelope.field("after").schema
    before = draw(values(before_schema, allow_null=False)) if kind in ("u", "d") else None
    after = draw(values(after_schema, allow_null=False)) if kind in ("c", "r", "u", "u-no-before") else None
    source = Struct(_SOURCE).put("version", "3.6.1.Final").put("name", "srv").put("table", "t")
    source.put("ts_ms", draw(st.integers(0, 2**40))).put("lsn", draw(st.none() | st.integers(0, 2**40)))
    transaction = draw(st.none() | st.builds(lambda i: Struct(_TRANSACTION).put("id", i).put("total_order", 3), _NAMES))
    value = Struct(envelope).put("before", before).put("after", after).put("source", source)
    value.put("transaction", transaction).put("op", {"u-no-before": "u"}.get(kind, kind))
    return value.put("ts_ms", draw(st.none() | st.integers(0, 2**40)))


def _records():
    writer = converters.load("json", {})

    def written(envelope):
        events = st.tuples(*(_event(envelope, _KINDS[i % len(_KINDS)]) for i in range(EVENTS_PER_ENVELOPE)))
        return events.map(lambda vs: [writer.from_connect_data("t", envelope, v) for v in vs])

    same = _rows().map(_envelope)
    other = st.tuples(_rows(), _rows()).map(lambda rows: _envelope(rows[0], before=rows[1]))
    return st.tuples(same.flatmap(written), same.flatmap(written), other.flatmap(written))


_ADDED = ["op", "ts_ms", "source.ts_ms", "table", "lsn", "name:server", "transaction.id", "total_order", "nope"]


def _configs():
    modes = st.sampled_from(["drop", "tombstone", "rewrite", "rewrite-with-tombstone", "delete-to-tombstone"])
    fields = st.lists(st.sampled_from(_ADDED), max_size=4, unique=True).map(",".join)
    prefix = st.sampled_from([None, "", "meta_"])

    def props(mode, added, pre):
        out = {"delete.tombstone.handling.mode": mode, "add.fields": added}
        return out if pre is None else {**out, "add.fields.prefix": pre}

    return st.builds(props, modes, fields, prefix)


def test_compiled_unwrap_gives_the_python_paths_values(spark):
    from pyspark.sql import functions as F

    data = [b for batches in generate(_records(), DRAWS) for batch in batches for b in batch]
    converter = converters.load("json", {})
    reader = converter.compiled_reader(F)
    df = spark.createDataFrame([(bytearray(b),) for b in data], "value binary")
    value = F.col("value")
    texts = sorted({row[0] for row in df.select(reader.schema_text(value)).collect() if row[0] is not None})
    configs = generate(_configs(), CASES)

    parsed, selected, schemas = [], [], {}
    for s, text in enumerate(texts):
        read = reader.read(value, text, F.col(f"p{s}"))
        parsed.append(read.parsed.alias(f"p{s}"))
        for c, props in enumerate(configs):
            compiled = configure("transform", "ExtractNewRecordState", props).compile_value(read.value, F)
            schemas[(s, c)] = compiled.schema
            columns = [col.alias(f"f{i}") for i, col in enumerate(compiled.columns.values())]
            exact = F.struct(read.exact.alias("read"), F.coalesce(compiled.exact, F.lit(False)).alias("form"))
            selected.append(F.struct(exact.alias("exact"), *columns).alias(f"s{s}c{c}"))
    rows = df.select("value", *parsed).select("value", *selected).collect()  # one job for every case

    compared, left = {"c": 0, "d": 0}, 0
    for (s, c), schema in schemas.items():
        transform = configure("transform", "ExtractNewRecordState", configs[c])
        for row in rows:
            got = row[f"s{s}c{c}"]
            if not got["exact"]["read"]:
                continue
            read_schema, struct = converter.to_connect_data("t", bytes(row["value"]))
            out = transform.apply(Record(topic="t", value=struct, value_schema=read_schema))
            if not got["exact"]["form"]:
                assert out is None or out.value is None or out.value_schema != schema, (configs[c], out)
                left += 1
                continue
            assert [f.name for f in out.value_schema.fields] == [f.name for f in schema.fields], configs[c]
            assert out.value_schema == schema, configs[c]
            want = [out.value.get(f.name) for f in out.value_schema.fields]
            assert [got[f"f{i}"] for i in range(len(want))] == [_plain(v) for v in want], (configs[c], struct)
            compared["d" if struct.get("after") is None else "c"] += 1
    print(f"compiled unwrap parity: {compared} compared (c: row state, d: rewritten deletes), {left} left to Python")
    assert compared["c"] >= CASES and compared["d"] >= 1 and left >= CASES


def _plain(value):
    """A Python value as Spark's collect gives it (a timestamp without its zone, in UTC)."""
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return value


def _envelope_value(envelope):
    from pyspark.sql import functions as F

    return CompiledValue(envelope, {field.name: F.lit(None) for field in envelope.fields})


@pytest.mark.parametrize(
    ("props", "match"),
    [
        ({"add.headers": "op"}, "add.headers is set"),
        ({"route.by.field": "x"}, "route.by.field is set"),
        ({"drop.fields.header.name": "drops"}, "drop.fields.header.name is set"),
        ({"add.fields": "source"}, r"add.fields: source.source is not a primitive"),
        ({"add.fields": "table", "add.fields.prefix": ""}, "the row already has a field 'table'"),
    ],
)
def test_keys_that_are_more_than_a_column_rewrite_refuse_the_form(spark, props, match):
    from pyspark.sql import functions as F

    transform = configure("transform", "ExtractNewRecordState", props)
    row = _row_schema(["table"], [Schema.INT32_SCHEMA], "t")
    with pytest.raises(NotCompilable, match=match):
        transform.compile_value(_envelope_value(_envelope(row)), F)


def test_a_value_that_is_not_an_envelope_refuses_the_form(spark):
    transform = configure("transform", "ExtractNewRecordState", {})
    row = _row_schema(["x"], [Schema.INT32_SCHEMA], "t")
    with pytest.raises(NotCompilable, match=r"\(srv.public.t.Value\) is not a Debezium \*.Envelope"):
        transform.compile_value(_envelope_value(row), None)
    no_after = SchemaBuilder.struct().name("a.Envelope").field("before", row).build()
    with pytest.raises(NotCompilable, match="the envelope has no struct field 'after'"):
        transform.compile_value(_envelope_value(no_after), None)


@pytest.mark.parametrize("mode", ["drop", "tombstone", "rewrite", "rewrite-with-tombstone", "delete-to-tombstone"])
@pytest.mark.parametrize("headers", ["", "op", "table,op", "table"])
def test_the_compiled_answer_for_tombstones_is_what_apply_does_with_each(mode, headers):
    transform = configure(
        "transform", "ExtractNewRecordState", {"delete.tombstone.handling.mode": mode, "add.headers": headers}
    )
    key = Struct(struct_schema("k.Key", {"id": Schema.INT32_SCHEMA})).put("id", 7)
    tombstone = Record(topic="t", partition=0, key=key, key_schema=key.schema, value=None, value_schema=None)
    out = transform.apply(tombstone)
    try:
        dropped = transform.compile_tombstone()
    except NotCompilable as exc:
        assert out is not None and out != tombstone, (mode, headers, exc)
        return
    assert (out is None) == dropped, (mode, headers)
    assert dropped or out == tombstone, (mode, headers, out)
