"""The compiled Spark SQL path against the Python path: JSON converter, MaskField, ReplaceField, InsertField ($Value).

Records are written by the JSON converter from generated flat structs (the
schemas the compiled reader takes: integers, float64, boolean, string,
Timestamp, Date, optional or not, with drawn field names), plus a few it
must refuse.  For every generated configuration, each record the compiled
reader vouches for (``exact``) must give, column by column, the value the
converter and the transform give in Python, under the same schema.  One
Spark session, and one Spark job for all cases (each case is a struct
column of one select).
"""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import strategies as st

import converters
from smt.compiled import CompiledValue, NotCompilable
from smt.data import Date, Schema, SchemaBuilder, Struct, Timestamp
from smt.record import Record
from tests.converters.strategies import values
from tests.oracle._generation import generate
from tests.parity._drivers import configure

pytestmark = pytest.mark.spark

_FIELD_TYPES = [
    Schema.INT8_SCHEMA,
    Schema.INT16_SCHEMA,
    Schema.INT32_SCHEMA,
    Schema.INT64_SCHEMA,
    Schema.FLOAT64_SCHEMA,
    Schema.BOOLEAN_SCHEMA,
    Schema.STRING_SCHEMA,
    Schema.OPTIONAL_INT64_SCHEMA,
    Schema.OPTIONAL_STRING_SCHEMA,
    Schema.OPTIONAL_FLOAT64_SCHEMA,
    Schema.OPTIONAL_BOOLEAN_SCHEMA,
    Timestamp.SCHEMA,
    Date.SCHEMA,
]
#: Field names Spark SQL and JSON take as they are (the reader refuses the others, tested elsewhere).
_NAMES = st.text(alphabet="abcxyzAB019_-.$é", min_size=1, max_size=4)
SCHEMAS_PER_RUN = 3
RECORDS_PER_SCHEMA = 8
CASES = 14
INSERT_CASES = 6


def _flat_schemas():
    names = st.lists(_NAMES, min_size=1, max_size=5, unique_by=str.lower)
    return names.flatmap(
        lambda ns: st.lists(st.sampled_from(_FIELD_TYPES), min_size=len(ns), max_size=len(ns)).map(
            lambda types: _struct(ns, types)
        )
    )


def _struct(names, types):
    builder = SchemaBuilder.struct()
    for name, schema in zip(names, types):
        builder.field(name, schema)
    return builder.build()


def _in_compiled_range(value) -> bool:
    return not isinstance(value, (dt.date, dt.datetime)) or 1900 <= value.year <= 9999


def _records():
    """Values written by the JSON converter, and a few records the compiled reader must leave to Python."""
    writer = converters.load("json", {})

    def written(schema):
        rows = st.lists(values(schema), min_size=RECORDS_PER_SCHEMA, max_size=RECORDS_PER_SCHEMA)
        return rows.map(lambda vs: [writer.from_connect_data("t", schema, v) for v in vs])

    hostile = st.sampled_from([b'{"schema":{"type":"struct","fields":[],"optional":false},"payload":{} }', b"{}"])
    return st.tuples(st.lists(_flat_schemas().flatmap(written), min_size=SCHEMAS_PER_RUN, max_size=SCHEMAS_PER_RUN),
                     st.lists(hostile, max_size=2))  # fmt: skip


def _configs(fields: list[str]):
    some = st.lists(st.sampled_from(fields), min_size=1, max_size=3).map(lambda f: ",".join(dict.fromkeys(f)))
    renames = st.lists(st.tuples(st.sampled_from(fields), _NAMES), min_size=1, max_size=2).map(
        lambda ps: ",".join(f"{a}:{b}" for a, b in dict(ps).items())
    )
    mask = some.map(lambda f: ("MaskField$Value", {"fields": f}))
    replace = st.one_of(
        some.map(lambda f: {"exclude": f}),
        some.map(lambda f: {"include": f}),
        renames.map(lambda r: {"renames": r}),
        st.tuples(some, renames).map(lambda p: {"exclude": p[0], "renames": p[1]}),
    ).map(lambda props: ("ReplaceField$Value", props))
    return st.one_of(st.just((None, {})), mask, replace)


