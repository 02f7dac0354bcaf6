"""The JVM streaming path's schemaless JSON records against the Python path: MaskField$Value and
InsertField$Value over values read as JSON objects, mixed with Filter, InsertHeader and predicates.

Keys and values are generated as JSON texts a producer may send: compact or spaced objects of strings,
integers (some past 64 bits), booleans, nulls, floats, nested objects and arrays, repeated keys,
escaped strings, other documents, broken or blank texts and nulls.  For each generated chain
(:func:`smt.pipeline.jvm_stream.chain_frame`), every record the JVM vouches for must be what the
Python path (:func:`smt.spark.transform`) writes for it, or dropped by both; and the Python path must
not fail it.  The records it does not vouch for fail a real run's micro-batch, which goes on in Python.
:data:`EDGES`, texts at the edges of what the JVM vouches for, are values of every run; of the
generated records, at least a quarter must be vouched for, and some not (the test counts both).
"""

from __future__ import annotations

import datetime as dt
import functools
import json

import pytest
from hypothesis import strategies as st

from smt.compiled import NotCompilable
from smt.pipeline.jvm_stream import chain_frame
from smt.spark import transform
from smt.spark._config import ChainConfig
from tests.oracle._generation import generate
from tests.parity.test_compiled_record_parity import HEADER_NAMES, ROW_DDL, _headers, _row_of, chain_properties

pytestmark = pytest.mark.spark

FIELDS = ["email", "id", "source", "a", "é"]
#: Texts at the edges of what the JVM vouches for, each also a record's value (a null key) in every run.
EDGES = [
    '{"a":', "", "  ", "null", "[1,2]", "1.50", '"s"', "7", '{"a":1}x', '{"a":1}\n', '{"a":-0}', '{"a":01}',
    '{"a":1e2}', '{"a":1.50}', '{"a":1.0E10}', '{"a":-0.0}', '{"a":100.0}', '{"a":0.0001}', '{"a":0.00001}',
    '{"a":123456789012345.6}', '{"a":1234567890123456.7}', '{"a":0.1000000000000000055511151231257827}',
    '{"a":1,"a":2}', '{"a":"\\u0041"}', '{"a":{"b":1}}', '{"b":1,"a":2}', '{ "a" : 1 , "b":"x y" }',
    '{"a":9223372036854775807}', '{"a":9223372036854775808}', '{"a":true,"b":null}', '{"a":100.00}',
    '{"a":0.0}', '{"a":1.0,"b":-20.0}', '{"a":0.000123}', '{"a":123456789012345.0}', '{"a":0.0000012}',
]  # fmt: skip
#: Chains of every run: InsertField setting one name twice among others (its first place, its last value).
FIXED_CHAINS = [
    [(("InsertField$Value", {"topic.field": "id", "partition.field": "a", "static.field": "id", "static.value": "v"}), None, False)],
]  # fmt: skip
#: Texts that are not valid UTF-8 (orjson refuses them; Spark reads a replacement character), as keys and values.
BYTE_EDGES = [b'"\xff"', b'{"id":"\xc3"}', b'{"\xff":1}', b"\xff{}"]
RECORDS = 60
JSON_CONVERTERS = {
    "key.converter": "json", "key.converter.schemas.enable": "false",
    "value.converter": "json", "value.converter.schemas.enable": "false",
}  # fmt: skip
CHAINS = 40


def _plain():
    """A value both libraries read and write alike (where its text is compact and unescaped)."""
    return st.one_of(
        st.text(alphabet="ab Z09@./<é😀", max_size=4),
        st.integers(-(2**63), 2**63 - 1),
        st.integers(-(10**6), 10**6).map(lambda cents: cents / 100),  # 12.5, 0.07, 100.0
        st.booleans(),
        st.none(),
    )


def _odd():
    """A value they may not: any text (escaped), a big integer, a float in exponent form or of more
    digits, a nested object or array."""
    return st.one_of(
        st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=4),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=False, allow_infinity=False, width=32),
        st.lists(st.integers(0, 3), max_size=2),
        st.dictionaries(st.sampled_from("ba"), st.integers(0, 3)),
    )


def _object_text(members, spaced: bool, ascii_only: bool) -> str:
    comma, colon = (", ", ": ") if spaced else (",", ":")
    dump = functools.partial(json.dumps, ensure_ascii=ascii_only, separators=(comma, colon))
    return "{" + comma.join(f"{dump(key)}{colon}{dump(value)}" for key, value in members) + "}"


def _document():
    """A JSON text (bytes) or null: mostly compact objects of plain values, some spaced, escaped, with
    repeated keys, odd values, or other documents."""
    value = _weighted(_plain(), _odd(), 6)
    members = st.lists(st.tuples(st.sampled_from(FIELDS), value), max_size=4)
    objects = st.builds(
        _object_text, members, st.sampled_from([False] * 5 + [True]), st.sampled_from([False] * 5 + [True])
    )
    others = st.one_of(
        st.one_of(_plain(), _odd()).map(lambda v: json.dumps(v, ensure_ascii=False)), st.sampled_from(EDGES)
    )
    text = _weighted(objects, others, 4).map(lambda t: t.encode("utf-8"))
    return _weighted(text, st.sampled_from([None, *BYTE_EDGES]), 8)


