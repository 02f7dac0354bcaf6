"""JsonConverter: golden tables both ways, error table, options and the batch paths."""

import datetime as dt
import decimal
import json

import pytest

import converters
from smt.converter import ConverterError
from smt.data import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp
from smt.errors import ConfigError, Stage
from smt.plugin import PluginContext

UTC = dt.timezone.utc
ADDRESS = SchemaBuilder.struct().name("Address").field("city", Schema.STRING_SCHEMA).build()
PERSON = (
    SchemaBuilder.struct()
    .name("Person")
    .field("name", Schema.STRING_SCHEMA)
    .field("age", Schema.OPTIONAL_INT32_SCHEMA)
    .field("address", ADDRESS)
    .build()
)
WITH_DEFAULT = SchemaBuilder.struct().field("n", SchemaBuilder.int32().optional().default_value(3)).build()
INT_KEYS = SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build()


def json_converter(is_key=False, **configs):
    return converters.load("json", {k.replace("__", "."): v for k, v in configs.items()}, is_key=is_key)


def person(name="Ada", age=36, city="Delft"):
    return Struct(PERSON).put("name", name).put("age", age).put("address", Struct(ADDRESS).put("city", city))


def envelope(schema_json, payload_json):
    return b'{"schema":' + schema_json.encode() + b',"payload":' + payload_json.encode() + b"}"


# value -> exact bytes, with the schema envelope (schemas.enable=true, the default)
WRITE_GOLDEN = [
    (Schema.STRING_SCHEMA, "hi", envelope('{"type":"string","optional":false}', '"hi"')),
    (Schema.OPTIONAL_STRING_SCHEMA, None, envelope('{"type":"string","optional":true}', "null")),
    (Schema.INT8_SCHEMA, -5, envelope('{"type":"int8","optional":false}', "-5")),
    (Schema.INT64_SCHEMA, 2**62, envelope('{"type":"int64","optional":false}', str(2**62))),
    (Schema.FLOAT32_SCHEMA, 1.5, envelope('{"type":"float","optional":false}', "1.5")),
    (Schema.FLOAT64_SCHEMA, 2.0, envelope('{"type":"double","optional":false}', "2.0")),
    (Schema.BOOLEAN_SCHEMA, True, envelope('{"type":"boolean","optional":false}', "true")),
    (Schema.BYTES_SCHEMA, b"\x00\x01\x02", envelope('{"type":"bytes","optional":false}', '"AAEC"')),
    (
        SchemaBuilder.array(Schema.INT32_SCHEMA).build(),
        [1, 2],
        envelope('{"type":"array","items":{"type":"int32","optional":false},"optional":false}', "[1,2]"),
    ),
    (
        SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build(),
        {"a": 1},
        envelope(
            '{"type":"map","keys":{"type":"string","optional":false},'
            '"values":{"type":"int64","optional":false},"optional":false}',
            '{"a":1}',
        ),
    ),
    (
        INT_KEYS,
        {1: "x", 2: "y"},
        envelope(
            '{"type":"map","keys":{"type":"int32","optional":false},'
            '"values":{"type":"string","optional":false},"optional":false}',
            '[[1,"x"],[2,"y"]]',
        ),
    ),
    (
        Decimal.schema(2),
        decimal.Decimal("1.25"),
        envelope(
            '{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal",'
            '"version":1,"parameters":{"scale":"2"}}',
            '"fQ=="',
        ),
    ),
    (
        Date.SCHEMA,
        dt.date(2020, 2, 29),
        envelope('{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1}', "18321"),
    ),
    (
        Time.SCHEMA,
        dt.time(12, 34, 56, 789000),
        envelope(
            '{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Time","version":1}', "45296789"
        ),
    ),
    (
        Timestamp.SCHEMA,
        dt.datetime(2020, 2, 29, 12, 0, 0, 5000, tzinfo=UTC),
        envelope(
            '{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1}',
            "1582977600005",
        ),
    ),
    (
        PERSON,
        person(),
        envelope(
            '{"type":"struct","fields":['
            '{"type":"string","optional":false,"field":"name"},'
            '{"type":"int32","optional":true,"field":"age"},'
            '{"type":"struct","fields":[{"type":"string","optional":false,"field":"city"}],'
            '"optional":false,"name":"Address","field":"address"}],'
            '"optional":false,"name":"Person"}',
            '{"name":"Ada","age":36,"address":{"city":"Delft"}}',
        ),
    ),
    (
        WITH_DEFAULT,
        Struct(WITH_DEFAULT),
        envelope(
            '{"type":"struct","fields":[{"type":"int32","optional":true,"default":3,"field":"n"}],"optional":false}',
            '{"n":3}',
        ),
    ),
    (None, {"a": [1, None]}, envelope("null", '{"a":[1,null]}')),
    (None, None, None),
]


