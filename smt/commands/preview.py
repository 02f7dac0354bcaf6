"""``smt preview``: a few records through the chain, shown before and after every stage; nothing written.

The records come from the pipeline's own source (``--from FILE``: the lines
of FILE instead), read as ``smt run`` reads them: by the source's Python read
tasks where it has them, else by Spark's reader, limited to ``--limit``.  A
Kafka source is read as a batch query, which commits no offset.

Two passes over the same records:

- the *trace*: the converters, then each stage of the chain on its own
  (:meth:`TransformChain.apply_batch` with that one stage), so each record is
  shown as every stage leaves it, or where it was dropped or failed and why;
- the *outcome*: the records through :class:`BatchProcessor`, the code
  ``smt run`` runs on each batch, with a fresh copy of the pipeline (a
  stateful transform starts again); what the sink would receive and what would
  be dead-lettered is exactly what ``smt run`` gives for these records.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any, TextIO

import pyarrow as pa

from smt.batch import RecordBatch
from smt.chain import ChainErrors, TransformChain
from smt.commands.output import EXIT_OK, print_warnings
from smt.commands.overrides import add_override_options, load_spec
from smt.errors import SmtError, StageError

__all__ = ["Preview", "add_commands", "preview_records", "read_records"]

DEFAULT_LIMIT = 10


def add_commands(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    preview = commands.add_parser(
        "preview", parents=[common], help="show a few records before and after every stage; writes nothing",
        description="Read a few records from the pipeline's source (nothing is committed, nothing is "
        "written), run them through the converters and the chain, and show each record as every stage "
        "leaves it, with the reason of each dead letter; then what the sink would receive, as smt run "
        "gives it for these records.",
    )  # fmt: skip
    preview.add_argument("pipeline", help="the pipeline's .properties file")
    preview.add_argument("--limit", type=_positive, default=DEFAULT_LIMIT, metavar="N",
                         help=f"how many records to read (default {DEFAULT_LIMIT})")  # fmt: skip
    preview.add_argument("--from", dest="from_file", metavar="FILE",
                         help="read the records from FILE (one record value a line) instead of the source")  # fmt: skip
    add_override_options(preview)
    preview.set_defaults(handler=preview_command)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got '{text}'")
    return int(text)


def preview_command(args: argparse.Namespace) -> int:
    from smt.commands.pipeline import spark_log_file
    from smt.pipeline import build_spark_session

    if args.from_file:
        _read_from(args)
    spec = load_spec(args)
    print_warnings(spec.notices, spec.variables.mask if spec.variables is not None else str)
    spark = build_spark_session(spec, jvm_log=spark_log_file(spec, args))
    records = read_records(spec, spark, args.limit)
    fresh = load_spec(args)  # the outcome's own transforms: a stateful one starts again
    preview_records(spec, records, fresh).show()
    return EXIT_OK


def _read_from(args: argparse.Namespace) -> None:
    """``--from FILE``: the file source in place of the pipeline's, on the topic the records had."""
    import os

    from smt.properties import load_properties

    props = load_properties(args.pipeline)
    topic = str(props.get("source.topic") or str(props.get("source.topics", "")).split(",")[0].strip())
    args.unset = [*args.unset, *(key for key in props if key.startswith("source."))]
    args.overrides = [*args.overrides, ("source", "file"), ("source.path", os.path.abspath(args.from_file)),
                      ("source.format", "text"), *([("source.topic", topic)] if topic else [])]  # fmt: skip


def read_records(spec: Any, spark: Any, limit: int) -> pa.RecordBatch:
    """The source's first ``limit`` records in Kafka row layout, read as ``smt run`` reads them."""
    tasks = spec.source.read_tasks(spark)
    if tasks is not None:
        batches: list[pa.RecordBatch] = []
        for task in tasks:
            for batch in task.batches(limit):
                batches.append(batch.slice(0, limit - sum(b.num_rows for b in batches)))
                if sum(b.num_rows for b in batches) >= limit:
                    return _one_batch(batches)
        return _one_batch(batches)
    from smt.pipeline.runner import null_headers_empty

    table = null_headers_empty(spec.source.read(spark, streaming=False)).limit(limit).toArrow()
    return table.combine_chunks().to_batches()[0] if table.num_rows else pa.RecordBatch.from_pylist([], table.schema)


def _one_batch(batches: list[pa.RecordBatch]) -> pa.RecordBatch:
    table = pa.Table.from_batches(batches).combine_chunks()
    return table.to_batches()[0] if table.num_rows else batches[0].slice(0, 0)


@dataclasses.dataclass
class Step:
    """What one step (a converter, a stage) left of one input record: records (shown as they were
    then: a later stage may change a record in place), or a drop, or a failure."""

    name: str
    records: list[str]
    error: StageError | None = None


