"""Running a pipeline on Spark: source → mapInArrow(processor) → sink (+ dead letters).

Where the source can read its input in Python (:meth:`Source.read_tasks`,
local text and Parquet files, say), each Spark task reads its share with
Arrow and transforms it on the spot, so records enter the JVM only once, as
results.  Otherwise the source's DataFrame goes through ``mapInArrow``.

The processor is built on the driver and shipped to executors inside the
``mapInArrow`` closure (Spark pickles it once per task); every executor
process then keeps what it compiled (Wasm modules) in its own caches.
Counts come back from the executors through Spark accumulators.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator

import pyarrow as pa

from smt.errors import SmtError
from smt.metrics import ChainMetrics, MetricsParam
from smt.pipeline.cluster import is_local_master, ship_project_code, use_executor_python
from smt.pipeline.processor import DEAD_LETTER_COLUMN, BatchCounts, BatchProcessor
from smt.pipeline.spec import PipelineSpec
from smt.pipeline.dead_letters import dead_letter_sink
from smt.pipeline.fields import FieldPlan, plan_fields
from smt.pipeline.jvm import jvm_failure, quiet_py4j_while_failing
from smt.record import KAFKA_ROW_FIELDS, KAFKA_ROW_SCHEMA_DDL, KAFKA_ROW_TYPES

if TYPE_CHECKING:  # pragma: no cover
    from connectors.read_tasks import ReadTask

__all__ = ["PipelineResult", "build_spark_session", "read_and_transform", "run_pipeline", "transform_dataframe"]

OUTPUT_SCHEMA_DDL = f"{KAFKA_ROW_SCHEMA_DDL}, {DEAD_LETTER_COLUMN} boolean"

_COUNT_FIELDS = [f.name for f in dataclasses.fields(BatchCounts)]

#: Rows per batch a read task produces when Spark's Arrow batch size is unlimited (0 or less).
_UNLIMITED_BATCH_ROWS = 1 << 20


class PipelineFailed(SmtError):
    """The Spark job failed; the message is the first line of the cause."""


@dataclasses.dataclass
class PipelineResult:
    """What a finished batch run did: input accounting, per-transform figures, time."""

    counts: BatchCounts
    seconds: float
    stages: ChainMetrics = dataclasses.field(default_factory=ChainMetrics)

    @property
    def records_per_second(self) -> float:
        return self.counts.read / self.seconds if self.seconds > 0 else 0.0


def build_spark_session(spec: PipelineSpec, jvm_log: str | os.PathLike | None = None):
    """A SparkSession configured from the pipeline (``spark.*`` keys, connector needs).

    With ``jvm_log``, a JVM this call starts writes its output (Spark's logs,
    Python workers' stderr) to that file instead of the terminal.
    """
    from pyspark.sql import SparkSession

    conf = spec.spark_conf()
    use_executor_python(conf)
    if conf["spark.master"].startswith("local"):
        # Local workers must run the same interpreter (and packages) as the driver.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if jvm_log is not None:
        from smt.pipeline.jvm_output import start_jvm_logging_to

        start_jvm_logging_to(jvm_log, {**conf, "spark.app.name": spec.config["name"]})
    master = conf.pop("spark.master")
    builder = SparkSession.builder.appName(spec.config["name"]).master(master)
    for key, value in conf.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel(conf.get("spark.log.level", "ERROR"))
    if not is_local_master(master):
        # Executors in other processes may not have this package installed.
        ship_project_code(session)
    return session


class _Accumulators:
    """Spark accumulators: one per :class:`BatchCounts` field, one for per-transform metrics."""

    def __init__(self, spark) -> None:
        context = spark.sparkContext
        self._accumulators = {name: context.accumulator(0) for name in _COUNT_FIELDS}
        self._stages = context.accumulator(ChainMetrics(), MetricsParam())

    def add(self, counts: BatchCounts, stages: ChainMetrics) -> None:
        for name, accumulator in self._accumulators.items():
            value = getattr(counts, name)
            if value:
                accumulator.add(value)
        if stages:
            self._stages.add(stages)

    def snapshot(self) -> BatchCounts:
        return BatchCounts(**{name: acc.value for name, acc in self._accumulators.items()})

    def stages(self) -> ChainMetrics:
        return self._stages.value


def transform_dataframe(
    df,
    processor: BatchProcessor,
    accumulators: _Accumulators | None = None,
    plan: FieldPlan | None = None,
):
    """``df`` (Kafka row layout) through the processor: records and dead letters, flagged.

    With a ``plan``, only its input fields go into Python and only its output
    fields come back (see :mod:`smt.pipeline.fields`).
    """
    extra = [c for c in df.columns if c not in KAFKA_ROW_FIELDS]  # e.g. a source's error column
    if plan is not None:
        df = df.select(*plan.inputs, *extra)
    process = _BatchStep(processor, accumulators)

    def process_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for arrow_batch in batches:
            yield process(arrow_batch)

    return df.mapInArrow(process_partition, _output_ddl(plan))


def read_and_transform(
    spark,
    tasks: list[ReadTask],
    processor: BatchProcessor,
    accumulators: _Accumulators | None = None,
    plan: FieldPlan | None = None,
):
    """The source's read tasks, each read and transformed inside one Python task.

    Spark runs one task per read task (the input rows are just task numbers);
    the batches a task reads go through the processor where they were read,
    so only the results cross into the JVM.
    """
    max_rows = int(spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch", "10000"))
    if max_rows <= 0:  # Spark's "no limit"; a read task still needs a batch size
        max_rows = _UNLIMITED_BATCH_ROWS
    process = _BatchStep(processor, accumulators)

    def read_partition(task_numbers: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for numbers in task_numbers:
            for number in numbers.column(0).to_pylist():
                for arrow_batch in tasks[number].batches(max_rows):
                    yield process(arrow_batch)

    numbered = spark.range(len(tasks), numPartitions=max(1, len(tasks)))
    return numbered.mapInArrow(read_partition, _output_ddl(plan))


class _BatchStep:
    """One input batch through the processor, its counts added to the accumulators."""

    def __init__(self, processor: BatchProcessor, accumulators: _Accumulators | None) -> None:
        self.processor = processor
        self.accumulators = accumulators

    def __call__(self, arrow_batch: pa.RecordBatch) -> pa.RecordBatch:
        stages = ChainMetrics() if self.accumulators is not None else None
        out, counts = self.processor.process(arrow_batch, stages)
        if self.accumulators is not None:
            self.accumulators.add(counts, stages)
        return out


def _output_ddl(plan: FieldPlan | None) -> str:
    if plan is None:
        return OUTPUT_SCHEMA_DDL
    return f"{_ddl(plan.outputs)}, {DEAD_LETTER_COLUMN} boolean"


def _ddl(fields: tuple[str, ...]) -> str:
    """Spark DDL of the Kafka row layout restricted to ``fields``."""
    return ", ".join(f"{name} {KAFKA_ROW_TYPES[name]}" for name in fields)


def run_pipeline(
    spec: PipelineSpec,
    spark=None,
    on_progress: Callable[[BatchCounts, float], None] | None = None,
    progress_interval: float = 0.5,
) -> PipelineResult:
    """Run the pipeline to completion (batch mode) or until stopped (streaming).

    ``on_progress(counts, seconds)`` is called from a driver thread every
    ``progress_interval`` seconds with the counts the executors reported so
    far.  Raises :class:`PipelineFailed` with the underlying record error when
    a record fails with ``errors.tolerance=none``, and
    :class:`smt.pipeline.jvm.JvmFailure` naming the memory settings when the
    JVM runs out of memory or dies.
    """
    spark = spark or build_spark_session(spec)
    accumulators = _Accumulators(spark)
    processor = BatchProcessor.from_spec(spec)
    started = time.perf_counter()
    with _ProgressThread(accumulators, started, on_progress, progress_interval), quiet_py4j_while_failing():
        _run(spec, spark, processor, accumulators)
    return PipelineResult(accumulators.snapshot(), time.perf_counter() - started, accumulators.stages())


def _run(spec: PipelineSpec, spark, processor: BatchProcessor, accumulators: _Accumulators) -> None:
    try:
        dead_letters = dead_letter_sink(spec)
        if dead_letters is not None and hasattr(dead_letters, "check"):
            # A dead-letter queue that cannot be written must fail the run
            # before any output is written, not after.
            dead_letters.check(spark)
        write_outputs = functools.partial(_write_outputs, dead_letters=dead_letters)
        out = _transformed_source(spec, spark, processor, accumulators)
        if spec.streaming:
            from smt.pipeline.streaming import run_streaming

            run_streaming(spec, spark, out, write_outputs)
        else:
            write_outputs(spec, out, None)
    except SmtError:
        raise
    except Exception as exc:
        failure = jvm_failure(exc, spark, spec.spark_conf())
        if failure is not None:
            raise failure from exc
        raise PipelineFailed(_first_cause_line(exc)) from exc


def _transformed_source(spec: PipelineSpec, spark, processor: BatchProcessor, accumulators: _Accumulators):
    """The source's records through the processor: read in Python where the source can, else by Spark."""
    plan = plan_fields(spec)
    tasks = None if spec.streaming else spec.source.read_tasks(spark)
    if tasks is not None:
        return read_and_transform(spark, tasks, processor, accumulators, plan)
    return transform_dataframe(spec.source.read(spark, streaming=spec.streaming), processor, accumulators, plan)


class _ProgressThread:
    """Calls ``on_progress`` periodically while the job runs (a no-op without a callback)."""

    def __init__(self, accumulators: _Accumulators, started: float, on_progress, interval: float) -> None:
        self._accumulators = accumulators
        self._started = started
        self._on_progress = on_progress
        self._interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "_ProgressThread":
        if self._on_progress is not None:
            self._thread = threading.Thread(target=self._loop, name="smt-progress", daemon=True)
            self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self._on_progress(self._accumulators.snapshot(), time.perf_counter() - self._started)

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            # The final figures, also when the run failed: what was counted up to then.
            self._on_progress(self._accumulators.snapshot(), time.perf_counter() - self._started)


def _write_outputs(spec: PipelineSpec, out, batch_id: int | None, dead_letters: Any = None) -> None:
    """Write one run's (or micro-batch's) records to the sink and dead letters to their queue."""
    from pyspark.sql import functions as F

    if dead_letters is None:
        spec.sink.write(out.where(~F.col(DEAD_LETTER_COLUMN)).drop(DEAD_LETTER_COLUMN), batch_id)
        return
    out = out.persist()
    try:
        spec.sink.write(out.where(~F.col(DEAD_LETTER_COLUMN)).drop(DEAD_LETTER_COLUMN), batch_id)
        dead = out.where(F.col(DEAD_LETTER_COLUMN)).drop(DEAD_LETTER_COLUMN)
        dead_letters.write(dead, batch_id)
    finally:
        out.unpersist()


def _first_cause_line(exc: BaseException) -> str:
    """The most useful line of a Spark/Py4J error.

    A Python worker's failure arrives as a traceback inside the message: its
    last ``SomeError: message`` line is the cause.  Otherwise the first line.
    """
    text = str(exc)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        # Py4J puts the Java exception on a line of its own that starts with ": ".
        name, sep, message = line.removeprefix(": ").partition(": ")
        if sep and name.replace(".", "").isidentifier() and name.split(".")[-1].endswith(("Error", "Exception")):
            return f"{name.split('.')[-1]}: {message}"
    return lines[0] if lines else type(exc).__name__