@pytest.mark.parametrize("schema, value, expected", WRITE_GOLDEN)
def test_write_golden(schema, value, expected):
    assert json_converter().from_connect_data("orders", schema, value) == expected


@pytest.mark.parametrize("schema, value, expected", WRITE_GOLDEN)
def test_batch_write_matches_single(schema, value, expected):
    converter = json_converter()
    assert converter.from_connect_batch(["orders"], [schema], [value]) == [expected]


# exact bytes -> (schema, value), with the envelope
READ_GOLDEN = [
    (envelope('{"type":"int64","optional":false}', "5"), Schema.INT64_SCHEMA, 5),
    (envelope('{"type":"string","optional":true}', "null"), Schema.OPTIONAL_STRING_SCHEMA, None),
    (envelope('{"type":"float","optional":false}', "1"), Schema.FLOAT32_SCHEMA, 1.0),
    (envelope('{"type":"bytes"}', '"AAEC"'), Schema.BYTES_SCHEMA, b"\x00\x01\x02"),
    (envelope("null", '{"a":1.5,"b":[1]}'), None, {"a": 1.5, "b": [1]}),
    (
        envelope('{"type":"map","keys":{"type":"int32"},"values":{"type":"string"}}', '[[1,"x"],[2,"y"]]'),
        INT_KEYS,
        {1: "x", 2: "y"},
    ),
    (
        envelope(
            '{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}}',
            '"fQ=="',
        ),
        Decimal.schema(2),
        decimal.Decimal("1.25"),
    ),
    (
        envelope(
            '{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"9"}}',
            "12345678901234567890.123456789",
        ),
        Decimal.schema(9),
        decimal.Decimal("12345678901234567890.123456789"),
    ),
    (
        envelope('{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1}', "18321"),
        Date.SCHEMA,
        dt.date(2020, 2, 29),
    ),
    (
        envelope('{"type":"int32","name":"org.apache.kafka.connect.data.Time","version":1}', "45296789"),
        Time.SCHEMA,
        dt.time(12, 34, 56, 789000),
    ),
    (
        envelope('{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1}', "1582977600005"),
        Timestamp.SCHEMA,
        dt.datetime(2020, 2, 29, 12, 0, 0, 5000, tzinfo=UTC),
    ),
    (WRITE_GOLDEN[15][2], PERSON, person()),
    (
        envelope(
            '{"type":"struct","fields":[{"type":"int32","optional":true,"default":3,"field":"n"}],"optional":false}',
            "{}",
        ),
        WITH_DEFAULT,
        Struct(WITH_DEFAULT).put("n", 3),
    ),
    (None, None, None),
]


@pytest.mark.parametrize("data, schema, value", READ_GOLDEN)
def test_read_golden(data, schema, value):
    assert json_converter().to_connect_data("orders", data) == (schema, value)


def test_batch_read_matches_single():
    data = [row[0] for row in READ_GOLDEN]
    schemas, values = json_converter().to_connect_batch(["orders"] * len(data), data)
    assert schemas == [row[1] for row in READ_GOLDEN]
    assert values == [row[2] for row in READ_GOLDEN]


SCHEMALESS_GOLDEN = [
    ("hi", b'"hi"'),
    ({"a": [1, 2.5, None, True]}, b'{"a":[1,2.5,null,true]}'),
    ({1: "x"}, b'[[1,"x"]]'),
    (b"\x01", b'"AQ=="'),
    ([{"k": b"\xff"}], b'[{"k":"/w=="}]'),
    (None, None),
]


@pytest.mark.parametrize("value, expected", SCHEMALESS_GOLDEN)
def test_schemaless_write_golden(value, expected):
    converter = json_converter(schemas__enable="false")
    assert converter.from_connect_data("orders", None, value) == expected
    assert converter.from_connect_batch(["orders"], None, [value]) == [expected]


def test_schemas_disabled_still_uses_schema_to_write():
    converter = json_converter(schemas__enable="false")
    assert converter.from_connect_data("orders", PERSON, person()) == (
        b'{"name":"Ada","age":36,"address":{"city":"Delft"}}'
    )


