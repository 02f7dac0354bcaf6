"""Configured transforms travel to Spark executors: pickle round trips rebuild them from their config."""

import pickle

import pytest

from smt.data import Schema, SchemaBuilder, Struct
from smt.plugin import PluginContext
from tests.smt.transforms._helpers import make_record
from tests.smt.transforms.test_tombstones import MINIMAL_CONFIG, registered


@pytest.mark.parametrize("cls", registered(), ids=lambda c: c.name)
def test_round_trip_rebuilds_an_equivalent_transform(cls):
    xform = cls()
    xform.configure(MINIMAL_CONFIG[cls.name.split("$")[0]], PluginContext(alias="a", prefix="transforms.a."))
    copy = pickle.loads(pickle.dumps(xform))
    assert type(copy) is cls and copy.context.prefix == "transforms.a." and copy.config == xform.config
    if cls.name.startswith("SetSchemaMetadata"):
        schema = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build()
        record = make_record(
            Struct(schema).put("a", 1), key=Struct(schema).put("a", 2), value_schema=schema, key_schema=schema
        )
    else:
        record = make_record({"a": 1}, key={"a": 2}, timestamp=1483425001864, headers=(("h", 1),))
    assert copy.apply(record) == xform.apply(record)