def _insert_configs(fields: list[str]):
    """InsertField's, drawn apart (the other configurations' draws stay as they were)."""
    return st.fixed_dictionaries(
        {
            "static.field": st.tuples(st.one_of(_NAMES, st.sampled_from(fields)), st.sampled_from(["", "!", "?"])).map(
                "".join
            ),
            "static.value": st.text(max_size=4),
        },
        optional={"replace.null.with.default": st.sampled_from(["true", "false"])},
    ).map(lambda props: ("InsertField$Value", props))


def _plain(value):
    if isinstance(value, dt.datetime):
        return (
            value.replace(tzinfo=None)
            if value.tzinfo is None
            else value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        )
    return value


def test_compiled_path_gives_the_python_paths_values(spark):
    from pyspark.sql import functions as F

    ((batches, hostile),) = generate(_records(), 1)
    data = [b for batch in batches for b in batch] + hostile
    converter = converters.load("json", {})
    reader = converter.compiled_reader(F)
    df = spark.createDataFrame([(bytearray(b),) for b in data], "value binary")
    value = F.col("value")
    texts = sorted({row[0] for row in df.select(reader.schema_text(value)).collect() if row[0] is not None})
    fields = sorted({f.name for text in texts for f in reader.read(value, text, F.col("x")).value.schema.fields})
    configs = generate(_configs(fields), CASES) + generate(_insert_configs(fields), INSERT_CASES)

    parsed, selected, expected_schemas = [], [], {}
    for s, text in enumerate(texts):
        read = reader.read(value, text, F.col(f"p{s}"))
        parsed.append(read.parsed.alias(f"p{s}"))
        for c, (name, props) in enumerate(configs):
            compiled = read.value
            if name is not None:
                try:
                    compiled = configure("transform", name, props).compile_value(compiled, F)
                except NotCompilable:
                    continue
            expected_schemas[(s, c)] = compiled.schema
            columns = [col.alias(f"f{i}") for i, col in enumerate(compiled.columns.values())]
            selected.append(F.struct(read.exact.alias("exact"), *columns).alias(f"s{s}c{c}"))
    rows = df.select("value", *parsed).select("value", *selected).collect()  # one job for every case

    compared = 0
    for (s, c), schema in expected_schemas.items():
        name, props = configs[c]
        transform = None if name is None else configure("transform", name, props)
        for row in rows:
            got = row[f"s{s}c{c}"]
            if not got["exact"]:
                continue
            read_schema, struct = converter.to_connect_data("t", bytes(row["value"]))
            record = Record(topic="t", value=struct, value_schema=read_schema)
            out = record if transform is None else transform.apply(record)
            assert [f.name for f in out.value_schema.fields] == [f.name for f in schema.fields], (name, props)
            want = [_plain(out.value.get(f.name)) for f in out.value_schema.fields]
            assert [_plain(got[f"f{i}"]) for i in range(len(want))] == want, (name, props, bytes(row["value"]))
            compared += 1
    exact_rows = sum(1 for (s, c) in expected_schemas for row in rows if row[f"s{s}c{c}"]["exact"])
    print(f"compiled parity: {compared} records compared over {len(expected_schemas)} (schema, configuration) pairs")
    assert compared == exact_rows and compared >= CASES  # the compiled path took records in most cases
    assert {configs[c][0] for (_, c) in expected_schemas} >= {"InsertField$Value", "ReplaceField$Value"}
    assert all(not row[f"s{s}c0"]["exact"] for row in rows[-len(hostile) :] for s in range(len(texts))) or not hostile


def test_insert_fields_compiled_form_gives_a_null_field_its_default_as_python_does(spark):
    """The JSON reader never vouches for a null in a defaulted field; another compiled reader might."""
    from pyspark.sql import functions as F

    schema = SchemaBuilder.struct().field("n", SchemaBuilder.int32().optional().default_value(7).build()).build()
    value = CompiledValue(schema, {"n": F.lit(None).cast("int")})
    for replace, want in (("true", 7), ("false", None)):
        props = {"static.field": "s", "static.value": "v", "replace.null.with.default": replace}
        transform = configure("transform", "InsertField$Value", props)
        compiled = transform.compile_value(value, F)
        row = spark.range(1).select(*(c.alias(n) for n, c in compiled.columns.items())).first()
        out = transform.apply(Record(topic="t", value=Struct(schema), value_schema=schema))
        assert (row["n"], row["s"]) == (out.value.get_without_default("n"), out.value.get("s")) == (want, "v")