@pytest.mark.parametrize(
    "data, value",
    [
        (b'{"n": 1, "f": 1.5, "o": {"x": [true, null]}}', {"n": 1, "f": 1.5, "o": {"x": [True, None]}}),
        (b"12345678901234", 12345678901234),
        (b"null", None),
        (b'"text"', "text"),
        (None, None),
    ],
)
def test_schemaless_read_golden(data, value):
    converter = json_converter(schemas__enable="false")
    assert converter.to_connect_data("orders", data) == (None, value)
    assert converter.to_connect_batch(["orders"], [data]) == (None, [value])


def test_schemaless_read_types_are_int64_float64_and_maps():
    schema, value = json_converter(schemas__enable="false").to_connect_data("t", b'{"i": 7, "d": 7.0}')
    assert type(value["i"]) is int and type(value["d"]) is float and isinstance(value, dict)


def test_decimal_numeric_format():
    converter = json_converter(decimal__format="numeric")
    data = converter.from_connect_data("t", Decimal.schema(3), decimal.Decimal("-12.500"))
    assert data.endswith(b'"payload":-12.500}')
    assert converter.to_connect_data("t", data) == (Decimal.schema(3), decimal.Decimal("-12.500"))


def test_replace_null_with_default_disabled():
    converter = json_converter(replace__null__with__default="false")
    data = converter.from_connect_data("t", WITH_DEFAULT, Struct(WITH_DEFAULT))
    assert data.endswith(b'"payload":{"n":null}}')
    assert converter.to_connect_data("t", data)[1].get_without_default("n") is None


def test_null_with_schema_is_not_a_tombstone():
    assert json_converter().from_connect_data("t", Schema.OPTIONAL_INT8_SCHEMA, None) == envelope(
        '{"type":"int8","optional":true}', "null"
    )


def test_parsed_schemas_are_cached_and_reused():
    converter = json_converter()
    first = converter.to_connect_data("t", WRITE_GOLDEN[15][2])[0]
    second = converter.to_connect_data("t", WRITE_GOLDEN[15][2])[0]
    assert first is second
    schemas, _ = converter.to_connect_batch(["t", "t"], [WRITE_GOLDEN[15][2]] * 2)
    assert schemas[0] is schemas[1] is first


READ_ERRORS = [
    (b"{not json", "malformed JSON"),
    (b'{"a": 1}', 'requires "schema" and "payload" fields.*Found: an object with keys \'a\''),
    (b'{"schema":null,"payload":1,"extra":2}', 'requires "schema" and "payload" fields'),
    (b"[1,2]", 'requires "schema" and "payload".*Found: a JSON array'),
    (envelope('{"type":"int128"}', "1"), "Unknown schema type: int128"),
    (envelope('{"optional":true}', "1"), "Schema must contain 'type' field"),
    (envelope('{"type":"array"}', "[]"), "Array schema did not specify the element type"),
    (envelope('{"type":"struct","fields":{}}', "{}"), 'Struct schema\'s "fields" argument is not an array.'),
    (envelope('{"type":"int32"}', '"x"'), "Invalid value for INT32: expected an integer but found STRING"),
    (envelope('{"type":"int8"}', "300"), "Invalid value for INT8: 300 is out of range"),
    (envelope('{"type":"string"}', "null"), "Invalid null value for required STRING field"),
    (envelope('{"type":"bytes"}', '"***"'), "Invalid bytes field"),
    (envelope('{"type":"struct","fields":[]}', "[]"), "Structs should be encoded as JSON objects, but found ARRAY"),
    (
        envelope('{"type":"map","keys":{"type":"int8"},"values":{"type":"int8"}}', "[[1]]"),
        "Found invalid map entry, expected length 2 but found :1",
    ),
    (
        envelope('{"type":"struct","fields":[{"type":"int8","field":"a"}]}', '{"a":"x"}'),
        "field 'a': Invalid value for INT8: expected an integer",
    ),
    (
        envelope('{"type":"int32","name":"org.apache.kafka.connect.data.Date"}', '"2020-01-01"'),
        "Invalid type for Date, underlying representation should be integer but was STRING",
    ),
]


@pytest.mark.parametrize("data, message", READ_ERRORS)
def test_read_errors(data, message):
    with pytest.raises(
        ConverterError, match=r"JsonConverter \(VALUE_CONVERTER\) failed on topic 'orders': .*" + message
    ) as info:
        json_converter().to_connect_data("orders", data)
    assert info.value.stage is Stage.VALUE_CONVERTER and info.value.topic == "orders"