def _weighted(usual, rare, times: int):
    """``usual`` drawn ``times`` as often as ``rare`` (``one_of`` draws its branches about evenly)."""
    return st.sampled_from([True] * times + [False]).flatmap(lambda pick: usual if pick else rare)


def _record():
    return st.tuples(st.one_of(st.none(), _document()), _document(), _headers())


def _stage():
    fields = st.lists(st.sampled_from(FIELDS), min_size=1, max_size=3).map(",".join)
    mask = st.tuples(fields, st.sampled_from([None, None, "***", "7", 'q"t'])).map(
        lambda fr: ("MaskField$Value", {"fields": fr[0], **({"replacement": fr[1]} if fr[1] else {})})
    )
    metadata = st.sampled_from(["topic", "partition", "offset", "timestamp"])
    static = st.tuples(st.sampled_from(FIELDS), st.sampled_from(["bench", "", 'q"t'])).map(
        lambda fv: {"static.field": fv[0], "static.value": fv[1]}
    )
    record_fields = st.dictionaries(metadata, st.sampled_from(FIELDS), min_size=1, max_size=2).map(
        lambda kinds: {f"{kind}.field": field for kind, field in kinds.items()}
    )
    # One field, or several (one name may be set twice: its first place, its last value).
    insert = st.one_of(static, record_fields, st.tuples(static, record_fields).map(lambda sr: {**sr[0], **sr[1]}))
    insert = insert.map(lambda settings: ("InsertField$Value", settings))
    other = st.one_of(
        st.just(("Filter", {})),
        st.sampled_from(HEADER_NAMES).map(lambda h: ("InsertHeader", {"header": h, "value.literal": "x"})),
    )
    predicate = st.one_of(
        st.sampled_from(HEADER_NAMES).map(lambda h: ("HasHeaderKey", {"name": h})),
        st.just(("RecordIsTombstone", {})),
    )
    return st.tuples(st.one_of(mask, mask, insert, insert, other), st.one_of(st.none(), predicate), st.booleans())


def properties(stages) -> dict[str, str]:
    """The chain's configuration between schemaless JSON converters (dead letters kept apart)."""
    return {**chain_properties(stages), **JSON_CONVERTERS}


def _frame(spark, records):
    stamp = dt.datetime(2024, 1, 1)
    rows = [
        (k, v, "orders", offset % 3, offset, stamp + dt.timedelta(milliseconds=offset * 7), 0, hs)
        for offset, (k, v, hs) in enumerate(records)
    ]
    return spark.createDataFrame(rows, ROW_DDL)


def test_vouched_records_are_the_python_paths(spark):
    from pyspark.sql import functions as F

    records = generate(_record(), RECORDS) + [(None, edge.encode(), None) for edge in EDGES]
    records += [(edge, b'{"id":1}', None) for edge in BYTE_EDGES] + [(None, edge, None) for edge in BYTE_EDGES]
    df = _frame(spark, records)
    chains = generate(st.lists(_stage(), min_size=1, max_size=3), CHAINS) + FIXED_CHAINS
    compiled, refused, frame = {}, [], df
    for c, stages in enumerate(chains):
        try:
            chain = chain_frame(ChainConfig.load(properties(stages)).spec, frame, F, prefix=f"_c{c}_")
        except NotCompilable as exc:
            refused.append(str(exc))
            continue
        frame, record = chain.frame, chain.record
        kept = F.lit(True) if record.kept is None else record.kept
        parts = [record.columns[n].alias(n) for n in ("topic", "key", "value", "headers")]
        exact = F.coalesce(chain.exact, F.lit(False)).alias("exact")
        compiled[c] = F.struct(kept.alias("kept"), exact, *parts).alias(f"c{c}")
    rows = frame.select("offset", *compiled.values()).collect()  # one job for every chain

    results = {c: transform(df, properties(chains[c])) for c in compiled}
    written = functools.reduce(
        lambda a, b: a.unionByName(b), [r.records.withColumn("chain", F.lit(c)) for c, r in results.items()]
    ).collect()
    failed = functools.reduce(
        lambda a, b: a.unionByName(b),
        [r.dead_letters.select("offset").withColumn("chain", F.lit(c)) for c, r in results.items()],
    ).collect()
    vouched = {True: 0, False: 0}  # generated records (not the edges) the JVM vouched for, or not
    for c in compiled:
        props = properties(chains[c])
        python = {row["offset"]: _row_of(row) for row in written if row["chain"] == c}
        python_failed = {row["offset"] for row in failed if row["chain"] == c}
        for row in rows:
            ours, offset = row[f"c{c}"], row["offset"]
            if offset < RECORDS:
                vouched[ours["exact"]] += 1
            if not ours["exact"]:
                continue
            assert offset not in python_failed, (props, records[offset])
            got = _row_of(ours) if ours["kept"] else None
            assert got == python.get(offset), (props, records[offset])
    print(f"compiled object parity: {len(compiled)} chains, generated records vouched for {vouched}, {refused=}")
    assert len(compiled) >= CHAINS * 3 // 4, refused
    assert (
        vouched[True] * 4 >= vouched[True] + vouched[False] and vouched[False]
    )  # both kinds, at least a quarter vouched
