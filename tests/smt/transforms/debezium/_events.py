"""Debezium change events in the PostgreSQL connector's layout, shared by the Debezium SMT tests."""

from smt.data import Schema, SchemaBuilder, Struct
from tests.smt.transforms._helpers import make_record

ROW = (
    SchemaBuilder.struct()
    .name("server.public.customers.Value")
    .field("id", Schema.INT32_SCHEMA)
    .field("email", Schema.OPTIONAL_STRING_SCHEMA)
    .field("photo", Schema.OPTIONAL_BYTES_SCHEMA)
    .field("score", Schema.OPTIONAL_FLOAT64_SCHEMA)
    .optional()
    .build()
)
SOURCE = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.postgresql.Source")
    .field("version", Schema.STRING_SCHEMA)
    .field("db", Schema.STRING_SCHEMA)
    .field("table", Schema.STRING_SCHEMA)
    .field("ts_ms", Schema.INT64_SCHEMA)
    .build()
)
ENVELOPE = (
    SchemaBuilder.struct()
    .name("server.public.customers.Envelope")
    .field("before", ROW)
    .field("after", ROW)
    .field("source", SOURCE)
    .field("op", Schema.STRING_SCHEMA)
    .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
    .build()
)
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
