"""ReplaceField, with the cases of Kafka's ReplaceFieldTest."""

import pytest

from smt.batch import RecordBatch
from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import ConfigError
from smt.transforms.replace_field import ReplaceFieldKey, ReplaceFieldValue
from tests.smt.transforms._helpers import RaisingErrors, conf, make_record

SCHEMA = (
    SchemaBuilder.struct()
    .field("dont", Schema.STRING_SCHEMA)
    .field("abc", Schema.INT32_SCHEMA)
    .field("foo", Schema.BOOLEAN_SCHEMA)
    .field("etc", Schema.STRING_SCHEMA)
    .build()
)
INCLUDE_RENAME = {"include": "abc,foo", "renames": "abc:xyz,foo:bar"}


def test_tombstone_schemaless():
    out = conf(ReplaceFieldValue, INCLUDE_RENAME).apply(make_record(None))
    assert out.value is None and out.value_schema is None


def test_tombstone_with_schema():
    out = conf(ReplaceFieldValue, INCLUDE_RENAME).apply(make_record(None, value_schema=SCHEMA))
    assert out.value is None and out.value_schema == SCHEMA


def test_schemaless():
    out = conf(ReplaceFieldValue, {"exclude": "dont", "renames": "abc:xyz,foo:bar"}).apply(
        make_record({"dont": "whatever", "abc": 42, "foo": True, "etc": "etc"})
    )
    assert out.value == {"xyz": 42, "bar": True, "etc": "etc"}


def test_with_schema():
    value = Struct(SCHEMA).put("dont", "whatever").put("abc", 42).put("foo", True).put("etc", "etc")
    xform = conf(ReplaceFieldValue, INCLUDE_RENAME)
    out = xform.apply(make_record(value, value_schema=SCHEMA))
    assert [f.name for f in out.value_schema.fields] == ["xyz", "bar"]
    assert (out.value.get_int32("xyz"), out.value.get_boolean("bar")) == (42, True)
    again = xform.apply(make_record(value, value_schema=SCHEMA))
    assert again.value_schema is out.value_schema and xform.schema_cache.misses == 1


@pytest.mark.parametrize("cls", [ReplaceFieldValue, ReplaceFieldKey])
@pytest.mark.parametrize("replace_null_with_default, expected", [("false", None), ("true", 42)])
def test_replace_null_with_default(cls, replace_null_with_default, expected):
    schema = SchemaBuilder.struct().field("abc", SchemaBuilder.int32().optional().default_value(42).build()).build()
    xform = conf(
        cls,
        {
            "include": "abc",
            "renames": "abc:optional_with_default",
            "replace.null.with.default": replace_null_with_default,
        },
    )
    struct = Struct(schema).put("abc", None)
    record = (
        make_record(struct, value_schema=schema)
        if cls is ReplaceFieldValue
        else make_record(None, key=struct, key_schema=schema)
    )
    out = xform.apply(record)
    part = out.value if cls is ReplaceFieldValue else out.key
    assert len(part.schema.fields) == 1 and part.get_without_default("optional_with_default") == expected


@pytest.mark.parametrize(
    "props, expected",
    [
        ({"exclude": "a", "include": "a,b"}, {"b": 2}),  # exclude wins over include
        ({"include": "b,zzz"}, {"b": 2}),
        ({}, {"a": 1, "b": 2, "c": 3}),
        ({"renames": "a:b,b:a"}, {"b": 1, "a": 2, "c": 3}),
    ],
)
def test_filter_rules(props, expected):
    assert conf(ReplaceFieldValue, props).apply(make_record({"a": 1, "b": 2, "c": 3})).value == expected


@pytest.mark.parametrize("renames", ["abc", "a:b:c", "a:b,c"])
def test_invalid_rename_mapping(renames):
    with pytest.raises(ConfigError, match="transforms.t.renames: Invalid rename mapping: "):
        conf(ReplaceFieldValue, {"renames": renames})


@pytest.mark.parametrize("present", ["id", "b"])
def test_two_renames_to_one_name_take_the_value_of_the_field_the_record_has(present):
    """Oracle case: ``id:y,b:y`` on a struct with one of them; the value of y is that field's."""
    schema = SchemaBuilder.struct().field(present, Schema.INT32_SCHEMA).field("a", Schema.STRING_SCHEMA).build()
    value = Struct(schema).put(present, 191).put("a", "x")
    out = conf(ReplaceFieldValue, {"include": "b,a,id", "renames": "id:y,b:y"}).apply(
        make_record(value, value_schema=schema)
    )
    assert [f.name for f in out.value_schema.fields] == ["y", "a"]
    assert (out.value.get("y"), out.value.get("a")) == (191, "x")


# --- V2 paths (beyond Kafka) ----------------------------------------------------------------------

NESTED_VALUE = {"id": 1, "user": {"name": "n", "ssn": "s", "addr": {"zip": "z", "city": "c"}}, "x": 0}


