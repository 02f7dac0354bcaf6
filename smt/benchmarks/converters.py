"""Converter throughput: JSON and Avro decode+encode of ~200-byte records.

Each comparison ("rt": round trip) converts the same ~200-byte records
bytes → Connect data → bytes (the Avro binary is ~90 bytes for the same data).
Ours uses the converters' batch methods (orjson; cached schemas and compiled
per-schema functions; fastavro with the schema parsed once).  Baselines are
what a plain implementation does per record: the stdlib ``json`` module, the
envelope's schema parsed again for every record, fastavro with the schema
parsed on every call.

Run ``python -m smt.benchmarks.converters`` or ``smt bench converters``.
"""

from __future__ import annotations

import io
import json

from smt.benchmarks._common import Comparison, alternating

ORDER_AVRO = {
    "type": "record",
    "name": "Order",
    "namespace": "bench",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "customer", "type": "string"},
        {"name": "email", "type": "string"},
        {"name": "amount", "type": "double"},
        {"name": "currency", "type": "string"},
        {"name": "items", "type": {"type": "array", "items": "string"}},
        {"name": "created", "type": "long"},
        {"name": "active", "type": "boolean"},
        {"name": "note", "type": ["null", "string"]},
    ],
}


def sample_orders(count: int) -> list[dict]:
    """``count`` order records of about 200 bytes of JSON each."""
    return [
        {
            "id": 100_000 + i,
            "customer": f"customer-{i % 977:04d}",
            "email": f"user{i % 977}@example.com",
            "amount": round(10 + (i % 5000) / 7, 2),
            "currency": ("EUR", "USD", "GBP")[i % 3],
            "items": ["pen", "paper", "ink"][: 1 + i % 3],
            "created": 1_700_000_000_000 + i,
            "active": i % 2 == 0,
            "note": None if i % 4 else f"deliver after {i % 12 + 8}:00, ring twice",
        }
        for i in range(count)
    ]


def _round_trip(converter, topics, data):
    schemas, values = converter.to_connect_batch(topics, data)
    return converter.from_connect_batch(topics, schemas, values)


def json_schemaless(count: int) -> Comparison:
    import converters

    data = [json.dumps(o, separators=(",", ":")).encode() for o in sample_orders(count)]
    topics = ["orders"] * count
    converter = converters.load("json", {"schemas.enable": "false"})
    assert _round_trip(converter, topics, data[:10]) == data[:10]

    def baseline():
        return [json.dumps(json.loads(d), separators=(",", ":")).encode() for d in data]

    return alternating(
        "json schemaless rt",
        count,
        ("batch, orjson", lambda: _round_trip(converter, topics, data)),
        ("stdlib json", baseline),
        target=1.2,
    )


def json_envelope(count: int) -> Comparison:
    import converters
    from converters.avro._mapping import to_connect_schema
    from converters.json._codec import CodecOptions
    from converters.json._reader import compile_reader
    from converters.json._schema_json import from_json_schema, to_json_schema
    from converters.json._writer import compile_writer
    from smt.data import Struct

    schema = to_connect_schema(ORDER_AVRO)
    converter = converters.load("json")
    records = [Struct(schema).put_all(o) for o in sample_orders(count)]
    topics = ["orders"] * count
    data = converter.from_connect_batch(topics, [schema] * count, records)
    assert _round_trip(converter, topics, data[:10]) == data[:10]
    options = CodecOptions()

    def baseline():
        out = []
        for item in data:
            envelope = json.loads(item)
            parsed = from_json_schema(envelope["schema"], options)  # parsed again for every record
            value = compile_reader(parsed, options)(envelope["payload"])
            payload = compile_writer(parsed, options)(value)
            out.append(json.dumps({"schema": to_json_schema(parsed, options), "payload": payload}).encode())
        return out

    return alternating(
        "json envelope rt",
        count,
        ("batch, cached schema", lambda: _round_trip(converter, topics, data)),
        ("stdlib, schema/rec", baseline),
        target=3.0,
    )


def avro(count: int) -> Comparison:
    import fastavro

    import converters

    converter = converters.load("avro", {"avro.schema": json.dumps(ORDER_AVRO)})
    orders = sample_orders(count)
    parsed = fastavro.parse_schema(ORDER_AVRO)
    data = []
    for order in orders:
        buffer = io.BytesIO()
        fastavro.schemaless_writer(buffer, parsed, order)
        data.append(buffer.getvalue())
    topics = ["orders"] * count
    assert _round_trip(converter, topics, data[:10]) == data[:10]

    def baseline():
        out = []
        for item in data:
            schema = fastavro.parse_schema(json.loads(json.dumps(ORDER_AVRO)))  # parsed on every call
            record = fastavro.schemaless_reader(io.BytesIO(item), schema)
            buffer = io.BytesIO()
            fastavro.schemaless_writer(buffer, fastavro.parse_schema(json.loads(json.dumps(ORDER_AVRO))), record)
            out.append(buffer.getvalue())
        return out

    return alternating(
        "avro rt",
        count,
        ("batch, parsed once", lambda: _round_trip(converter, topics, data)),
        ("fastavro, parse/call", baseline),
        target=2.0,
    )


def run(scale: float = 1.0) -> list[Comparison]:
    count = max(100, int(20_000 * scale))
    return [json_schemaless(count), json_envelope(count), avro(count)]


if __name__ == "__main__":
    from smt.benchmarks.runner import comparison_table, console

    console().print(comparison_table(run()))
