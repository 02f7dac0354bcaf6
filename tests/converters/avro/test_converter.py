"""AvroConverter without a registry: golden bytes both ways, type mapping and the error table."""

import datetime as dt
import decimal
import json

import pytest

import converters
from smt.converter import ConverterError
from smt.data import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp, Type
from smt.errors import ConfigError
from smt.plugin import PluginContext

UTC = dt.timezone.utc

ORDER_AVRO = {
    "type": "record",
    "name": "Order",
    "namespace": "shop",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "item", "type": "string"},
        {"name": "qty", "type": "int"},
        {"name": "note", "type": ["null", "string"], "default": None},
    ],
}

EVERYTHING_AVRO = {
    "type": "record",
    "name": "Everything",
    "namespace": "test",
    "fields": [
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "t_ms", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "t_us", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "ts_ms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "ts_us", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 4, "scale": 2}},
        {"name": "uid", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "colour", "type": {"type": "enum", "name": "Colour", "symbols": ["RED", "GREEN"]}},
        {"name": "tag", "type": {"type": "fixed", "name": "Tag", "size": 2}},
        {"name": "words", "type": {"type": "array", "items": "string"}},
        {"name": "counts", "type": {"type": "map", "values": "int"}},
        {
            "name": "addr",
            "type": ["null", {"type": "record", "name": "Addr", "fields": [{"name": "city", "type": "string"}]}],
        },
        {"name": "maybe", "type": ["null", "string"]},
    ],
}
EVERYTHING_BYTES = (
    b"\xa2\x9e\x02\xaa\xb2\x99+\x86\x9a\xb1\xbe\xd1\x02\x8a\xa8\x8a\x8d\x92\\\x9c\x8e\xc9\x98\xb6\xed\xcf\x05"
    b"\x02}H12345678-1234-5678-1234-567812345678\x02\x01\x02\x04\x02a\x02b\x00\x02\x02k\x0e\x00\x02\nDelft\x00"
)


def avro_converter(schema=ORDER_AVRO, is_key=False, **configs):
    configs = {k.replace("__", "."): v for k, v in configs.items()}
    return converters.load("avro", {"avro.schema": json.dumps(schema), **configs}, is_key=is_key)


def order(converter, id=1, item="ab", qty=-2, note=None):
    schema = converter.to_connect_data("t", b"\x02\x04ab\x03\x00")[0]
    return Struct(schema).put("id", id).put("item", item).put("qty", qty).put("note", note)


def everything(schema):
    addr = Struct(schema.field("addr").schema).put("city", "Delft")
    values = {
        "day": dt.date(2020, 2, 29),
        "t_ms": dt.time(12, 34, 56, 789000),
        "t_us": dt.time(12, 34, 56, 789123),
        "ts_ms": dt.datetime(2020, 2, 29, 12, 0, 0, 5000, tzinfo=UTC),
        "ts_us": dt.datetime(2020, 2, 29, 12, 0, 0, 5006, tzinfo=UTC),
        "price": decimal.Decimal("1.25"),
        "uid": "12345678-1234-5678-1234-567812345678",
        "colour": "GREEN",
        "tag": b"\x01\x02",
        "words": ["a", "b"],
        "counts": {"k": 7},
        "addr": addr,
        "maybe": None,
    }
    return Struct(schema).put_all(values)


