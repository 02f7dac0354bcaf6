"""Record in, records out: how records become JSON documents and what comes back, on plug-ins built
with the Rust and Go PDKs."""

import decimal

import pytest

from smt.data import Decimal, Schema, SchemaBuilder, Struct
from tests.host_functions.conftest import make_record
from tests.host_functions.extism.conftest import run_batch

TO_UPPER = ["to_upper-rust", "to_upper-go"]

#: (key, value, headers) in -> (key, value, headers) out, through to_upper (which returns the whole
#: record it was given, with a text value upper-cased)
GOLDEN = [
    # bytes that are UTF-8 go in as strings and come back as bytes
    (b"k-1", b"hello world", (("trace", b"t-1"),), b"k-1", b"HELLO WORLD", (("trace", b"t-1"),)),
    # bytes that are not UTF-8 go in as base64 under value_base64 and come back unchanged
    (b"\xff\x00", b"\xfe\xff", (("raw", b"\x80"),), b"\xff\x00", b"\xfe\xff", (("raw", b"\x80"),)),
    # text stays text
    ("user-7", "Mixed Case \u00e9", (), "user-7", "MIXED CASE \u00c9", ()),
    # structured data (as the JSON converter gives it) goes in as JSON and comes back as data
    ({"id": 7}, {"amount": 3, "tags": ["a"]}, (), {"id": 7}, {"amount": 3, "tags": ["a"]}, ()),
    ([1, 2], [{"a": None}], (), [1, 2], [{"a": None}], ()),
    # null stays null; a header without a value too
    (None, None, (("empty", None),), None, None, (("empty", None),)),
    (b"", b"", (), b"", b"", ()),
]


@pytest.mark.parametrize("plugin", TO_UPPER)
@pytest.mark.parametrize(("key", "value", "headers", "key_out", "value_out", "headers_out"), GOLDEN)
def test_values_go_in_as_the_chain_holds_them_and_come_back_the_same_way(
    extism_transform, plugin, key, value, headers, key_out, value_out, headers_out
):
    record = make_record(key=key, value=value, headers=headers, topic="events", partition=3, offset=42)

    out, errors = run_batch(extism_transform(plugin), [record])

    assert errors.failures == []
    assert out == [record.replace(key=key_out, value=value_out, headers=headers_out)]


def test_the_document_the_plugin_sees(extism_transform):
    # echo returns what it was given: the document is visible in what comes back
    transform = extism_transform("hostile", function_name="echo")
    record = make_record(key=b"k", value=b"\xff", headers=(("a", b"1"), ("a", "2")), topic="t")

    out, errors = run_batch(transform, [record])

    assert errors.failures == []
    assert out == [record.replace(headers=(("a", b"1"), ("a", b"2")))]  # header values come back as bytes


def test_zero_records_drop_several_fan_out_and_a_topic_routes(extism_transform):
    transform = extism_transform("hostile", function_name="split")
    records = [
        make_record(value=b"one @audit two", offset=1),
        make_record(value=b"   ", offset=2),
        make_record(value=b"three", offset=3),
    ]

    out, errors = run_batch(transform, records)

    assert errors.failures == []
    assert [(r.topic, r.value, r.offset) for r in out] == [
        ("input", b"one", 1),
        ("audit", b"@audit", 1),
        ("input", b"two", 1),
        ("input", b"three", 3),
    ]
    # fields an output record leaves out are the input's
    assert all(r.key == b"key" and r.timestamp == records[0].timestamp for r in out)


def test_plugin_variables_and_globals_persist_across_calls_and_batches(extism_transform):
    transform = extism_transform("hostile", function_name="count")

    first, _ = run_batch(transform, [make_record(), make_record()])
    second, _ = run_batch(transform, [make_record()])

    assert [r.value for r in first + second] == [b"calls=1 vars=1", b"calls=2 vars=2", b"calls=3 vars=3"]


ORDERS = [
    {"date": "2024-03-01T10:00:00Z", "price": 3.5, "volume": 10},
    {"date": "2024-03-01T10:01:00Z", "price": 5.25, "volume": 20},
    {"date": "2024-03-01T10:02:00Z", "price": 4.0, "volume": 30},
]


@pytest.mark.parametrize("plugin", ["running_max-rust", "running_max-go"])
def test_running_max_keeps_state_reads_config_and_routes(extism_transform, plugin):
    # the XTP Kafka demo's `max` transform: a running maximum across calls, output topic from config
    transform = extism_transform(plugin, **{"config.topic-name": "max-prices"})
    records = [make_record(key="ACME", value=order, topic="orders", headers=(("src", "feed"),)) for order in ORDERS]

    out, errors = run_batch(transform, records[:2])
    more, _ = run_batch(transform, records[2:])

    assert errors.failures == []
    assert [(r.topic, r.key, r.value["price"], r.value["volume"], r.value["date"]) for r in out + more] == [
        ("max-prices", "ACME", 3.5, 0, "2024-03-01T10:00:00Z"),
        ("max-prices", "ACME", 5.25, 0, "2024-03-01T10:01:00Z"),
        ("max-prices", "ACME", 5.25, 0, "2024-03-01T10:02:00Z"),
    ]
    assert [r.headers for r in out] == [(("src", b"feed"),)] * 2


def test_without_the_config_the_plugin_uses_its_default_topic(extism_transform):
    out, _ = run_batch(extism_transform("running_max-rust"), [make_record(value=ORDERS[0], key="k")])
    assert [r.topic for r in out] == ["max-output"]


@pytest.mark.parametrize(
    ("output", "message"),
    [
        (b"{}", "the output is not a JSON array of records but an object"),
        (b"[1]", "output record 0 is a number, not a JSON object"),
        (b'[{"topic": 7}]', "output record 0: topic is a number, not a string"),
        (b'[{"value_base64": "***"}]', "output record 0: value_base64 is not base64"),
        (b'[{"headers": {"a": 1}}]', "output record 0: headers is an object, not an array"),
        (b'[{"headers": [{"value": "x"}]}]', "output record 0: a header is not an object with a string key"),
        (b"[{]", "the output is not JSON"),
    ],
    ids=["object", "number", "topic", "base64", "headers", "header", "not-json"],
)
def test_an_output_that_is_not_records_fails_its_record(extism_transform, output, message):
    transform = extism_transform("hostile", function_name="raw")
    records = [make_record(value=b"[]"), make_record(value=output), make_record(value=b'[{"value": "ok"}]')]

    out, errors = run_batch(transform, records)

    assert [r.value for r in out] == [b"ok"]
    assert errors.rows == [1]
    assert message in errors.message(1)
    assert errors.message(1).startswith("wasm transform 'x' (raw in guests-hostile-")


def test_a_connect_struct_goes_in_as_the_json_converter_writes_it(extism_transform):
    schema = (
        SchemaBuilder.struct().name("order").field("id", Schema.INT64_SCHEMA).field("price", Decimal.schema(2)).build()
    )
    order = Struct(schema).put("id", 7).put("price", decimal.Decimal("3.50"))
    record = make_record(value=order, topic="orders").replace(value_schema=schema)

    out, errors = run_batch(extism_transform("hostile", function_name="echo"), [record])

    assert errors.failures == []
    # back as schemaless data: the struct's JSON, the decimal in the JSON converter's default (base64) form
    assert [(r.value, r.value_schema) for r in out] == [({"id": 7, "price": "AV4="}, None)]