@pytest.mark.parametrize(
    "props, expected",
    [
        ({"exclude": "user.ssn"}, {"id": 1, "user": {"name": "n", "addr": {"zip": "z", "city": "c"}}, "x": 0}),
        ({"include": "id,user.addr.zip"}, {"id": 1, "user": {"addr": {"zip": "z"}}}),
        ({"include": "user", "exclude": "user.addr"}, {"user": {"name": "n", "ssn": "s"}}),
        (
            {"renames": "user.name:full_name,x:y"},
            {"id": 1, "user": {"full_name": "n", "ssn": "s", "addr": {"zip": "z", "city": "c"}}, "y": 0},
        ),
        ({"exclude": "`user.ssn`"}, NESTED_VALUE),
        ({"exclude": "x"}, {"id": 1, "user": NESTED_VALUE["user"]}),
    ],
)
def test_v2_schemaless(props, expected):
    xform = conf(ReplaceFieldValue, {**props, "field.syntax.version": "V2"})
    assert xform.apply(make_record(NESTED_VALUE)).value == expected


def test_v2_with_schema():
    addr = SchemaBuilder.struct().field("zip", Schema.STRING_SCHEMA).field("city", Schema.STRING_SCHEMA).build()
    user = (
        SchemaBuilder.struct()
        .field("name", Schema.STRING_SCHEMA)
        .field("ssn", Schema.STRING_SCHEMA)
        .field("addr", addr)
        .build()
    )
    schema = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).field("user", user).build()
    value = (
        Struct(schema)
        .put("id", 1)
        .put(
            "user",
            Struct(user).put("name", "n").put("ssn", "s").put("addr", Struct(addr).put("zip", "z").put("city", "c")),
        )
    )
    xform = conf(
        ReplaceFieldValue,
        {"exclude": "user.ssn", "renames": "user.addr.zip:postcode", "include": "user", "field.syntax.version": "V2"},
    )
    out = xform.apply(make_record(value, value_schema=schema))
    assert [f.name for f in out.value_schema.fields] == ["user"]
    out_user = out.value.get("user")
    assert [f.name for f in out_user.schema.fields] == ["name", "addr"]
    assert out_user.get("addr").get("postcode") == "z" and out_user.get("name") == "n"


def test_v2_top_level_paths_use_the_fast_path():
    xform = conf(ReplaceFieldValue, {"exclude": "a", "renames": "b:c", "field.syntax.version": "V2"})
    assert xform.nested is None
    assert xform.apply(make_record({"a": 1, "b": 2})).value == {"c": 2}


# --- deprecated names (#12): Kafka 3.x's blacklist/whitelist keep their meaning ---------


def test_blacklist_drops_the_field_as_exclude_does():
    out = conf(ReplaceFieldValue, {"blacklist": "card"}).apply(make_record({"card": "4111", "name": "a"}))
    assert out.value == {"name": "a"}


def test_whitelist_keeps_only_its_fields_as_include_does():
    value = Struct(SCHEMA).put("dont", "x").put("abc", 1).put("foo", False).put("etc", "e")
    out = conf(ReplaceFieldValue, {"whitelist": "abc"}).apply(make_record(value, value_schema=SCHEMA))
    assert [f.name for f in out.value_schema.fields] == ["abc"]


def test_exclude_wins_over_blacklist_when_both_are_given():
    out = conf(ReplaceFieldValue, {"blacklist": "name", "exclude": "card"}).apply(
        make_record({"card": "4111", "name": "a"})
    )
    assert out.value == {"name": "a"}


def test_blacklist_in_a_chain_drops_the_card_number_in_batches_too():
    from smt.batch import RecordBatch
    from smt.chain import TransformChain

    chain = TransformChain.from_properties(
        {
            "transforms": "drop",
            "transforms.drop.type": "org.apache.kafka.connect.transforms.ReplaceField$Value",
            "transforms.drop.blacklist": "card",
        }
    )
    out = chain.apply_batch(RecordBatch.from_records([make_record({"card": "4111", "id": i}) for i in range(3)]))
    assert [r.value for r in out.records()] == [{"id": 0}, {"id": 1}, {"id": 2}]


@pytest.mark.parametrize(
    "props", [{"renames": "a:z"}, {"exclude": "b", "renames": "a:z"}, {"include": "a,z", "renames": "a:z"}]
)
def test_a_rename_onto_a_field_that_stays_wins_on_every_path(props):
    # The rename-collisions deviation: the renamed field wins, whatever the map's order.
    transform = conf(ReplaceFieldValue, props)
    for value in ({"a": 1, "z": 2}, {"z": 2, "a": 1}):
        assert transform.apply(make_record(dict(value))).value == {"z": 1}
        batch = transform.apply_batch(RecordBatch.from_records([make_record(dict(value))]), RaisingErrors())
        assert batch.value == [{"z": 1}]