@dataclasses.dataclass
class Preview:
    """Each input record's steps, and the outcome ``smt run`` gives for the records."""

    inputs: list[Any]
    steps: list[list[Step]]
    output: pa.RecordBatch | None
    stopped: SmtError | None = None

    def show(self, out: TextIO | None = None) -> None:
        import sys

        out = out or sys.stdout
        for number, (record, steps) in enumerate(zip(self.inputs, self.steps), start=1):
            print(f"record {number}: {_where(record)}", file=out)
            print(f"  {'read':<28} {_show(record)}", file=out)
            for step in steps:
                if step.error is not None:
                    print(f"  {step.name:<28} dead letter: {step.error}", file=out)
                    break
                if not step.records:
                    print(f"  {step.name:<28} dropped", file=out)
                    break
                for shown in step.records:
                    print(f"  {step.name:<28} {shown}", file=out)
        self._show_outcome(out)

    def _show_outcome(self, out: TextIO) -> None:
        if self.stopped is not None:
            print(f"smt run would stop: {self.stopped}", file=out)
            return
        written = self.written()
        print(f"to the sink, as smt run gives them ({len(written)}):", file=out)
        for row in written:
            print(f"  {row['topic']} key={_bytes(row.get('key'))} value={_bytes(row.get('value'))}", file=out)
        print(f"dead-lettered: {self.dead_lettered()}; nothing was written", file=out)

    def written(self) -> list[dict[str, Any]]:
        """The rows the sink would receive (Kafka row layout, the fields the sink takes)."""
        from smt.pipeline.counts import COUNTS_COLUMN
        from smt.pipeline.processor import DEAD_LETTER_COLUMN

        rows = self.output.to_pylist() if self.output is not None else []
        fields = [n for n in (self.output.schema.names if self.output is not None else ()) if n not in
                  (DEAD_LETTER_COLUMN, COUNTS_COLUMN)]  # fmt: skip
        return [{f: row[f] for f in fields} for row in rows if row.get(DEAD_LETTER_COLUMN) is False]

    def dead_lettered(self) -> int:
        from smt.pipeline.processor import DEAD_LETTER_COLUMN

        rows = self.output.to_pylist() if self.output is not None else []
        return sum(1 for row in rows if row.get(DEAD_LETTER_COLUMN) is True)


def preview_records(spec: Any, records: pa.RecordBatch, fresh: Any = None) -> Preview:
    """The trace of ``records`` through ``spec``'s converters and stages, and their outcome.

    ``fresh`` is a second spec of the same pipeline for the outcome (default:
    ``spec``; then a stateful transform sees each record twice).
    """
    from smt.pipeline.processor import BatchProcessor

    processor = BatchProcessor.from_spec(spec)
    batch, failed = processor.decode(records)
    inputs = RecordBatch.from_arrow(records).records()
    steps: list[list[Step]] = [[] for _ in inputs]
    for origin, failure in failed.items():
        steps[origin].append(Step(str(failure.error.stage.value).lower().replace("_", " "), [], failure.error))
    for origin, record in zip(batch.origins(), batch.records()):
        steps[origin].append(Step("converted", [_show(record)]))
    for stage in spec.chain.stages:
        errors = _Collected()
        batch = TransformChain([stage]).apply_batch(batch, errors)
        name = f"{stage.alias} ({spec.props.get(f'transforms.{stage.alias}.type', stage.class_name)})"
        by_origin: dict[int, list[str]] = {}
        for origin, record in zip(batch.origins(), batch.records()):
            by_origin.setdefault(origin, []).append(_show(record))
        for origin in {o for o, s in enumerate(steps) if s and s[-1].error is None and s[-1].records}:
            steps[origin].append(Step(name, by_origin.get(origin, []), errors.by_origin.get(origin)))
    outcome = BatchProcessor.from_spec(fresh or spec)
    try:
        output, _ = outcome.process(records)
    except SmtError as exc:  # errors.tolerance=none: the run stops at the first failed record
        return Preview(inputs, steps, None, exc)
    return Preview(inputs, steps, output)


class _Collected(ChainErrors):
    """A stage's failures by the input record they came from; the preview carries on past them."""

    def __init__(self) -> None:
        self.by_origin: dict[int, StageError] = {}

    def failed(self, origin: int, error: StageError) -> None:
        self.by_origin.setdefault(origin, error)


def _where(record: Any) -> str:
    return f"{record.topic}[{record.partition}]@{record.offset}"


def _show(record: Any) -> str:
    text = f"topic={record.topic} key={_value(record.key)} value={_value(record.value)}"
    if record.headers:
        text += " headers=[" + ", ".join(f"{k}={_value(v)}" for k, v in record.headers) + "]"
    return text


def _value(value: Any) -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _bytes(value)
    return "null" if value is None else str(value)


def _bytes(data: Any) -> str:
    return "null" if data is None else bytes(data).decode("utf-8", errors="backslashreplace")
