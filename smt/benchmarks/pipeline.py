"""Pipeline benchmark: generated JSON events, files → to_upper → files, against hand-written PySpark.

Generates ``2_000_000 × scale`` events once (the generator source, written as
text files: one JSON value per line), then, in the same SparkSession:

- ours: ``smt`` pipeline ``file(text) → to_upper → file(text)``, where
  to_upper is the Wasm benchmark's guest (:data:`smt.benchmarks.wasm.TO_UPPER_WAT`,
  transform ``wasm``, fast path) when the Wasm transform is installed, else a
  stand-in Arrow transform (the row's label says which);
- baseline: ``spark.read.text → upper(value) → write.text``, Spark builtins only.

Each side runs twice and keeps its best time; the target is ours ≥ 0.5× the
baseline's records/s.  A second row measures how the pipeline's Python read
tasks run: as the partitions of a Python data source (Spark 4's
``pyspark.sql.datasource``) against ``spark.range`` + ``mapInArrow`` (what
pipelines use: it was the faster, 114k vs 92k records/s on 1M events).
``python -m smt.benchmarks.pipeline [scale]`` prints them.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from typing import Any

from smt.benchmarks._common import Comparison, measure
from smt.local.spark_session import local_spark
from smt.plugins import hookimpl
from smt.transform import Transform

RECORDS = 2_000_000
TARGET_RATIO = 0.5


class ArrowToUpper(Transform):
    """Stand-in for the Wasm guest: upper-cases values with Arrow compute, a whole column at a time."""

    name = "bench-arrow-to-upper"

    def apply_batch(self, batch, errors):
        import pyarrow as pa
        import pyarrow.compute as pc

        values = batch.arrow_column("value").cast(pa.string())
        batch.set_column("value", pc.utf8_upper(values).cast(pa.binary()))
        return batch


class _BenchmarkPlugin:
    @hookimpl
    def smt_transforms(self):
        return [ArrowToUpper]


def run(scale: float = 1.0) -> list[Comparison]:
    records = max(1_000, int(RECORDS * scale))
    spark = _session()
    work = tempfile.mkdtemp(prefix="smt-bench-pipeline-")
    try:
        source = os.path.join(work, "in")
        generate_events(spark, records, source)
        plugins, transform, label = _to_upper(work)
        ours = measure(label, records, lambda: _run_ours(spark, plugins, transform, source, work, records), repeat=2)
        baseline_out = os.path.join(work, "baseline")
        baseline = measure("PySpark upper()", records, lambda: _run_handwritten(spark, source, baseline_out), repeat=2)
        _check_written(spark, baseline_out, records)
        readers = [
            measure(
                label,
                records,
                lambda: _read_tasks_only(spark, plugins, transform, source, data_source),  # noqa: B023 - called before the loop moves on
                repeat=2,
            )
            for label, data_source in (("Python data source", True), ("spark.range + mapInArrow", False))
        ]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [
        Comparison("pipeline files → to_upper → files", ours, baseline, TARGET_RATIO),
        Comparison("read tasks → to_upper → noop: how Spark runs them", *readers),
    ]


def generate_events(spark: Any, records: int, path: str) -> None:
    """``records`` generator events as text files (one JSON value per line) at ``path``."""
    from connectors.file.formats import FORMATS
    from connectors.generator import GeneratorSource

    source = GeneratorSource()
    source.configure({"records": str(records)})
    FORMATS["text"].write(source.read(spark), path, "overwrite")


def _to_upper(work: str) -> tuple[Any, dict[str, str], str]:
    """The plugins registry, the transform's settings and the row label: Wasm if installed."""
    from smt.plugins import load_plugins

    plugins = load_plugins(extra_plugins=[_BenchmarkPlugin()])
    try:
        plugins.get("transform", "wasm")
    except KeyError:
        return plugins, {"type": ArrowToUpper.name}, "smt, Arrow stand-in (no wasm)"
    from smt.benchmarks.wasm import TO_UPPER_WAT

    guest = os.path.join(work, "to_upper.wat")
    with open(guest, "w", encoding="utf-8") as handle:
        handle.write(TO_UPPER_WAT)
    return plugins, {"type": "wasm", "module.path": guest, "function.name": "to_upper"}, "smt, Wasm to_upper"


def _run_ours(spark, plugins, transform: dict[str, str], source: str, work: str, records: int) -> None:
    from smt.pipeline import PipelineSpec, run_pipeline

    props = {
        "source": "file",
        "source.path": source,
        "source.format": "text",
        "sink": "file",
        "sink.path": os.path.join(work, "ours"),
        "sink.format": "text",
        "sink.write.mode": "overwrite",
        "transforms": "upper",
        **{f"transforms.upper.{k}": v for k, v in transform.items()},
    }
    spec = PipelineSpec.from_properties(props, plugins=plugins)
    # The SQL settings `smt run` would give its own session (Arrow batch size, ...).
    for key, value in spec.spark_conf().items():
        if key.startswith("spark.sql."):
            spark.conf.set(key, value)
    result = run_pipeline(spec, spark=spark)
    if result.counts.written != records:
        raise RuntimeError(f"pipeline wrote {result.counts.written} of {records} records")


def _read_tasks_only(spark, plugins, transform: dict[str, str], source: str, data_source: bool) -> None:
    """The text files read and transformed in Python tasks, run one way or the other, output discarded."""
    from smt.pipeline import PipelineSpec
    from smt.pipeline.counts import CountsLayout
    from smt.pipeline.processor import BatchProcessor
    from smt.pipeline.runner import read_and_transform

    props = {
        "source": "file",
        "source.path": source,
        "source.format": "text",
        "sink": "noop",
        "transforms": "upper",
        **{f"transforms.upper.{k}": v for k, v in transform.items()},
    }
    spec = PipelineSpec.from_properties(props, plugins=plugins)
    out = read_and_transform(
        spark,
        spec.source.read_tasks(spark),
        BatchProcessor.from_spec(spec),
        CountsLayout(("upper",)),
        plan=spec.field_plan,
        data_source=data_source,
    )
    out.write.format("noop").mode("overwrite").save()


def _run_handwritten(spark, source: str, out: str) -> None:
    from pyspark.sql import functions as F

    spark.read.text(source).select(F.upper(F.col("value")).alias("value")).write.mode("overwrite").text(out)


def _check_written(spark, out: str, records: int) -> None:
    written = spark.read.text(out).count()
    if written != records:
        raise RuntimeError(f"hand-written job wrote {written} of {records} records")


def _session():
    return local_spark("smt-bench-pipeline")


if __name__ == "__main__":  # pragma: no cover
    from smt.benchmarks.runner import area_main

    sys.exit(area_main(run, sys.argv[1:]))
