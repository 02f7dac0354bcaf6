"""All-null columns skip the converter only where it maps null to null; decoded JSON values are owned."""

import json

import orjson
import pytest

import converters
from converters.json.converter import JsonConverter
from smt.batch import RecordBatch
from smt.chain import TransformChain
from smt.converter import Converter
from smt.error_handling import ErrorPolicy
from smt.pipeline.processor import BatchProcessor
from smt.record import Record

AVRO_SCHEMA = json.dumps({"type": "record", "name": "R", "fields": [{"name": "a", "type": "long"}]})

#: Every built-in converter that declares null_is_null, as a pipeline would configure it.
DECLARING = [
    ("json", {"schemas.enable": "true"}),
    ("json", {"schemas.enable": "false"}),
    ("string", {}),
    ("bytearray", {}),
    ("avro", {"avro.schema": AVRO_SCHEMA}),
]


@pytest.mark.parametrize("name, configs", DECLARING, ids=lambda v: json.dumps(v) if isinstance(v, dict) else v)
@pytest.mark.parametrize("is_key", [True, False], ids=["key", "value"])
def test_converters_that_declare_null_is_null_map_null_to_null(name, configs, is_key):
    converter = converters.load(name, configs, is_key=is_key)
    assert converter.null_is_null
    assert converter.to_connect_data("t", None) == (None, None)
    assert converter.from_connect_data("t", None, None) is None
    assert converter.to_connect_batch(["t", "t"], [None, None]) == (None, [None, None])


def test_only_schemaless_json_declares_fresh_values():
    assert converters.load("json", {"schemas.enable": "false"}).fresh_values
    assert not converters.load("json", {"schemas.enable": "true"}).fresh_values
    assert not converters.load("string", {}).fresh_values


class CountingJson(JsonConverter):
    """The JSON converter, counting its batch calls (a real converter, observed)."""

    calls = 0

    def to_connect_batch(self, topics, data, on_error=None):
        CountingJson.calls += 1
        return super().to_connect_batch(topics, data, on_error)

    def from_connect_column(self, topics, schemas, values, on_error=None):
        CountingJson.calls += 1
        return super().from_connect_column(topics, schemas, values, on_error)


class NullAsText(Converter):
    """A converter that does not map null to null: a null key reads as, and writes, ``b"none"``."""

    name = "NullAsText"

    def to_connect_data(self, topic, data):
        return None, "none" if data is None else data.decode()

    def from_connect_data(self, topic, schema, value):
        return b"none" if value is None else value.encode()


def configured(cls, configs, is_key):
    converter = cls()
    converter.configure(configs, is_key=is_key)
    return converter


def run(key_converter, value_converter, keys, values, chain_props=None):
    chain = TransformChain.from_properties(chain_props or {"transforms": ""})
    header = configured(JsonConverter, {"schemas.enable": "false"}, False)
    processor = BatchProcessor(chain, key_converter, value_converter, header, ErrorPolicy())
    arrow = RecordBatch.from_records(
        [
            Record(topic="t", partition=0, offset=i, timestamp=i, key=k, value=v)
            for i, (k, v) in enumerate(zip(keys, values))
        ]
    ).to_arrow()
    out, _ = processor.process(arrow)
    return out


def test_an_all_null_key_column_passes_without_a_converter_call():
    CountingJson.calls = 0
    key = configured(CountingJson, {"schemas.enable": "false"}, True)
    value = configured(JsonConverter, {"schemas.enable": "false"}, False)
    out = run(key, value, [None, None], [b'{"a":1}', b"[2]"])
    assert CountingJson.calls == 0
    assert out.column("key").to_pylist() == [None, None]
    assert out.column("value").to_pylist() == [b'{"a":1}', b"[2]"]


def test_a_key_column_with_one_value_goes_through_the_converter():
    CountingJson.calls = 0
    key = configured(CountingJson, {"schemas.enable": "false"}, True)
    value = configured(JsonConverter, {"schemas.enable": "false"}, False)
    out = run(key, value, [None, b'"k"'], [b"1", b"2"])
    assert CountingJson.calls == 2
    assert out.column("key").to_pylist() == [None, b'"k"']


def test_a_converter_without_the_declaration_sees_every_null():
    key = configured(NullAsText, {}, True)
    value = configured(JsonConverter, {"schemas.enable": "false"}, False)
    out = run(key, value, [None, None], [b"1", b"2"])
    assert out.column("key").to_pylist() == [b"none", b"none"]


def test_a_null_key_given_a_schema_by_the_chain_is_written_by_the_converter():
    key = configured(JsonConverter, {"schemas.enable": "true"}, True)
    value = configured(JsonConverter, {"schemas.enable": "false"}, False)
    chain = {"transforms": "meta", "transforms.meta.type": "SetSchemaMetadata$Key", "transforms.meta.schema.name": "k"}
    out = run(key, value, [b'{"schema":{"type":"string","optional":true},"payload":null}'] * 2, [b"1", b"2"], chain)
    assert [orjson.loads(k) for k in out.column("key").to_pylist()] == [
        {"schema": {"type": "string", "optional": True, "name": "k"}, "payload": None}
    ] * 2


def test_decoded_json_values_are_updated_in_place_and_written_correctly():
    value = configured(JsonConverter, {"schemas.enable": "false"}, False)
    key = configured(JsonConverter, {"schemas.enable": "false"}, True)
    chain = {
        "transforms": "i,m",
        "transforms.i.type": "InsertField$Value",
        "transforms.i.offset.field": "o",
        "transforms.m.type": "MaskField$Value",
        "transforms.m.fields": "s",
    }
    out = run(key, value, [None] * 3, [b'{"s":"x"}', b"null", b'{"s":1,"n":null}'], chain)
    assert [None if v is None else orjson.loads(v) for v in out.column("value").to_pylist()] == [
        {"s": "", "o": 0},
        None,
        {"s": 0, "n": None, "o": 2},
    ]