class TestGolden:
    @pytest.mark.parametrize(
        "values, data",
        [
            ({"id": 1, "item": "ab", "qty": -2, "note": None}, b"\x02\x04ab\x03\x00"),
            ({"id": 1, "item": "ab", "qty": -2, "note": "x"}, b"\x02\x04ab\x03\x02\x02x"),
            ({"id": -64, "item": "", "qty": 64, "note": None}, b"\x7f\x00\x80\x01\x00"),
        ],
    )
    def test_record_both_ways(self, values, data):
        converter = avro_converter()
        schema, value = converter.to_connect_data("t", data)
        assert value == Struct(schema).put_all(values)
        assert converter.from_connect_data("t", schema, value) == data

    def test_every_logical_and_complex_type_both_ways(self):
        converter = avro_converter(EVERYTHING_AVRO)
        schema, value = converter.to_connect_data("t", EVERYTHING_BYTES)
        assert value == everything(schema)
        assert converter.from_connect_data("t", schema, value) == EVERYTHING_BYTES

    def test_plain_dicts_are_written_too(self):
        converter = avro_converter()
        assert converter.from_connect_data("t", None, {"id": 1, "item": "ab", "qty": -2, "note": None}) == (
            b"\x02\x04ab\x03\x00"
        )

    def test_struct_of_another_schema_is_written_by_field_name(self):
        reordered = (
            SchemaBuilder.struct()
            .name("Other")
            .field("note", Schema.OPTIONAL_STRING_SCHEMA)
            .field("qty", Schema.INT32_SCHEMA)
            .field("item", Schema.STRING_SCHEMA)
            .field("id", Schema.INT64_SCHEMA)
            .build()
        )
        value = Struct(reordered).put_all({"id": 1, "item": "ab", "qty": -2, "note": None})
        assert avro_converter().from_connect_data("t", reordered, value) == b"\x02\x04ab\x03\x00"

    def test_struct_of_another_schema_missing_a_field_is_refused(self):
        partial = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build()
        with pytest.raises(ConverterError, match=r"Field\(shop.Order.item\) is None expected string"):
            avro_converter().from_connect_data("t", partial, Struct(partial).put("id", 1))

    def test_null_is_a_tombstone(self):
        converter = avro_converter()
        assert converter.from_connect_data("t", None, None) is None
        assert converter.to_connect_data("t", None) == (None, None)

    def test_batch_matches_single(self):
        converter = avro_converter()
        data = [b"\x02\x04ab\x03\x00", None, b"\x02\x04ab\x03\x02\x02x"]
        schemas, values = converter.to_connect_batch(["t"] * 3, data)
        assert values == [converter.to_connect_data("t", d)[1] for d in data]
        assert converter.from_connect_batch(["t"] * 3, schemas, values) == data