def test_read_errors_are_reported_per_row_in_batches():
    errors = []
    data = [envelope('{"type":"int8"}', "1")] + [row[0] for row in READ_ERRORS] + [envelope('{"type":"int8"}', "2")]
    schemas, values = json_converter().to_connect_batch(
        ["orders"] * len(data), data, lambda row, exc: errors.append((row, exc))
    )
    assert [row for row, _ in errors] == list(range(1, len(READ_ERRORS) + 1))
    assert all(isinstance(exc, ConverterError) for _, exc in errors)
    assert values[0] == 1 and values[-1] == 2 and values[1:-1] == [None] * len(READ_ERRORS)


def test_schemaless_malformed_json_is_reported_per_row():
    errors = []
    _, values = json_converter(schemas__enable="false").to_connect_batch(
        ["t", "t"], [b"{", b"1"], lambda row, exc: errors.append((row, str(exc)))
    )
    assert values == [None, 1]
    assert errors[0][0] == 0 and "malformed JSON" in errors[0][1]


@pytest.mark.parametrize("blank", [b"", b"  ", b"\n", b"\t \r\n"])
def test_schemaless_blank_bytes_read_as_null(blank):
    """Oracle case: Jackson reads no document as a missing node, which JsonConverter makes null."""
    errors = []
    _, values = json_converter(schemas__enable="false").to_connect_batch(
        ["t", "t"], [blank, b"1"], lambda row, exc: errors.append((row, exc))
    )
    assert (values, errors) == ([None, 1], [])
    assert json_converter(is_key=True, schemas__enable="false").to_connect_data("t", blank) == (None, None)


def test_blank_bytes_are_not_an_envelope():
    with pytest.raises(ConverterError, match=r'requires "schema" and "payload" fields.* Found: no JSON document'):
        json_converter(schemas__enable="true").to_connect_data("t", b" ")


def test_key_converter_names_its_stage():
    with pytest.raises(ConverterError, match=r"JsonConverter \(KEY_CONVERTER\) failed on topic 'k'"):
        json_converter(is_key=True).to_connect_data("k", b"{")


WRITE_ERRORS = [
    (Schema.STRING_SCHEMA, 5, "Invalid type for STRING: int"),
    (Schema.STRING_SCHEMA, None, "Conversion error: null value for field that is required and has no default value"),
    (PERSON, Struct(ADDRESS).put("city", "x"), "Mismatching schema."),
    (Schema.INT8_SCHEMA, 1000, "Invalid value for INT8: 1000 is out of range"),
    (Schema.INT8_SCHEMA, True, "Invalid type for INT8: bool"),
    (None, dt.datetime(2020, 1, 1), "Python type datetime does not have corresponding schema type."),
    (Decimal.schema(2), decimal.Decimal("1.5"), "Schema has scale 2, value has scale 1."),
    (Schema.FLOAT64_SCHEMA, float("nan"), "Invalid value for FLOAT64: nan cannot be written as JSON"),
    (SchemaBuilder.array(Schema.FLOAT32_SCHEMA).build(), [1.0, float("inf")], "inf cannot be written as JSON"),
    (None, {"x": [float("-inf")]}, "-inf cannot be written as JSON"),
]


@pytest.mark.parametrize("schema, value, message", WRITE_ERRORS)
def test_write_errors(schema, value, message):
    with pytest.raises(
        ConverterError,
        match=r"JsonConverter \(VALUE_CONVERTER\) failed on topic 'orders': .*"
        + message.replace("(", r"\(").replace(")", r"\)"),
    ):
        json_converter().from_connect_data("orders", schema, value)


def test_schemaless_batch_write_errors_are_per_row():
    errors = []
    out = json_converter(schemas__enable="false").from_connect_batch(
        ["t"] * 3, None, [1, dt.date(2020, 1, 1), 2], lambda row, exc: errors.append(row)
    )
    assert out == [b"1", None, b"2"] and errors == [1]


def test_schemaless_batch_never_writes_nan_as_null():
    errors = []
    out = json_converter(schemas__enable="false").from_connect_batch(
        ["t"] * 3,
        None,
        [{"a": None}, {"a": float("nan")}, {"a": "null"}],
        lambda row, exc: errors.append((row, str(exc))),
    )
    assert out == [b'{"a":null}', None, b'{"a":"null"}']
    assert errors == [
        (
            1,
            "JsonConverter (VALUE_CONVERTER) failed on topic 't': cannot write value as JSON: nan cannot be written as JSON",
        )
    ]


