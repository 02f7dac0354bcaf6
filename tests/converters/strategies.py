"""Hypothesis strategies: Connect schemas and values that fit them."""

import datetime as dt
import decimal

from hypothesis import strategies as st

from smt.data import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp, Type

UTC = dt.timezone.utc
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)
FINITE = st.floats(allow_nan=False, allow_infinity=False)
INT_RANGES = {Type.INT8: 7, Type.INT16: 15, Type.INT32: 31, Type.INT64: 63}

PRIMITIVES = [
    Schema.INT8_SCHEMA,
    Schema.INT16_SCHEMA,
    Schema.INT32_SCHEMA,
    Schema.INT64_SCHEMA,
    Schema.FLOAT64_SCHEMA,
    Schema.BOOLEAN_SCHEMA,
    Schema.STRING_SCHEMA,
    Schema.BYTES_SCHEMA,
    Date.SCHEMA,
    Time.SCHEMA,
    Timestamp.SCHEMA,
    Decimal.schema(0),
    Decimal.schema(3),
]


def _maybe_optional(schema):
    if schema.optional:
        return st.just(schema)
    return st.sampled_from([schema, SchemaBuilder.copy_of(schema).optional().build()])


def schemas(max_depth=2, string_keys_only=False, field_prefix="f"):
    """Connect schemas: primitives, logical types, arrays, maps and structs, some optional."""
    leaves = st.sampled_from(PRIMITIVES).flatmap(_maybe_optional)
    if max_depth == 0:
        return leaves
    inner = schemas(max_depth - 1, string_keys_only, field_prefix)
    key_schemas = (
        st.just(Schema.STRING_SCHEMA)
        if string_keys_only
        else st.sampled_from([Schema.STRING_SCHEMA, Schema.INT32_SCHEMA])
    )
    arrays = inner.map(lambda s: SchemaBuilder.array(s).build())
    maps = st.tuples(key_schemas, inner).map(lambda kv: SchemaBuilder.map(*kv).build())
    structs = st.lists(inner, min_size=1, max_size=4).map(_struct_of)
    return st.one_of(leaves, arrays, maps, structs).flatmap(_maybe_optional)


def _struct_of(field_schemas):
    builder = SchemaBuilder.struct()
    for index, schema in enumerate(field_schemas):
        builder.field(f"f{index}", schema)
    return builder.build()


def values(schema, allow_null=True):
    """Values that fit ``schema`` (None only where it is optional)."""
    strategy = _required_values(schema)
    if schema.optional and allow_null:
        return st.one_of(st.none(), strategy)
    return strategy


def _required_values(schema):
    if schema.name == Decimal.LOGICAL_NAME:
        scale = Decimal.scale(schema)
        return st.integers(-(10**12), 10**12).map(lambda n: decimal.Decimal(n).scaleb(-scale))
    if schema.name == Date.LOGICAL_NAME:
        return st.dates(dt.date(1900, 1, 1), dt.date(2200, 1, 1))
    if schema.name == Time.LOGICAL_NAME:
        return st.integers(0, 86_399_999).map(
            lambda ms: dt.time(ms // 3_600_000, ms // 60_000 % 60, ms // 1000 % 60, ms % 1000 * 1000)
        )
    if schema.name == Timestamp.LOGICAL_NAME:
        return st.integers(-(2**40), 2**42).map(
            lambda ms: dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(milliseconds=ms)
        )
    type_ = schema.type
    if type_ in INT_RANGES:
        bits = INT_RANGES[type_]
        return st.integers(-(2**bits), 2**bits - 1)
    if type_ is Type.FLOAT32:
        return st.floats(width=32, allow_nan=False, allow_infinity=False)
    if type_ is Type.FLOAT64:
        return FINITE
    if type_ is Type.BOOLEAN:
        return st.booleans()
    if type_ is Type.STRING:
        return TEXT
    if type_ is Type.BYTES:
        return st.binary(max_size=20)
    if type_ is Type.ARRAY:
        return st.lists(values(schema.value_schema), max_size=4)
    if type_ is Type.MAP:
        return st.dictionaries(values(schema.key_schema, allow_null=False), values(schema.value_schema), max_size=4)
    return st.tuples(*[values(f.schema) for f in schema.fields]).map(
        lambda vals: Struct(schema).put_all({f.name: v for f, v in zip(schema.fields, vals)})
    )


def schema_and_value(**kwargs):
    return schemas(**kwargs).flatmap(lambda s: st.tuples(st.just(s), values(s)))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | FINITE | TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=12,
)
