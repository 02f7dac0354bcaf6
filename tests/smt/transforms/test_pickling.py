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
    # These need struct keys or values (Debezium's ByLogicalTableRouter and HeaderToValue fail on maps).
    if cls.name.startswith("SetSchemaMetadata") or cls.name in ("ByLogicalTableRouter", "HeaderToValue"):
        schema = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build()
        record = make_record(
            Struct(schema).put("a", 1),
            key=Struct(schema).put("a", 2),
            value_schema=schema,
            key_schema=schema,
            headers=(("h", 1),),
        )
    elif cls.name.startswith("ExtractTopic"):  # a topic name is a string
        record = make_record({"a": "from-value"}, key={"a": "from-key"}, headers=(("a", "from-header"),))
        assert copy.apply(record).topic.startswith("from-")
    else:
        record = make_record({"a": 1}, key={"a": 2}, timestamp=1483425001864, headers=(("h", 1),))
    assert copy.apply(record) == xform.apply(record)


def test_a_pickled_pipeline_takes_no_plugin_registry_to_the_executors(tmp_path):
    """Unpickled in a fresh Python worker, a pipeline without Wasm imports neither wasmtime nor the Wasm host."""
    import subprocess
    import sys

    from pyspark import cloudpickle

    from smt.pipeline import PipelineSpec
    from smt.pipeline.processor import BatchProcessor

    (tmp_path / "in.txt").write_text("{}\n")
    spec = PipelineSpec.from_properties(
        {"source.path": str(tmp_path / "in.txt"), "sink.path": str(tmp_path / "out"), "value.converter": "json",
         "transforms": "mask", "transforms.mask.type": "MaskField$Value", "transforms.mask.fields": "card"}
    )  # fmt: skip
    (tmp_path / "processor.pkl").write_bytes(cloudpickle.dumps(BatchProcessor.from_spec(spec)))
    imported = ("import pickle, sys; pickle.loads(open('processor.pkl', 'rb').read()); "
                "print(sorted(m for m in sys.modules if m.split('.')[0] in ('wasmtime', 'host_functions')))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", imported], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr[-2000:]
