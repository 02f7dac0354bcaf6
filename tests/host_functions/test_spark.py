"""The Wasm transform inside real Spark: pickled to executors, run per Arrow batch."""

from __future__ import annotations

import os

import pytest

from smt.batch import RecordBatch
from smt.pipeline import PipelineSpec, run_pipeline
from smt.record import KAFKA_ROW_SCHEMA_DDL
from tests.host_functions import wat_guests as g

pytestmark = pytest.mark.spark


class _Raise:
    def fail(self, row, exc):
        raise exc


def test_map_in_arrow_with_the_fast_path(spark, make_transform, tmp_path):
    transform = make_transform(g.FILTER_FAN_OUT, "filter_fan_out", config_suffix="+")
    # the module file is gone: executors must use the bytes carried by the transform
    os.remove(transform.config["module.path"])
    rows = [(b"k%d" % i, b"%c-%d" % (97 + i % 2, i), "in", 0, i) for i in range(40)]
    df = spark.createDataFrame(rows, "key binary, value binary, topic string, partition int, offset long")
    df = df.selectExpr(
        "key",
        "value",
        "topic",
        "partition",
        "offset",
        "timestamp_millis(offset) as timestamp",
        "0 as timestampType",
        "array(named_struct('key', 'h', 'value', key)) as headers",
    )

    def transform_batches(batches):
        for arrow_batch in batches:
            yield transform.apply_batch(RecordBatch.from_arrow(arrow_batch), _Raise()).to_arrow()

    out = df.mapInArrow(transform_batches, KAFKA_ROW_SCHEMA_DDL).collect()
    # odd first byte ('a') fans out to three records; even ('b') is dropped
    assert len(out) == 60
    values = sorted((r.offset, r.key, r.value) for r in out)
    assert values[:3] == [(0, b"a-0", b"+"), (0, b"k0", b"+"), (0, b"k0", b"a-0")]
    assert {r.offset % 2 for r in out} == {0}
    assert all(r.headers[0].value == b"k%d" % r.offset for r in out if r.key.startswith(b"k"))


def test_pipeline_from_properties_with_the_java_class_name(spark, tmp_path, wasm_file):
    source = tmp_path / "in.txt"
    source.write_text("hello\nwasm world\n", encoding="utf-8")
    spec = PipelineSpec.from_properties(
        {
            "source": "file",
            "source.path": str(source),
            "source.format": "text",
            "sink": "file",
            "sink.path": str(tmp_path / "out"),
            "sink.format": "text",
            "value.converter": "string",
            "transforms": "up",
            "transforms.up.type": "com.github.lburgazzoli.kafka.transformer.wasm.WasmTransformer",
            "transforms.up.module.path": wasm_file(g.TO_UPPER),
            "transforms.up.function.name": "to_upper",
            "transforms.up.value.converter": "string",
        }
    )
    run_pipeline(spec, spark=spark)
    lines = []
    for name in sorted(os.listdir(tmp_path / "out")):
        if name.startswith("part-"):
            lines += (tmp_path / "out" / name).read_text(encoding="utf-8").splitlines()
    assert sorted(lines) == ["HELLO", "WASM WORLD"]
