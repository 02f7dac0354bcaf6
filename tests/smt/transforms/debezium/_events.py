"""Debezium change events in the PostgreSQL connector's layout, shared by the Debezium SMT tests."""

from smt.data import Schema, SchemaBuilder, Struct
from tests.smt.transforms._helpers import make_record


def struct_schema(name, fields, optional=False):
    """A named struct schema with ``fields`` (name → schema) in order."""
    builder = SchemaBuilder.struct().name(name)
    for field, schema in fields.items():
        builder = builder.field(field, schema)
    return (builder.optional() if optional else builder).build()


def envelope_schema(row, source=None, transaction=None, ts_ms=True):
    """A connector's ``*.Envelope`` around ``row``'s schema: before, after, [source], [transaction], op, [ts_ms]."""
    fields = {"before": row, "after": row, "source": source, "transaction": transaction, "op": Schema.STRING_SCHEMA}
    fields["ts_ms"] = Schema.OPTIONAL_INT64_SCHEMA if ts_ms else None
    table = row.name.rsplit(".", 1)[0]
    return struct_schema(f"{table}.Envelope", {name: schema for name, schema in fields.items() if schema is not None})


POSTGRES_SOURCE = "io.debezium.connector.postgresql.Source"
ROW = struct_schema(
    "server.public.customers.Value",
    {
        "id": Schema.INT32_SCHEMA,
        "email": Schema.OPTIONAL_STRING_SCHEMA,
        "photo": Schema.OPTIONAL_BYTES_SCHEMA,
        "score": Schema.OPTIONAL_FLOAT64_SCHEMA,
    },
    optional=True,
)
#: The PostgreSQL connector's source block, in part.
SOURCE_FIELDS = {
    "version": Schema.STRING_SCHEMA,
    "db": Schema.STRING_SCHEMA,
    "table": Schema.STRING_SCHEMA,
    "ts_ms": Schema.INT64_SCHEMA,
}
SOURCE = struct_schema(POSTGRES_SOURCE, SOURCE_FIELDS)
ENVELOPE = envelope_schema(ROW, SOURCE)
KEY = SchemaBuilder.struct().name("server.public.customers.Key").field("id", Schema.INT32_SCHEMA).build()
TOPIC = "server.public.customers"


def row(id_, email=None, photo=None, score=None):
    return Struct(ROW).put("id", id_).put("email", email).put("photo", photo).put("score", score)


def event(op, before=None, after=None, headers=(), topic=TOPIC):
    source = Struct(SOURCE).put("version", "3.6.1.Final").put("db", "shop").put("table", "customers")
    value = Struct(ENVELOPE).put("op", op).put("ts_ms", 2000).put("source", source.put("ts_ms", 1000))
    value.put("before", before).put("after", after)
    id_ = (after or before).get("id")
    return make_record(
        value, value_schema=ENVELOPE, key=Struct(KEY).put("id", id_), key_schema=KEY, topic=topic, headers=headers
    )
