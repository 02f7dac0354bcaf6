"""Hypothesis strategies for oracle cases: configurations and records, as JSON-ready dicts.

A pipeline case is one configuration (converters, one or two transforms, maybe
a predicate) and a handful of records for it: keys and values as JSON bytes,
schemaless or in JsonConverter's schema envelope, with nested fields,
tombstones and headers.  Field names come from a small pool so that the
configurations name fields the records have (and sometimes fields they lack).
Converter cases are a converter, its settings, and bytes to read or
(schema, value) envelopes to write.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from hypothesis import strategies as st

import converters
from smt.data import Date, Decimal, Schema, SchemaBuilder, Time, Timestamp
from tests.converters.strategies import values as connect_values

T = "org.apache.kafka.connect.transforms."
P = "org.apache.kafka.connect.transforms.predicates."
JSON = "org.apache.kafka.connect.json.JsonConverter"
CONVERTERS = "org.apache.kafka.connect.converters."
STRING = "org.apache.kafka.connect.storage.StringConverter"
SIMPLE = "org.apache.kafka.connect.storage.SimpleHeaderConverter"

FIELDS = ("a", "b", "id", "card")
TOPICS = ("orders", "users", "orders-eu")
WORDS = st.sampled_from(["x", "web", "mobile", "alice", "Bob", "a-b", ""])
#: Header text that SimpleHeaderConverter reads as something else than a string: numbers,
#: booleans, lists, maps, dates.
HEADER_TEXTS = st.sampled_from(
    [
        "1.50",
        "42",
        "-7",
        "0.1",
        "1e3",
        "9223372036854775808",
        "true",
        "false",
        "[1,2]",
        '[1.5,"a"]',
        '{"a":1}',
        "2024-01-02",
    ]
)
_ENVELOPE = converters.load("json", {"schemas.enable": "true"})

# --- records ---------------------------------------------------------------------------------

_SCALARS = st.one_of(
    st.integers(-(2**40), 2**40),
    st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: round(x, 3)),
    WORDS,
    st.sampled_from(["42", "-7", "3.25", "true", "2024-01-02", "1700000000000"]),
    st.booleans(),
    st.none(),
)
_NESTED = st.dictionaries(st.sampled_from(FIELDS), _SCALARS, max_size=3)
SCHEMALESS_OBJECTS = st.dictionaries(
    st.sampled_from(FIELDS), st.one_of(_SCALARS, _NESTED, st.lists(st.integers(-5, 5), max_size=3)), max_size=4
)
SCHEMALESS = st.one_of(SCHEMALESS_OBJECTS, SCHEMALESS_OBJECTS, SCHEMALESS_OBJECTS, _SCALARS)

_FIELD_SCHEMAS = [
    Schema.INT8_SCHEMA,
    Schema.INT16_SCHEMA,
    Schema.INT32_SCHEMA,
    Schema.INT64_SCHEMA,
    Schema.FLOAT32_SCHEMA,
    Schema.FLOAT64_SCHEMA,
    Schema.BOOLEAN_SCHEMA,
    Schema.STRING_SCHEMA,
    Schema.BYTES_SCHEMA,
    Schema.OPTIONAL_INT64_SCHEMA,
    Schema.OPTIONAL_STRING_SCHEMA,
    Schema.OPTIONAL_FLOAT64_SCHEMA,
    Date.SCHEMA,
    Time.SCHEMA,
    Timestamp.SCHEMA,
    Decimal.schema(2),
    SchemaBuilder.int64().optional().default_value(5).build(),
    SchemaBuilder.array(Schema.INT32_SCHEMA).build(),
    SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).optional().build(),
]


def _struct(names: list[str], schemas: list[Schema], name: str | None) -> Schema:
    builder = SchemaBuilder.struct()
    if name:
        builder.name(name)
    for field, schema in zip(names, schemas):
        builder.field(field, schema)
    return builder.build()


def _leaf_struct():
    return st.lists(st.sampled_from(FIELDS), min_size=1, max_size=3, unique=True).flatmap(
        lambda names: st.lists(st.sampled_from(_FIELD_SCHEMAS), min_size=len(names), max_size=len(names)).map(
            lambda schemas: _struct(names, schemas, None)
        )
    )


STRUCT_SCHEMAS = st.lists(st.sampled_from(FIELDS), min_size=1, max_size=4, unique=True).flatmap(
    lambda names: st.tuples(
        st.lists(st.one_of(st.sampled_from(_FIELD_SCHEMAS), _leaf_struct()), min_size=len(names), max_size=len(names)),
        st.sampled_from([None, "com.example.Order"]),
    ).map(lambda parts: _struct(names, *parts))
)
WITH_SCHEMA = st.one_of(
    STRUCT_SCHEMAS,
    STRUCT_SCHEMAS,
    STRUCT_SCHEMAS,
    st.sampled_from([Schema.STRING_SCHEMA, Schema.INT64_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA]),
).flatmap(lambda schema: st.tuples(st.just(schema), connect_values(schema)))


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode()


def _schemaless_bytes(value: Any) -> bytes:
    return json.dumps(value).encode()


def part_bytes(mode: str, tombstones: bool = True):
    """Key or value bytes as the JSON converter in ``mode`` reads them; sometimes null (a tombstone)."""
    if mode == "schemaless":
        data = SCHEMALESS.map(_schemaless_bytes)
    else:
        data = WITH_SCHEMA.map(lambda sv: _ENVELOPE.from_connect_data("t", sv[0], sv[1]))
    if tombstones:
        data = st.one_of(data, data, data, data, data, st.none())
    return data


HEADERS = st.lists(
    st.tuples(st.sampled_from(["h1", "h2", "card"]), st.one_of(WORDS, HEADER_TEXTS, st.none())), max_size=2
).map(lambda pairs: [[name, None if value is None else _b64(value.encode())] for name, value in pairs])


def record(mode: str):
    """One record whose key and value the JSON converters of ``mode`` read."""
    return st.fixed_dictionaries(
        {
            "topic": st.sampled_from(TOPICS),
            "partition": st.integers(0, 2),
            "timestamp": st.one_of(st.integers(1_600_000_000_000, 1_800_000_000_000), st.none()),
            "key": part_bytes(mode).map(_b64),
            "value": part_bytes(mode).map(_b64),
            "headers": HEADERS,
        }
    )


#: Records per case.  Records are drawn from a pool made once per session (a record with a
#: schema costs hypothesis ~25 ms to build; cases pick theirs from the pool by index).
RECORDS_PER_CASE = 6


def records(pool: list[dict]):
    """:data:`RECORDS_PER_CASE` records drawn from ``pool``, numbered by offset."""
    return st.lists(st.sampled_from(pool), min_size=RECORDS_PER_CASE, max_size=RECORDS_PER_CASE).map(
        lambda rows: [{**row, "offset": offset} for offset, row in enumerate(rows)]
    )


def json_converters(mode: str) -> dict[str, str]:
    enabled = "true" if mode == "schema" else "false"
    return {
        "key.converter": JSON,
        "key.converter.schemas.enable": enabled,
        "value.converter": JSON,
        "value.converter.schemas.enable": enabled,
    }


# --- transform configurations ----------------------------------------------------------------

_FIELD = st.sampled_from(FIELDS)
_FIELD_LIST = st.lists(_FIELD, min_size=1, max_size=3, unique=True).map(",".join)
_V2 = st.sampled_from([{}, {}, {"field.syntax.version": "V2"}])
_NESTED_FIELD = st.one_of(_FIELD, st.sampled_from(["a.b", "a.id", "b.card"]))


def _with(*parts) -> Any:
    """The union of several dict strategies."""
    return st.tuples(*parts).map(lambda dicts: {k: v for d in dicts for k, v in d.items()})


def _optional(key: str, strategy) -> Any:
    return st.one_of(st.just({}), strategy.map(lambda v: {key: v}))


def _insert_field():
    marked = _FIELD.flatmap(lambda f: st.sampled_from([f, f + "!", f + "?"]))
    return _with(
        _optional("topic.field", marked),
        _optional("partition.field", marked),
        _optional("offset.field", marked),
        _optional("timestamp.field", marked),
        _optional("static.field", marked),
        _optional("static.value", WORDS),
        _optional("replace.null.with.default", st.sampled_from(["true", "false"])),
    )


def _replace_field():
    renames = st.lists(st.tuples(_FIELD, st.sampled_from(["x", "y", "id"])), max_size=2).map(
        lambda pairs: ",".join(f"{a}:{b}" for a, b in pairs)
    )
    return _with(
        _optional("exclude", _FIELD_LIST),
        _optional("include", _FIELD_LIST),
        _optional("renames", renames),
        st.sampled_from([{}, {}, {}, {"blacklist": "card"}, {"whitelist": "id,a"}]),
    )


def _cast():
    types = st.sampled_from(["int8", "int16", "int32", "int64", "float32", "float64", "boolean", "string"])
    per_field = st.lists(st.tuples(_FIELD, types), min_size=1, max_size=3).map(
        lambda pairs: ",".join(f"{f}:{t}" for f, t in pairs)
    )
    return st.one_of(per_field, per_field, types).map(lambda spec: {"spec": spec})


def _timestamp_converter():
    target = st.sampled_from(["string", "unix", "Date", "Time", "Timestamp"])
    return _with(
        _optional("field", _FIELD),
        target.map(lambda t: {"target.type": t}),
        st.sampled_from([{}, {"format": "yyyy-MM-dd"}, {"format": "yyyy-MM-dd'T'HH:mm:ss.SSS"}]),
        _optional("unix.precision", st.sampled_from(["seconds", "milliseconds", "microseconds"])),
    )


#: Transform family -> (Kafka class without $Key/$Value, has Key/Value variants, settings strategy).
TRANSFORMS = {
    "InsertField": (True, _insert_field),
    "ReplaceField": (True, _replace_field),
    "MaskField": (
        True,
        lambda: _with(
            _FIELD_LIST.map(lambda f: {"fields": f}), _optional("replacement", st.sampled_from(["****", "0", "x"]))
        ),
    ),
    "ValueToKey": (False, lambda: _FIELD_LIST.map(lambda f: {"fields": f})),
    "ExtractField": (True, lambda: _with(_NESTED_FIELD.map(lambda f: {"field": f}), _V2)),
    "HoistField": (True, lambda: _FIELD.map(lambda f: {"field": f})),
    "Flatten": (True, lambda: _optional("delimiter", st.sampled_from([".", "_"]))),
    "Cast": (True, _cast),
    "TimestampConverter": (True, _timestamp_converter),
    "TimestampRouter": (
        False,
        lambda: _with(
            _optional("topic.format", st.sampled_from(["${topic}-${timestamp}", "x-${timestamp}"])),
            _optional("timestamp.format", st.sampled_from(["yyyyMMdd", "yyyy-MM"])),
        ),
    ),
    "RegexRouter": (
        False,
        lambda: st.sampled_from(
            [
                {"regex": "(.*)s", "replacement": "$1-x"},
                {"regex": "orders(.*)", "replacement": "all$1"},
                {"regex": "u.*", "replacement": "people"},
            ]
        ),
    ),
    "SetSchemaMetadata": (
        True,
        lambda: _with(
            _optional("schema.name", st.sampled_from(["com.example.Renamed"])),
            _optional("schema.version", st.sampled_from(["2", "7"])),
        ),
    ),
    "InsertHeader": (
        False,
        lambda: st.fixed_dictionaries(
            {
                "header": st.sampled_from(["origin", "h1"]),
                "value.literal": st.sampled_from(["web", "42", "true", "[1,2]", "3.5", "2024-01-02"]),
            }
        ),
    ),
    "DropHeaders": (
        False,
        lambda: st.lists(st.sampled_from(["h1", "h2", "card"]), min_size=1, max_size=2, unique=True).map(
            lambda h: {"headers": ",".join(h)}
        ),
    ),
    "HeaderFrom": (
        True,
        lambda: _with(
            st.lists(_FIELD, min_size=1, max_size=2, unique=True).map(
                lambda f: {"fields": ",".join(f), "headers": ",".join(f"hf-{x}" for x in f)}
            ),
            st.sampled_from([{"operation": "copy"}, {"operation": "move"}]),
        ),
    ),
}


#: Every transform class the oracle runs: each family's Key and Value variants, or the family itself.
TRANSFORM_CLASSES = [
    name
    for family, (variants, _) in TRANSFORMS.items()
    for name in ([f"{family}$Key", f"{family}$Value"] if variants else [family])
]


def transform_case(name: str, pools: dict[str, list[dict]]):
    """A pipeline case running the transform class ``name`` (``InsertField$Value``, ``RegexRouter``).

    ``pools`` holds the records to draw from, by mode (``schemaless``, ``schema``).
    """
    _, settings = TRANSFORMS[name.split("$")[0]]
    mode = st.sampled_from(["schemaless", "schema"])
    return st.tuples(settings(), mode).flatmap(
        lambda parts: records(pools[parts[1]]).map(
            lambda rows: {
                "kind": "pipeline",
                "plugin": name,
                "config": {
                    **json_converters(parts[1]),
                    "transforms": "t",
                    "transforms.t.type": T + name,
                    **{f"transforms.t.{k}": v for k, v in parts[0].items()},
                },
                "records": rows,
            }
        )
    )


# --- predicates ------------------------------------------------------------------------------

PREDICATES = {
    "TopicNameMatches": st.sampled_from([{"pattern": "orders.*"}, {"pattern": "users"}, {"pattern": ".*-eu"}]),
    "HasHeaderKey": st.sampled_from([{"name": "h1"}, {"name": "card"}]),
    "RecordIsTombstone": st.just({}),
}


def predicate_case(name: str, pools: dict[str, list[dict]]):
    """A pipeline case where ``name`` (maybe negated) decides whether Filter or InsertHeader applies."""
    gated = st.sampled_from(
        [
            {"transforms.t.type": T + "Filter"},
            {
                "transforms.t.type": T + "InsertHeader",
                "transforms.t.header": "gated",
                "transforms.t.value.literal": "yes",
            },
        ]
    )
    negate = st.sampled_from([{}, {"transforms.t.negate": "true"}, {"transforms.t.negate": "false"}])
    mode = st.sampled_from(["schemaless", "schema"])
    return st.tuples(PREDICATES[name], gated, negate, mode).flatmap(
        lambda parts: records(pools[parts[3]]).map(
            lambda rows: {
                "kind": "pipeline",
                "plugin": name,
                "config": {
                    **json_converters(parts[3]),
                    "transforms": "t",
                    **parts[1],
                    **parts[2],
                    "transforms.t.predicate": "p",
                    "predicates": "p",
                    "predicates.p.type": P + name,
                    **{f"predicates.p.{k}": v for k, v in parts[0].items()},
                },
                "records": rows,
            }
        )
    )


# --- converters ------------------------------------------------------------------------------

_NUMBERS = {
    "ShortConverter": 2,
    "IntegerConverter": 4,
    "LongConverter": 8,
    "FloatConverter": 4,
    "DoubleConverter": 8,
    "BooleanConverter": 1,
}


def _converter_bytes(name: str):
    """Bytes for ``name`` to read: mostly well formed, some not."""
    if name in _NUMBERS:
        size = _NUMBERS[name]
        good = st.binary(min_size=size, max_size=size)
        if name == "BooleanConverter":
            good = st.sampled_from([b"\x00", b"\x01", b"\x01"])
        return st.one_of(good, good, good, st.binary(max_size=9), st.none())
    if name == "JsonConverter":
        return st.one_of(part_bytes("schemaless"), part_bytes("schema"), st.binary(max_size=6))
    return st.one_of(
        st.binary(max_size=12), st.text(max_size=12).map(str.encode), HEADER_TEXTS.map(str.encode), st.none()
    )


def _envelopes():
    """(schema, value) pairs to write, as JsonConverter envelopes (schemaless ones too)."""
    primitives = st.sampled_from(
        [
            Schema.INT8_SCHEMA,
            Schema.INT16_SCHEMA,
            Schema.INT32_SCHEMA,
            Schema.INT64_SCHEMA,
            Schema.FLOAT32_SCHEMA,
            Schema.FLOAT64_SCHEMA,
            Schema.BOOLEAN_SCHEMA,
            Schema.STRING_SCHEMA,
            Schema.BYTES_SCHEMA,
            Schema.OPTIONAL_INT64_SCHEMA,
            Date.SCHEMA,
            Decimal.schema(2),
        ]
    )
    schema_values = st.one_of(primitives, STRUCT_SCHEMAS).flatmap(lambda s: st.tuples(st.just(s), connect_values(s)))
    with_schema = schema_values.map(lambda sv: _ENVELOPE.from_connect_data("t", *sv).decode())
    schemaless = SCHEMALESS.map(lambda v: json.dumps({"schema": None, "payload": v}))
    return st.one_of(with_schema, with_schema, schemaless)


#: Converter -> its settings (Kafka class name under ``converters``/``storage``/``json``).
CONVERTER_CLASSES = {
    **{name: CONVERTERS + name for name in _NUMBERS},
    "ByteArrayConverter": CONVERTERS + "ByteArrayConverter",
    "StringConverter": STRING,
    "JsonConverter": JSON,
    "SimpleHeaderConverter": SIMPLE,
}
_HEADER_ONLY = {"SimpleHeaderConverter"}


def _converter_settings(name: str):
    if name == "JsonConverter":
        return _with(
            st.sampled_from([{"schemas.enable": "true"}, {"schemas.enable": "false"}]),
            st.sampled_from([{}, {"decimal.format": "NUMERIC"}]),
        )
    if name == "StringConverter":
        return st.sampled_from([{}, {"converter.encoding": "UTF-16"}, {"converter.encoding": "ISO-8859-1"}])
    return st.just({})


def converter_case(name: str, direction: str):
    """A ``to_connect`` or ``from_connect`` case of 8 items for converter ``name``."""
    header = st.just(True) if name in _HEADER_ONLY else st.booleans()
    items = (
        st.lists(_converter_bytes(name), min_size=8, max_size=8).map(lambda d: {"data": [_b64(x) for x in d]})
        if direction == "to_connect"
        else st.lists(_envelopes(), min_size=8, max_size=8).map(lambda e: {"items": e})
    )
    return st.tuples(_converter_settings(name), header, st.booleans(), items).map(
        lambda parts: {
            "kind": direction,
            "plugin": name,
            "converter": CONVERTER_CLASSES[name],
            "config": parts[0],
            "header": parts[1],
            "is_key": parts[2] and not parts[1],
            "topic": "t",
            **parts[3],
        }
    )


# --- chains and converter pairs --------------------------------------------------------------

#: Converters a pipeline may read and write keys, values or headers with: (settings, the bytes
#: strategy for data that converter reads).
_PART_CONVERTERS = {
    "json": ({"": JSON, ".schemas.enable": "true"}, lambda: part_bytes("schema")),
    "json-schemaless": ({"": JSON, ".schemas.enable": "false"}, lambda: part_bytes("schemaless")),
    "string": ({"": STRING}, lambda: st.one_of(st.text(max_size=12).map(str.encode), HEADER_TEXTS.map(str.encode))),
    "bytearray": ({"": CONVERTERS + "ByteArrayConverter"}, lambda: st.binary(max_size=8)),
    **{
        name.lower(): ({"": CONVERTERS + name}, lambda size=size: st.binary(min_size=size, max_size=size))
        for name, size in _NUMBERS.items()
        if name != "BooleanConverter"
    },
    # Bytes a BooleanConverter reads: a header it cannot read fails the record in Kafka before
    # any transform and stays bytes here (see the compatibility page), so chains give it none.
    "booleanconverter": ({"": CONVERTERS + "BooleanConverter"}, lambda: st.sampled_from([b"\x00", b"\x01"])),
}


def _converter_keys(role: str, kind: str) -> dict[str, str]:
    settings, _ = _PART_CONVERTERS[kind]
    return {role + suffix: value for suffix, value in settings.items()}


#: Converters that read a null without a schema here, with one in Kafka: a null they read meets
#: tombstone-pass-through in most chains, so chains give them no nulls (the single-transform cases
#: and converter cases cover them).
_NO_NULLS = ("string", "bytearray")


def _chain_record(key_kind: str, value_kind: str, header_kind: str):
    def part(kind: str):
        strategy = _PART_CONVERTERS[kind][1]()
        if kind in _NO_NULLS:
            return strategy.map(_b64)
        return st.one_of(strategy, strategy, strategy, st.none()).map(_b64)

    header_value = _PART_CONVERTERS[header_kind][1]()
    headers = st.lists(
        st.tuples(st.sampled_from(["h1", "h2", "card"]), st.one_of(header_value, st.none()).map(_b64)), max_size=2
    ).map(lambda pairs: [list(pair) for pair in pairs])
    return st.fixed_dictionaries(
        {
            "topic": st.sampled_from(TOPICS),
            "partition": st.integers(0, 2),
            "timestamp": st.one_of(st.integers(1_600_000_000_000, 1_800_000_000_000), st.none()),
            "key": part(key_kind),
            "value": part(value_kind),
            "headers": headers,
        }
    )


#: Families a chain draws its stages from: ReplaceField without renames (collisions are checked
#: only where ReplaceField comes first, see tests/oracle/_twins.py); not SetSchemaMetadata, whose
#: deviation on primitive schemas would meet the others' on most records of non-JSON converters.
_CHAIN_FAMILIES = [family for family in TRANSFORMS if family != "SetSchemaMetadata"]


def _stage(alias: str, predicates: list[str]):
    def settings_for(family: str):
        variants, settings = TRANSFORMS[family]
        name = st.sampled_from([f"{family}$Key", f"{family}$Value"]) if variants else st.just(family)
        strategy = settings()
        if family == "ReplaceField":
            strategy = strategy.map(lambda s: {k: v for k, v in s.items() if k != "renames"})
        return st.tuples(name, strategy)

    gate = st.one_of(
        st.just({}),
        st.tuples(st.sampled_from(predicates), st.sampled_from([{}, {"negate": "true"}, {"negate": "false"}])).map(
            lambda p: {"predicate": p[0], **p[1]}
        ),
    )
    return st.tuples(st.sampled_from(_CHAIN_FAMILIES).flatmap(settings_for), gate).map(
        lambda parts: {
            f"transforms.{alias}.type": T + parts[0][0],
            **{f"transforms.{alias}.{k}": v for k, v in {**parts[0][1], **parts[1]}.items()},
        }
    )


def chain_case(records_per_case: int = RECORDS_PER_CASE):
    """A pipeline case: 2 to 4 transforms, some gated by a predicate (maybe negated), with any pair
    of key and value converters and a header converter; records made for those converters."""
    predicates = st.tuples(*(st.sampled_from(list(PREDICATES)) for _ in range(2))).flatmap(
        lambda names: st.tuples(*(PREDICATES[n].map(lambda s, n=n: (n, s)) for n in names))
    )
    kinds = st.tuples(
        st.sampled_from(list(_PART_CONVERTERS)),
        st.sampled_from(list(_PART_CONVERTERS)),
        st.sampled_from(["simple", *_PART_CONVERTERS]),
    )

    def build(draw_parts):
        (key_kind, value_kind, header_kind), chosen, count = draw_parts
        aliases = [f"t{i}" for i in range(1, count + 1)]
        header = {} if header_kind == "simple" else _converter_keys("header.converter", header_kind)
        config = {
            **_converter_keys("key.converter", key_kind),
            **_converter_keys("value.converter", value_kind),
            **header,
            "transforms": ",".join(aliases),
            "predicates": "p1,p2",
        }
        for index, (name, settings) in enumerate(chosen, start=1):
            config[f"predicates.p{index}.type"] = P + name
            config.update({f"predicates.p{index}.{k}": v for k, v in settings.items()})
        stages = st.tuples(*(_stage(alias, ["p1", "p2"]) for alias in aliases))
        rows = st.lists(
            _chain_record(key_kind, value_kind, header_kind if header_kind != "simple" else "string"),
            min_size=records_per_case,
            max_size=records_per_case,
        ).map(lambda rows: [{**row, "offset": offset} for offset, row in enumerate(rows)])
        return st.tuples(stages, rows).map(
            lambda parts: {
                "kind": "pipeline",
                "plugin": f"chain of {count}",
                "config": {**config, **{k: v for stage in parts[0] for k, v in stage.items()}},
                "records": parts[1],
            }
        )

    return st.tuples(kinds, predicates, st.integers(2, 4)).flatmap(build)


def hoisted_strings_case(kind: str, variant: str):
    """HoistField$``variant`` over keys or values that the ``kind`` converter (``string`` or
    ``bytearray``) read, nulls too."""
    config = {
        **_converter_keys("key.converter", kind),
        **_converter_keys("value.converter", kind),
        "transforms": "t",
        "transforms.t.type": f"{T}HoistField${variant}",
        "transforms.t.field": "f",
    }
    record = _chain_record(kind, kind, "string")
    with_nulls = st.one_of(record, record, record.map(lambda r: {**r, "key": None, "value": None}))
    rows = st.lists(with_nulls, min_size=RECORDS_PER_CASE, max_size=RECORDS_PER_CASE)
    return rows.map(
        lambda rows: {
            "kind": "pipeline",
            "plugin": f"HoistField${variant} over {kind}",
            "config": config,
            "records": [{**row, "offset": offset} for offset, row in enumerate(rows)],
        }
    )


# --- TimestampConverter ----------------------------------------------------------------------

_FORMATS = ["yyyy-MM-dd", "yyyy-MM-dd'T'HH:mm:ss.SSS", "dd/MM/yyyy HH:mm", "yyyyMMddHHmmssSSS Z"]
#: Unix numbers in every precision's range, some far enough to leave the years 1-9999 as seconds.
_UNIX = st.one_of(
    st.integers(-(2**41), 2**41),
    st.integers(-(10**7), 10**7),
    st.integers(253_402_300_800, 2**45),
    st.integers(-(2**45), -62_135_596_801),
)
_TEXT_TIMES = st.sampled_from(
    ["2024-01-02", "2024-02-29T23:59:59.999", "01/02/2024 10:11", "20240102101112345 +0000", "31/12/1969 23:59", "x"]
)
_TIME_SCHEMAS = [Timestamp.SCHEMA, Date.SCHEMA, Time.SCHEMA, Schema.INT64_SCHEMA, Schema.STRING_SCHEMA]


def _timestamp_part(field: str | None, mode: str):
    """Key or value bytes (JSON, schemaless or in an envelope as ``mode`` says) holding a time, at
    ``field`` or whole."""
    schemaless_time = st.one_of(_UNIX, _TEXT_TIMES)
    schemaless = schemaless_time if field is None else st.fixed_dictionaries({field: schemaless_time, "other": WORDS})

    def enveloped(schema):
        if field is not None:
            schema = SchemaBuilder.struct().field(field, schema).field("other", Schema.STRING_SCHEMA).build()
        values = connect_values(schema)
        if schema is Schema.INT64_SCHEMA or (field and schema.field(field).schema is Schema.INT64_SCHEMA):
            values = _UNIX if field is None else _UNIX.map(lambda n: _struct_with(schema, field, n))
        return values.map(lambda v: _ENVELOPE.from_connect_data("t", schema, v))

    if mode == "schema":
        return st.sampled_from(_TIME_SCHEMAS).flatmap(enveloped)
    return schemaless.map(_schemaless_bytes)


def _struct_with(schema: Schema, field: str, number: int):
    from smt.data import Struct

    return Struct(schema).put(field, number).put("other", "x")


def timestamp_case(variant: str):
    """TimestampConverter$``variant`` over times of every kind: unix numbers (some beyond the
    years 1-9999 as seconds), text in the configured formats, Date/Time/Timestamp fields."""
    settings = st.fixed_dictionaries(
        {
            "field": st.sampled_from(["", "ts"]),
            "target.type": st.sampled_from(["string", "unix", "Date", "Time", "Timestamp"]),
            "format": st.sampled_from(_FORMATS),
            "unix.precision": st.sampled_from(["seconds", "milliseconds", "microseconds", "nanoseconds"]),
        }
    )

    def build(parts):
        config, mode = parts
        part = _timestamp_part(config["field"] or None, mode)
        record = st.fixed_dictionaries(
            {
                "topic": st.sampled_from(TOPICS),
                "partition": st.just(0),
                "timestamp": st.just(1_700_000_000_000),
                "key": part.map(_b64),
                "value": part.map(_b64),
                "headers": st.just([]),
            }
        )
        return st.lists(record, min_size=RECORDS_PER_CASE, max_size=RECORDS_PER_CASE).map(
            lambda rows: {
                "kind": "pipeline",
                "plugin": f"TimestampConverter${variant} over times",
                "config": {
                    **json_converters(mode),
                    "transforms": "t",
                    "transforms.t.type": f"{T}TimestampConverter${variant}",
                    **{f"transforms.t.{k}": v for k, v in config.items()},
                },
                "records": [{**row, "offset": offset} for offset, row in enumerate(rows)],
            }
        )

    return st.tuples(settings, st.sampled_from(["schema", "schemaless"])).flatmap(build)
