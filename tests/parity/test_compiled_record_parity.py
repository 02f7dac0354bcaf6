"""The compiled path over whole records against the Python path: Filter, DropHeaders, InsertHeader,
and the HasHeaderKey and RecordIsTombstone predicates on any of them.

Records of the Kafka row layout are generated (topics drawn from a wide alphabet, some the drawn
regexes match in part only; keys and values of bytes or null; headers none, null, repeated, or of the
names the configurations use), and chains of one to three stages.  For each chain, the compiled
record (each stage through :func:`smt.compiled.compile_stage`) must keep exactly the records the
Python path (:func:`smt.spark.transform`, bytes converters) writes, with the same topic, key, value
and headers.  All compiled chains run in one Spark job, and the Python path of all in another.
"""

from __future__ import annotations

import datetime as dt
import functools

import pytest
from hypothesis import strategies as st

from smt.compiled import CompiledRecord, NotCompilable, compile_stage
from smt.pipeline.jvm_stream import header_writer
from smt.spark import transform
from smt.spark._config import ChainConfig
from tests.oracle._generation import generate

pytestmark = pytest.mark.spark

ROW_DDL = (
    "key binary, value binary, topic string, partition int, offset long, timestamp timestamp, "
    "timestampType int, headers array<struct<key:string,value:binary>>"
)
HEADER_NAMES = ["h", "H", "h.1", "é", "other"]
#: Topic letters: Kafka's (letters, digits, ``.``, ``_``, ``-``) and a few no regex class here spans.
TOPIC_LETTERS = "abcxyzAB019._-é$"
RECORDS = 40
CHAINS = 60
LITERALS = ["text", "42", "-7", "true", "false", "1.5", "", "[1,2]"]


def _topics():
    return st.one_of(
        st.text(alphabet=TOPIC_LETTERS, min_size=1, max_size=6),
        st.sampled_from(["ab", "abc", "a.b", "ab-1", "x_y", "abab", "ab\n", "a", "aaa", "ab.c", "1ab", "a-b_c.d"]),
    )


def _headers():
    header = st.tuples(st.sampled_from(HEADER_NAMES), st.one_of(st.none(), st.binary(max_size=3)))
    return st.one_of(st.none(), st.lists(header, max_size=4))


def _record():
    part = st.one_of(st.none(), st.binary(max_size=4))
    return st.tuples(part, part, _topics(), _headers())


def _predicate():
    return st.one_of(
        st.sampled_from(HEADER_NAMES).map(lambda h: ("HasHeaderKey", {"name": h})),
        st.just(("RecordIsTombstone", {})),
    )


def _stage():
    return st.tuples(
        st.one_of(
            st.just(("Filter", {})),
            st.lists(st.sampled_from(HEADER_NAMES), min_size=1, max_size=3).map(
                lambda hs: ("DropHeaders", {"headers": ",".join(hs)})
            ),
            st.tuples(st.sampled_from(HEADER_NAMES), st.sampled_from(LITERALS)).map(
                lambda hl: ("InsertHeader", {"header": hl[0], "value.literal": hl[1]})
            ),
        ),
        st.one_of(st.none(), _predicate(), _predicate()),
        st.booleans(),
    )


def _chains():
    return st.tuples(st.lists(_stage(), min_size=1, max_size=3), st.sampled_from(["simple", "string", "json"]))


def properties(stages, header_converter: str) -> dict[str, str]:
    """The chain's configuration, with bytes converters (dead letters kept apart, not failing the job)."""
    converters = {"key.converter": "bytearray", "value.converter": "bytearray", "header.converter": header_converter}
    return {**chain_properties(stages), **converters}


def chain_properties(stages) -> dict[str, str]:
    """The chain's transforms and predicates (``((name, settings), predicate, negate)`` each), its records
    that fail dead-lettered (kept apart, not failing the job)."""
    props = {"transforms": ",".join(f"t{i}" for i in range(len(stages))), "errors.tolerance": "all"}
    predicates = []
    for i, ((name, settings), predicate, negate) in enumerate(stages):
        props[f"transforms.t{i}.type"] = name
        props.update({f"transforms.t{i}.{k}": v for k, v in settings.items()})
        if predicate is not None:
            predicates.append(f"p{i}")
            props[f"transforms.t{i}.predicate"] = f"p{i}"
            props[f"transforms.t{i}.negate"] = str(negate).lower()
            props[f"predicates.p{i}.type"] = predicate[0]
            props.update({f"predicates.p{i}.{k}": v for k, v in predicate[1].items()})
    if predicates:
        props["predicates"] = ",".join(predicates)
    return props


def compiled_chain(props: dict, functions) -> CompiledRecord:
    """The chain of ``props`` over the row columns, stage by stage (raises NotCompilable)."""
    F = functions
    spec = ChainConfig.load(props).spec
    columns = {name: F.col(name) for name in ("key", "value", "topic", "partition", "offset")}
    columns.update({name: F.col(name) for name in ("timestamp", "timestampType", "headers")})
    record = CompiledRecord(columns, header_writer(spec.header_converter))
    for stage in spec.chain.stages:
        record = compile_stage(stage, record, F)
    return record


def _row_of(row):
    """(topic, key, value, headers as (name, bytes) pairs) of an output row (no headers: an empty list)."""
    topic, key, value, headers = row["topic"], row["key"], row["value"], row["headers"]
    written = [(h["key"], None if h["value"] is None else bytes(h["value"])) for h in headers or []]
    return (topic, None if key is None else bytes(key), None if value is None else bytes(value), written)


def _frame(spark, records):
    stamp = dt.datetime(2024, 1, 1)
    rows = [(k, v, t, 0, offset, stamp, 0, hs) for offset, (k, v, t, hs) in enumerate(records)]
    return spark.createDataFrame(rows, ROW_DDL)


def test_compiled_records_are_the_python_paths(spark):
    from pyspark.sql import functions as F

    # One example per record: hypothesis's first example of a whole list is its simplest (no headers).
    records = generate(_record(), RECORDS)
    df = _frame(spark, records)
    chains = generate(_chains(), CHAINS)
    compiled, refused = {}, []
    for c, (stages, converter) in enumerate(chains):
        try:
            record = compiled_chain(properties(stages, converter), F)
        except NotCompilable as exc:
            refused.append(str(exc))
            continue
        kept = F.lit(True) if record.kept is None else record.kept
        parts = [record.columns[n].alias(n) for n in ("topic", "key", "value", "headers")]
        compiled[c] = F.struct(kept.alias("kept"), *parts).alias(f"c{c}")
    rows = df.select("offset", *compiled.values()).collect()  # one job for every chain

    outputs = [transform(df, properties(*chains[c])).records.withColumn("chain", F.lit(c)) for c in compiled]
    written = functools.reduce(lambda a, b: a.unionByName(b), outputs).collect()  # one job for every chain
    for c in compiled:
        props = properties(*chains[c])
        python = {row["offset"]: _row_of(row) for row in written if row["chain"] == c}
        got = {row["offset"]: _row_of(row[f"c{c}"]) for row in rows if row[f"c{c}"]["kept"]}
        for offset in sorted(set(python) | set(got)):
            assert got.get(offset) == python.get(offset), (props, records[offset])
    print(
        f"compiled record parity: {len(compiled)} chains compared over {len(records)} records, {len(refused)} refused"
    )
    assert len(compiled) >= CHAINS // 2