class TestSchemaMapping:
    def test_connect_schema_of_a_record(self):
        schema = avro_converter(EVERYTHING_AVRO).to_connect_data("t", EVERYTHING_BYTES)[0]
        assert schema.name == "test.Everything" and schema.type is Type.STRUCT
        expected = {
            "day": Date.SCHEMA,
            "t_ms": Time.SCHEMA,
            "ts_ms": Timestamp.SCHEMA,
            "words": SchemaBuilder.array(Schema.STRING_SCHEMA).build(),
            "counts": SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(),
            "maybe": Schema.OPTIONAL_STRING_SCHEMA,
        }
        for name, field_schema in expected.items():
            assert schema.field(name).schema == field_schema, name
        assert Decimal.scale(schema.field("price").schema) == 2
        assert schema.field("t_us").schema.name == Time.LOGICAL_NAME
        assert schema.field("addr").schema.optional and schema.field("addr").schema.name == "test.Addr"
        assert schema.field("colour").schema.name == "test.Colour"

    def test_connect_schema_to_avro_and_back(self):
        connect = (
            SchemaBuilder.struct()
            .field("small", Schema.INT8_SCHEMA)
            .field("when", Timestamp.SCHEMA)
            .field("price", Decimal.schema(3))
            .field("by_id", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA))
            .field("maybe", Schema.OPTIONAL_FLOAT64_SCHEMA)
            .build()
        )
        from converters.avro._mapping import to_avro_schema, to_connect_schema

        avro = to_avro_schema(connect)
        assert avro["name"] == "io.confluent.connect.avro.ConnectDefault"
        assert avro["fields"][0]["type"] == {"type": "int", "connect.type": "int8"}
        assert avro["fields"][3]["type"]["type"] == "array"
        assert avro["fields"][4] == {"name": "maybe", "type": ["null", "double"], "default": None}
        back = to_connect_schema(avro)
        assert back.field("small").schema == Schema.INT8_SCHEMA
        assert back.field("when").schema == Timestamp.SCHEMA

    def test_a_struct_used_twice_is_defined_once_then_referred_to(self):
        from converters.avro._mapping import to_avro_schema

        point = SchemaBuilder.struct().name("geo.Point").field("x", Schema.INT32_SCHEMA).build()
        line = SchemaBuilder.struct().name("geo.Line").field("a", point).field("b", point).build()
        avro = to_avro_schema(line)
        assert avro["fields"][0]["type"]["name"] == "geo.Point" and avro["fields"][1]["type"] == "geo.Point"
        converter = avro_converter(avro)
        value = Struct(line).put("a", Struct(point).put("x", 1)).put("b", Struct(point).put("x", -1))
        data = converter.from_connect_data("t", line, value)
        assert data == b"\x02\x01"
        assert converter.to_connect_data("t", data)[1].to_dict() == {"a": {"x": 1}, "b": {"x": -1}}

    def test_enum_symbols_survive_the_round_trip(self):
        from converters.avro._mapping import to_avro_schema

        schema = avro_converter(EVERYTHING_AVRO).to_connect_data("t", EVERYTHING_BYTES)[0]
        colour = schema.field("colour").schema
        assert dict(colour.parameters) == {
            "io.confluent.connect.avro.Enum": "test.Colour",
            "io.confluent.connect.avro.Enum.RED": "RED",
            "io.confluent.connect.avro.Enum.GREEN": "GREEN",
        }
        avro = to_avro_schema(schema)
        assert avro["fields"][7]["type"] == {"type": "enum", "name": "test.Colour", "symbols": ["RED", "GREEN"]}
        assert avro["fields"][8]["type"] == {"type": "fixed", "name": "test.Tag", "size": 2}

    def test_recursive_types_are_refused_clearly(self):
        recursive = {"type": "record", "name": "Node", "fields": [{"name": "next", "type": ["null", "Node"]}]}
        with pytest.raises(ConfigError, match="recursive Avro type 'Node'"):
            avro_converter(recursive)


UNION_AVRO = {
    "type": "record",
    "name": "Event",
    "namespace": "ns",
    "fields": [
        {
            "name": "u",
            "type": [
                "null",
                "long",
                "string",
                {"type": "record", "name": "Click", "fields": [{"name": "x", "type": "int"}]},
                {"type": "enum", "name": "Kind", "symbols": ["A", "B"]},
            ],
        }
    ],
}


class TestUnions:
    """Unions map to Confluent's io.confluent.connect.avro.Union structs, one field per branch."""

    def union_schema(self):
        return avro_converter(UNION_AVRO).to_connect_data("t", b"\x00")[0].field("u").schema

    def test_union_schema(self):
        union = self.union_schema()
        assert union.name == "io.confluent.connect.avro.Union" and union.optional
        assert [(f.name, f.schema.type, f.schema.optional) for f in union.fields] == [
            ("long", Type.INT64, True),
            ("string", Type.STRING, True),
            ("Click", Type.STRUCT, True),
            ("Kind", Type.STRING, True),
        ]

    @pytest.mark.parametrize(
        "data, branch, value",
        [
            (b"\x02\x0e", "long", 7),
            (b"\x04\x04hi", "string", "hi"),
            (b"\x06\x04", "Click", {"x": 2}),
            (b"\x08\x02", "Kind", "B"),
        ],
    )
    def test_each_branch_both_ways(self, data, branch, value):
        converter = avro_converter(UNION_AVRO)
        schema, record = converter.to_connect_data("t", data)
        union = record.get("u")
        assert [name for name, v in union.items() if v is not None] == [branch]
        read = union.get(branch)
        assert (read.to_dict() if isinstance(read, Struct) else read) == value
        assert converter.from_connect_data("t", schema, record) == data

    def test_null_union(self):
        converter = avro_converter(UNION_AVRO)
        schema, record = converter.to_connect_data("t", b"\x00")
        assert record.get("u") is None
        assert converter.from_connect_data("t", schema, record) == b"\x00"

    def test_union_struct_back_to_avro(self):
        from converters.avro._mapping import to_avro_schema

        avro = to_avro_schema(avro_converter(UNION_AVRO).to_connect_data("t", b"\x00")[0])
        branches = avro["fields"][0]["type"]
        assert branches[:3] == ["null", "long", "string"]
        assert branches[3]["name"] == "ns.Click" and branches[4]["symbols"] == ["A", "B"]