@pytest.mark.parametrize(
    "configs, message",
    [
        ({"decimal.format": "HEX"}, "value.converter.decimal.format"),
        ({"schemas.enable": "maybe"}, "value.converter.schemas.enable: expected true or false"),
        ({"json.schema": "{nope"}, "value.converter.json.schema: is not valid JSON"),
        ({"json.schema": '{"type": 12}'}, "value.converter.json.schema: is not a valid JSON Schema"),
        ({"json.schema.file": "/nonexistent/x.json"}, "value.converter.json.schema.file: cannot read JSON Schema file"),
    ],
)
def test_config_errors_name_the_key(configs, message):
    with pytest.raises(ConfigError, match=message):
        converters.load("json", configs, context=PluginContext(prefix="value.converter."))


AGE_SCHEMA = {
    "type": "object",
    "properties": {"age": {"type": "integer", "minimum": 0}, "tags": {"type": "array", "items": {"type": "string"}}},
    "required": ["age"],
}


@pytest.mark.parametrize(
    "payload, message",
    [
        (b'{"age": -1}', r"at \$\.age: rule 'minimum' failed: -1 is less than the minimum of 0"),
        (b"{}", r"at \$: rule 'required' failed: 'age' is a required property"),
        (b'{"age": 1, "tags": ["a", 2]}', r"at \$\.tags\[1\]: rule 'type' failed"),
    ],
)
def test_json_schema_validation_failures(payload, message):
    converter = json_converter(schemas__enable="false", json__schema=json.dumps(AGE_SCHEMA))
    with pytest.raises(ConverterError, match=r"VALUE_CONVERTER.*payload does not match the JSON Schema " + message):
        converter.to_connect_data("people", payload)
    errors = []
    converter.to_connect_batch(["people"], [payload], lambda row, exc: errors.append(exc))
    assert len(errors) == 1 and isinstance(errors[0], ConverterError)


def test_json_schema_from_file_validates_reads_and_writes(tmp_path):
    path = tmp_path / "person.schema.json"
    path.write_text(json.dumps(AGE_SCHEMA), encoding="utf-8")
    converter = json_converter(json__schema__file=str(path))
    good = converter.from_connect_data("p", None, {"age": 3})
    assert converter.to_connect_data("p", good) == (None, {"age": 3})
    with pytest.raises(ConverterError, match=r"rule 'minimum'"):
        converter.from_connect_data("p", None, {"age": -3})
    with pytest.raises(ConverterError, match=r"rule 'required'"):
        converter.to_connect_data("p", envelope("null", "{}"))


def test_header_methods_use_the_same_format():
    converter = json_converter()
    data = converter.from_connect_header("t", "h", Schema.INT32_SCHEMA, 5)
    assert converter.to_connect_header("t", "h", data) == (Schema.INT32_SCHEMA, 5)


class TestKnownSchemaPrefix:
    """After one message, later ones with the same schema text only have their payload parsed."""

    SCHEMA_JSON = '{"type":"int8","optional":false}'

    def converter_that_has_seen_the_schema(self):
        converter = json_converter()
        assert converter.to_connect_data("t", envelope(self.SCHEMA_JSON, "1")) == (Schema.INT8_SCHEMA, 1)
        return converter

    def test_same_schema_reads_the_payload(self):
        converter = self.converter_that_has_seen_the_schema()
        assert converter.to_connect_data("t", envelope(self.SCHEMA_JSON, "2") + b"  \n") == (Schema.INT8_SCHEMA, 2)

    @pytest.mark.parametrize(
        "data, message",
        [
            (b'{"schema":' + SCHEMA_JSON.encode() + b',"payload":1,"extra":2}', 'requires "schema" and "payload"'),
            (b'{"schema":' + SCHEMA_JSON.encode() + b',"payload":{"a":1}', "malformed JSON"),
            (b'{"schema":' + SCHEMA_JSON.encode() + b',"payload":"x"}', "expected an integer but found STRING"),
        ],
    )
    def test_bad_messages_with_a_known_prefix_are_still_rejected(self, data, message):
        with pytest.raises(ConverterError, match=message):
            self.converter_that_has_seen_the_schema().to_connect_data("t", data)

    def test_a_later_duplicate_schema_key_wins_as_in_a_full_parse(self):
        converter = self.converter_that_has_seen_the_schema()
        data = b'{"schema":' + self.SCHEMA_JSON.encode() + b',"payload":1,"schema":{"type":"int64"}}'
        assert converter.to_connect_data("t", data) == (Schema.INT64_SCHEMA, 1)
