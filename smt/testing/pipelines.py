"""Running a whole pipeline inside a test: what it wrote, what it set aside, and its counts.

:func:`run_test_pipeline` (the ``run_pipeline`` fixture) runs a pipeline file
or mapping on the test session's Spark, with its sink and dead-letter queue
*captured*: the records go to Parquet files (the Kafka row layout, bytes kept
exactly) and the dead letters to ``jsonl`` files in the test's temporary
folder, and both come back as :class:`smt.Record` lists.  Everything before
the sink is the pipeline's own: source, converters, transforms, predicates
and error handling.  The sink's own delivery (a Kafka producer, a text
file's line rules) is not exercised: test it with the sink itself.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any, Mapping

from smt.record import KAFKA_ROW_FIELDS, Record

__all__ = ["PipelineOutcome", "run_test_pipeline"]

#: Keys of the user's file replaced by the capture.
_CAPTURED_PREFIXES = ("sink.", "errors.deadletterqueue.topic.", "errors.deadletterqueue.kafka.")
_CAPTURED_KEYS = ("sink", "errors.deadletterqueue.path")


@dataclasses.dataclass
class PipelineOutcome:
    """What a pipeline run in a test produced."""

    #: The records the sink received, with keys and values as the converters encoded them.
    records: list[Record]
    #: The original input records that failed, with ``__connect.errors.*`` headers when enabled.
    dead_letters: list[Record]
    #: Read, written, filtered, failed and dead-lettered (:class:`smt.pipeline.BatchCounts`).
    counts: Any
    #: Per-transform figures: alias -> records in and out, dropped, errors, seconds.
    stages: Any


def run_test_pipeline(
    props_or_path: str | os.PathLike | Mapping[str, Any], spark: Any, workdir: str | os.PathLike,
    overrides: Mapping[str, str] | None = None,
) -> PipelineOutcome:  # fmt: skip
    """Run the pipeline on ``spark`` with its outputs captured under ``workdir``.

    ``overrides`` replace keys of the file (as ``smt run --set`` does).
    Raises what ``smt run`` would report: :class:`smt.ConfigError` for an
    invalid file, :class:`smt.pipeline.PipelineFailed` when a record fails
    with ``errors.tolerance=none``.
    """
    from smt.pipeline import PipelineSpec, run_pipeline

    workdir = Path(workdir)
    output, dead_letters = workdir / "output", workdir / "dead-letters"
    props, base_dir = _load(props_or_path)
    props = {k: v for k, v in {**props, **(overrides or {})}.items()
             if not k.startswith(_CAPTURED_PREFIXES) and k not in _CAPTURED_KEYS}  # fmt: skip
    props.update({"sink": "file", "sink.path": str(output), "sink.format": "parquet", "sink.write.mode": "overwrite",
                  "errors.deadletterqueue.path": str(dead_letters)})  # fmt: skip
    spec = PipelineSpec.from_properties(props, base_dir=base_dir)
    result = run_pipeline(spec, spark=spark)
    return PipelineOutcome(
        records=_read(spark, output, "parquet"),
        dead_letters=_read(spark, dead_letters, "jsonl") if spec.policy.tolerates_all else [],
        counts=result.counts,
        stages=result.stages,
    )


def _load(props_or_path: str | os.PathLike | Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The properties, and the folder their relative paths start from (a file's own, as ``smt run`` does)."""
    if isinstance(props_or_path, Mapping):
        return dict(props_or_path), None
    from smt.properties import load_properties

    path = os.fspath(props_or_path)
    return load_properties(path), os.path.dirname(os.path.abspath(path))


def _read(spark: Any, folder: Path, fmt: str) -> list[Record]:
    from connectors.file.formats import FORMATS, ReadOptions
    from smt.batch import RecordBatch

    if not folder.is_dir():
        return []
    table = FORMATS[fmt].read(spark, ReadOptions(str(folder), topic="")).select(*KAFKA_ROW_FIELDS).toArrow()
    return [record for batch in table.to_batches() for record in RecordBatch.from_arrow(batch).records()]