READ_ERRORS = [
    (b"\x02\x04a", "Avro bytes do not match schema 'shop.Order': EOFError"),
    (b"\x02\x04ab\x03\x00\x00\x00", "Avro bytes do not match schema 'shop.Order': 2 bytes left over after the record"),
    (b"\x02\x04ab\x03\x08", "Avro bytes do not match schema 'shop.Order'"),
]


@pytest.mark.parametrize("data, message", READ_ERRORS)
def test_read_errors(data, message):
    with pytest.raises(ConverterError, match=r"AvroConverter \(VALUE_CONVERTER\) failed on topic 'orders': " + message):
        avro_converter().to_connect_data("orders", data)


def test_read_errors_are_reported_per_row():
    errors = []
    data = [b"\x02\x04ab\x03\x00", READ_ERRORS[0][0], b"\x02\x04ab\x03\x00"]
    _, values = avro_converter().to_connect_batch(["t"] * 3, data, lambda row, exc: errors.append(row))
    assert errors == [1] and values[1] is None and values[0] == values[2] is not None


WRITE_ERRORS = [
    (
        {"id": "one", "item": "ab", "qty": 1, "note": None},
        r"value does not match Avro schema 'shop.Order': shop.Order.id is <one> of type <class 'str'> expected long",
    ),
    (
        {"id": 1, "item": "ab", "note": None},
        r"value does not match Avro schema 'shop.Order': Field\(shop.Order.qty\) is None expected int",
    ),
    (
        {"id": 1, "item": "ab", "qty": 2**40, "note": None},
        r"value does not match Avro schema 'shop.Order': shop.Order.qty is <1099511627776> .* expected int",
    ),
]


@pytest.mark.parametrize("value, message", WRITE_ERRORS)
def test_write_errors(value, message):
    with pytest.raises(ConverterError, match=r"AvroConverter \(KEY_CONVERTER\) failed on topic 'orders': " + message):
        avro_converter(is_key=True).from_connect_data("orders", None, value)


def test_schema_file(tmp_path):
    path = tmp_path / "order.avsc"
    path.write_text(json.dumps(ORDER_AVRO), encoding="utf-8")
    converter = converters.load("avro", {"avro.schema.file": str(path)})
    assert converter.to_connect_data("t", b"\x02\x04ab\x03\x00")[1].get("item") == "ab"


@pytest.mark.parametrize(
    "configs, message",
    [
        ({}, "value.converter.schema.registry.url: AvroConverter needs schema.registry.url"),
        ({"avro.schema": "{"}, "value.converter.avro.schema: is not valid JSON"),
        (
            {"avro.schema": '{"type": "record", "name": "X"}'},
            "value.converter.avro.schema: is not a usable Avro schema",
        ),
        ({"avro.schema.file": "/nonexistent.avsc"}, "value.converter.avro.schema.file: cannot read Avro schema file"),
    ],
)
def test_config_errors_name_the_key(configs, message):
    with pytest.raises(ConfigError, match=message):
        converters.load("avro", configs, context=PluginContext(prefix="value.converter."))
