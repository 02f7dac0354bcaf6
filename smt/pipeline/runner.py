"""Running a pipeline on Spark: source → mapInArrow(processor) → sink (+ dead letters).

Where the source can read its input in Python (:meth:`Source.read_tasks`,
local text and Parquet files, say), each Spark task reads its share with
Arrow and transforms it on the spot, so records enter the JVM only once, as
results.  Otherwise the source's DataFrame goes through ``mapInArrow``.

The processor is built on the driver and shipped to executors inside the
``mapInArrow`` closure (Spark pickles it once per task); every executor
process then keeps what it compiled (Wasm modules) in its own caches.
Counts come back with the output, one counts row per batch, summed by
``DataFrame.observe`` (:mod:`smt.pipeline.counts`), so the same code runs on a
classic and a Spark Connect session; a classic session also feeds a live
progress line from accumulators.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import logging
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator

import pyarrow as pa
import pyarrow.compute as pc

from smt.compiled import NotCompilable
from smt.connector_roles import TaskWriter
from smt.errors import ConfigError, DataError, SmtError, StageError, chain_text
from smt.metrics import ChainMetrics
from smt.pipeline.checkpoint_lock import checkpoint_lock
from smt.pipeline.compiled_plan import NO_SPLIT, AllCompiledPlan, BetLost, PythonPlan, RunPlan, SplitPlan, plan_run
from smt.pipeline.counts import COUNTS_COLUMN, CountsLayout, LiveCounts, observed_sums, observed_values
from smt.pipeline.extra_columns import ERROR_COLUMNS, extra_columns
from smt.pipeline.failed_counts import SINK, FailedRunCounts, failed_run_counts
from smt.pipeline.fields import FieldPlan
from smt.pipeline.jvm import jvm_failure, quiet_py4j_while_failing
from smt.pipeline.jvm_stream import forget_uncommitted_batch, jvm_stream, unvouched_record
from smt.pipeline.micro_batches import KEPT, MicroBatchTiming, from_progress
from smt.pipeline.new_outputs import NewOutputs
from smt.pipeline.os_causes import os_cause
from smt.pipeline.processor import DEAD_LETTER_COLUMN, BatchCounts, BatchProcessor
from smt.pipeline.session import build_spark_session
from smt.pipeline.spec import PipelineSpec
from smt.python_worker import prepare_worker
from smt.record import KAFKA_ROW_FIELDS, KAFKA_ROW_TYPES
from smt.sessions import is_connect

if TYPE_CHECKING:  # pragma: no cover
    from smt.connector import ReadTask

__all__ = ["PipelineResult", "build_spark_session", "read_and_transform", "run_pipeline", "transform_dataframe"]

#: Rows per batch a read task produces when Spark's Arrow batch size is unlimited (0 or less).
_UNLIMITED_BATCH_ROWS = 1 << 20

#: How long a finished batch run waits for Spark's listener to deliver the counts.
_OBSERVATION_WAIT_S = 30.0

log = logging.getLogger(__name__)


class PipelineFailed(SmtError):
    """The Spark job failed; the message is the first line of the cause."""


@dataclasses.dataclass
class PipelineResult:
    """What a finished batch run did: input accounting, per-transform figures, time."""

    counts: BatchCounts
    seconds: float
    stages: ChainMetrics = dataclasses.field(default_factory=ChainMetrics)
    #: Which figures are true: "all"; "counts" (the records' counts came from Spark's accumulators, the
    #: per-transform figures did not come back); or "none" (no figure came back: they are unknown, not 0).
    known: str = "all"
    #: A streaming run's micro-batches, where each one's time went (the last KEPT of them).
    micro_batches: tuple[MicroBatchTiming, ...] = ()

    @property
    def records_per_second(self) -> float:
        return self.counts.read / self.seconds if self.seconds > 0 else 0.0


def transform_dataframe(
    df,
    processor: BatchProcessor,
    counts: CountsLayout,
    live: LiveCounts | None = None,
    plan: FieldPlan | None = None,
    written_in_task: "WrittenInTask | None" = None,
):
    """``df`` (Kafka row layout, plus any columns of its own) through the processor.

    The result has the output fields, ``df``'s extra columns (they travel
    with their records), the processor's error columns if it adds them, the
    dead-letter flag and the counts column.  With a ``plan``, only its input
    fields go into Python and only its output fields come back (see
    :mod:`smt.pipeline.fields`).  With ``written_in_task``, each task writes
    its output where the chain produced it, and only the counts rows come back.
    """
    internal = [c for c in df.columns if c not in KAFKA_ROW_FIELDS]  # extras, a source's error column
    if plan is not None:
        df = df.select(*plan.inputs, *internal)
    df = null_headers_empty(df)
    extras = {
        field.name: field.dataType.simpleString() for field in df.schema.fields if field.name in extra_columns(internal)
    }
    step = _BatchStep(processor, counts, live)

    def process_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        if written_in_task is not None:
            yield from written_in_task(step, batches)
            return
        for arrow_batch in batches:
            yield from step(arrow_batch)

    return df.mapInArrow(process_partition, _output_ddl(plan, processor, extras))


def null_headers_empty(df):
    """``df`` with null header lists made empty (the same to Kafka: no headers).

    Spark's Kafka source gives a record without headers a null list, and
    Spark's Arrow writer handles a column of null lists in time that grows
    with the Arrow batch size: at 65,536 rows a batch, passing a million
    Kafka records through Python took ten times longer than without the
    headers.  Empty lists cross cheaply.
    """
    from pyspark.sql import functions as F

    if "headers" not in df.columns:
        return df
    empty = F.array().cast(KAFKA_ROW_TYPES["headers"])
    return df.withColumn("headers", F.coalesce(F.col("headers"), empty))


def read_and_transform(
    spark,
    tasks: list[ReadTask],
    processor: BatchProcessor,
    counts: CountsLayout,
    live: LiveCounts | None = None,
    plan: FieldPlan | None = None,
    data_source: bool = False,
):
    """The source's read tasks, each read and transformed inside one Python task.

    Spark runs one task per read task (the input rows are just task numbers);
    the batches a task reads go through the processor where they were read,
    so only the results cross into the JVM.  ``data_source=True`` runs the
    tasks as the partitions of a Python data source instead
    (:mod:`smt.pipeline.read_source`, measured by ``smt bench pipeline``).
    """
    max_rows = int(spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch", "10000"))
    if max_rows <= 0:  # Spark's "no limit"; a read task still needs a batch size
        max_rows = _UNLIMITED_BATCH_ROWS
    step = _BatchStep(processor, counts, live)
    ddl = _output_ddl(plan, processor, {})
    if data_source:
        from smt.pipeline.read_source import read_tasks_source

        return read_tasks_source(spark, tasks, step, ddl, max_rows)

    def read_partition(task_numbers: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for numbers in task_numbers:
            for number in numbers.column(0).to_pylist():
                task = tasks[number]
                try:
                    for arrow_batch in task.batches(max_rows):
                        yield from step(arrow_batch)
                except StageError as exc:
                    raise _located(exc, task) from exc.__cause__

    numbered = spark.range(len(tasks), numPartitions=max(1, len(tasks)))
    return numbered.mapInArrow(read_partition, ddl)


def _located(error: StageError, task: ReadTask) -> StageError:
    """``error`` naming where the task read its record (a file and line), when the task can tell."""
    offset = getattr(error.record, "offset", None)
    location = task.locate(offset) if offset is not None else None
    return error.located(location) if location else error


class _BatchStep:
    """One input batch through the processor: its output, then its counts row."""

    def __init__(self, processor: BatchProcessor, counts: CountsLayout, live: LiveCounts | None) -> None:
        self.processor = processor
        self.counts = counts
        self.live = live

    def __call__(self, arrow_batch: pa.RecordBatch) -> Iterator[pa.RecordBatch]:
        prepare_worker()
        stages = ChainMetrics()
        out, counts = self.processor.process(arrow_batch, stages)
        if self.live is not None:
            self.live.add(counts)
        out = self.counts.without_counts(out)
        yield out
        yield self.counts.counts_row(out.schema, counts, stages)


@dataclasses.dataclass(frozen=True)
class WrittenInTask:
    """A task's batches through the processor and straight into the sink's task writer
    (:class:`smt.connector_roles.TaskWrite`), in the same Python worker: only the counts rows come back,
    once the writer says every record of the task is written."""

    write: Callable[[Iterator[pa.RecordBatch]], None]
    #: Whether the writer takes the dead letters too (told by the flag); else only the records.
    dead_letters: bool

    def __call__(self, step: _BatchStep, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        counts_rows: list[pa.RecordBatch] = []
        outputs = self._outputs(step, batches, counts_rows)
        self.write(outputs)
        if next(outputs, None) is not None:
            raise SmtError("the sink's task writer returned before it was given every batch of its task")
        yield from counts_rows

    def _outputs(
        self, step: _BatchStep, batches: Iterator[pa.RecordBatch], counts_rows: list[pa.RecordBatch]
    ) -> Iterator[pa.RecordBatch]:
        """The chain's output batches as the writer takes them; their counts rows kept in ``counts_rows``."""
        for arrow_batch in batches:
            out, counts_row = step(arrow_batch)
            counts_rows.append(counts_row)
            if not self.dead_letters:
                out = out.filter(pc.invert(out.column(DEAD_LETTER_COLUMN))).drop_columns([DEAD_LETTER_COLUMN])
            yield out.drop_columns([COUNTS_COLUMN])


def _output_ddl(plan: FieldPlan | None, processor: BatchProcessor, extras: dict[str, str]) -> str:
    fields = KAFKA_ROW_FIELDS if plan is None else plan.outputs
    columns = [(name, KAFKA_ROW_TYPES[name]) for name in fields]
    columns += extras.items()
    if processor.error_columns:
        columns += [(name, "string") for name in ERROR_COLUMNS]
    columns += [(DEAD_LETTER_COLUMN, "boolean"), (COUNTS_COLUMN, CountsLayout.SPARK_TYPE)]
    return ", ".join(f"`{name.replace('`', '``')}` {ddl}" for name, ddl in columns)


def run_pipeline(
    spec: PipelineSpec,
    spark=None,
    on_progress: Callable[[BatchCounts, float], None] | None = None,
    progress_interval: float = 0.5,
) -> PipelineResult:
    """Run the pipeline to completion (batch mode) or until stopped (streaming).

    ``on_progress(counts, seconds)`` is called from a driver thread every
    ``progress_interval`` seconds with the counts the executors reported so
    far (on a classic session; on Spark Connect a batch run reports only at
    the end, a streaming run after each micro-batch).  Raises
    :class:`PipelineFailed` with the underlying record error when a record
    fails with ``errors.tolerance=none``, and
    :class:`smt.pipeline.jvm.JvmFailure` naming the memory settings when the
    JVM runs out of memory or dies.
    """
    spark = spark or build_spark_session(spec)
    run = _Run(spec, spark, on_progress)
    snapshot = run.live.snapshot if run.live else None
    with (
        checkpoint_lock(spec),
        _ProgressThread(snapshot, run.started, on_progress, progress_interval),
        quiet_py4j_while_failing(),
    ):
        run.execute(progress_interval)
    seconds = time.perf_counter() - run.started
    return PipelineResult(run.counts, seconds, run.stages, run.known, tuple(run.micro_batches))


class _Run:
    """One run of a pipeline: its processor, how its counts come back, and the totals so far."""

    def __init__(self, spec: PipelineSpec, spark, on_progress) -> None:
        self.spec = spec
        self.spark = spark
        self.on_progress = on_progress
        self.processor = BatchProcessor.from_spec(spec)
        self.layout = CountsLayout(tuple(stage.alias for stage in spec.chain.stages))
        # Live counts need accumulators: classic sessions, batch runs (streaming reports per micro-batch).
        # Kept without a progress line too: the counts when a sink's write reports no observed metrics.
        self.live = LiveCounts(spark) if not spec.streaming and not is_connect(spark) else None
        self.counts = BatchCounts()
        self.stages = ChainMetrics()
        #: See PipelineResult.known.
        self.known = "all"
        self.started = time.perf_counter()
        #: The writes of a batch run that completed (see smt.pipeline.failed_counts).
        self.writes_done: set[str] = set()
        #: How a batch run reads its source (see smt.pipeline.compiled_plan); chosen by _transformed_source.
        self.plan: RunPlan = PythonPlan()
        #: A compiled plan's compiled rows, one DataFrame per schema, unioned with the counted Python half.
        self.compiled_rows: list = []
        #: A streaming run's micro-batches, where each one's time went.
        self.micro_batches: collections.deque[MicroBatchTiming] = collections.deque(maxlen=KEPT)

    def execute(self, progress_interval: float) -> None:
        """Run; an error raised carries ``failed_counts``, what the run committed before it failed."""
        try:
            dead_letters = self.spec.dead_letters
            write_outputs = functools.partial(_write_outputs, dead_letters=dead_letters, done=self.writes_done)
            # Before the processor (and the sink in it) is shipped with the job.
            checkpoint = self.spec.config["checkpoint.location"] if self.spec.streaming else None
            self.spec.open_outputs(self.spark, checkpoint)
            if self.spec.streaming:
                self._stream(write_outputs, progress_interval)
            else:
                self._batch_betting_on_compiled(self._transformed_source(), write_outputs)
                self.spec.source.committed()
        except SmtError as exc:
            exc.failed_counts = self._failed_counts()
            raise
        except Exception as exc:
            failure = jvm_failure(exc, self.spark, self.spec.spark_conf()) or PipelineFailed(
                os_cause(chain_text(exc)) or _first_cause_line(exc)
            )
            failure.failed_counts = self._failed_counts()
            raise failure from exc

    def _failed_counts(self) -> FailedRunCounts:
        dead_letters = self.spec.dead_letter_roles
        if self.spec.streaming:
            processed = self.counts
        else:
            processed = self.live.snapshot() if self.live is not None else None
        return failed_run_counts(
            processed,
            streaming=self.spec.streaming,
            writes_done=frozenset(self.writes_done),
            sink_atomic=self.spec.sink_roles.commits_atomically,
            dead_letters_atomic=dead_letters is None or dead_letters.commits_atomically,
        )

    def _transformed_source(self):
        """A batch run's records through the processor: read in Python where the source can, else by Spark."""
        spec, spark = self.spec, self.spark
        self.plan = plan_run(spec, spark)
        if not isinstance(self.plan, PythonPlan):
            return self._compiled_source(self.plan)
        return self._python_source()

    def _python_source(self):
        """A batch run's records through the processor, every one in Python."""
        spec, spark = self.spec, self.spark
        tasks = spec.source.read_tasks(spark)
        if tasks is not None:
            log.info("reading the source in %d Python task(s), transformed where read (%s)",
                     len(tasks), _fields(spec.field_plan))  # fmt: skip
            return read_and_transform(spark, tasks, self.processor, self.layout, self.live, spec.field_plan)
        self._log_chain_over()
        return self._chain_over(spec.source.read(spark, streaming=False))

    def _chain_over(self, df, written_in_task: WrittenInTask | None = None):
        """``df``, the source's records as Spark reads them, through the processor."""
        return transform_dataframe(df, self.processor, self.layout, self.live, self.spec.field_plan, written_in_task)

    def _log_chain_over(self) -> None:
        log.info("reading the source with Spark%s, then the chain over it (%s)",
                 " as a stream" if self.spec.streaming else "", _fields(self.spec.field_plan))  # fmt: skip

    def _compiled_source(self, plan: AllCompiledPlan | SplitPlan):
        """The plan's Python half through the processor (none for an AllCompiledPlan, as the split finds
        them for a SplitPlan); its compiled half, kept in ``compiled_rows``, joins it in :meth:`_batch`."""
        step = functools.partial(
            transform_dataframe, processor=self.processor, counts=self.layout, live=self.live, plan=self.spec.field_plan
        )
        if isinstance(plan, AllCompiledPlan):
            log.info("betting that every record takes the compiled path (if one does not, the run starts again)")
            python = [(step(plan.source.limit(0)), True)]
            self.compiled_rows = plan.compiled.all_compiled(plan.source)
        else:
            known, unknown, self.compiled_rows = plan.compiled.split(plan.source)
            python = [(step(known), True), (step(unknown), False)]
        return plan.compiled.python_input(python)

    def _batch_betting_on_compiled(self, out, write_outputs) -> None:
        """A batch run; when it bet on the compiled path and a record was not exact, once more, split."""
        plan = self.plan
        if not isinstance(plan, AllCompiledPlan):
            self._batch(out, write_outputs)
            return
        try:
            with plan.compiled.betting():
                self._batch(out, write_outputs)
        except BetLost as lost:
            plan.compiled.all_exact_first = False
            if not plan.compiled.may_split:
                log.info("running again, every record in Python: the sink takes no write split between the "
                         "compiled path and Python (Spark logged the failed write: %s)", lost)  # fmt: skip
                self.plan = PythonPlan(NO_SPLIT)
                self._batch(self._python_source(), write_outputs)
                return
            log.info(
                "running again, each record parsed once and split: a record takes the Python path "
                "(Spark logged the failed write: %s)",
                lost,
            )
            self.plan = SplitPlan(plan.compiled, plan.source)
            self._batch(self._compiled_source(self.plan), write_outputs)

    def _batch(self, out, write_outputs) -> None:
        from pyspark.sql import Observation

        observation = Observation(f"smt-counts-{self.spec.config['name']}")
        new_outputs = NewOutputs(self.spark, [self.spec.sink, self.spec.dead_letters])
        log.info("running the Spark job: the sink%s", " and the dead letters" if self.spec.dead_letters else "")
        out = out.observe(observation, *self.layout.sums())
        if not isinstance(self.plan, PythonPlan):
            # The one DataFrame the sink gets: the counted Python half and the compiled rows (counted apart).
            out = self.plan.compiled.sink_input(out, self.compiled_rows, DEAD_LETTER_COLUMN)
        try:
            write_outputs(self.spec, out, None)
        except BaseException:
            new_outputs.remove()
            if not isinstance(self.plan, PythonPlan):
                self.plan.compiled.release()
            raise
        log.info("written in %.1f s; waiting for the counts", time.perf_counter() - self.started)
        observed = observed_sums(observation, wait_s=_OBSERVATION_WAIT_S)
        if observed is not None and not observed.get(COUNTS_COLUMN) and self.live is not None:
            # No counts row: none was observed where the batches ran (a sink that printed them before
            # a write reported), or there was nothing to read; the accumulators tell which.
            observed = None if self.live.snapshot().read else observed
        if observed is not None:
            self._add(observed)
        elif self.live is not None:
            # A write Spark runs as a nested command (a table format's own) reports no observed metrics;
            # the accumulators saw every batch of the job, but not the per-transform figures.
            log.info("no observed counts came back from Spark: the records' counts are its accumulators'")
            self.counts.add(self.live.snapshot())
            self.known = "counts"
        else:
            log.warning("pipeline %s: no counts came back from Spark; they are unknown", self.spec.config["name"])
            self.known = "none"
        if not isinstance(self.plan, PythonPlan):
            self.counts.add(self.plan.compiled.counts())

    def _stream(self, write_outputs, progress_interval: float) -> None:
        from smt.pipeline.streaming import run_streaming

        name = f"smt-counts-{self.spec.config['name']}"

        def on_batch(progress) -> None:
            timing = from_progress(progress)
            if progress.sources:  # written: what the micro-batch read is the source's to report
                started = time.perf_counter()
                self.spec.source.committed(progress.sources[0].endOffset)
                timing.source_commit_ms = round((time.perf_counter() - started) * 1000, 1)
            observed = (progress.observedMetrics or {}).get(name)
            if observed is not None:
                stages = self._add(observed_values(observed))
                timing.transforms_ms = round(sum(s["seconds"] for s in stages.as_dict().values()) * 1000, 1)
            self.micro_batches.append(timing)
            log.info("%s", timing.describe())
            if self.on_progress is not None:
                self.on_progress(self.counts, time.perf_counter() - self.started)

        source = self.spec.source.read(self.spark, streaming=True)
        jvm_writer = self._jvm_stream(source, name)
        started = time.monotonic()
        if jvm_writer is not None:
            self._forget_killed_runs_batch()
            try:
                run_streaming(
                    self.spec, self.spark, None, write_outputs, on_batch, progress_interval, lambda: jvm_writer
                )
                return
            except Exception as exc:
                record = unvouched_record(exc)
                if record is None:
                    raise
                self._go_on_in_python(record, exc)
        self._log_chain_over()
        observed_out = self._chain_over(source).observe(name, *self.layout.sums())

        def in_query():
            writer = _task_writer(self.spec, self.spark)
            if writer is None:
                return _stream_writer(self.spec, observed_out)
            log.info("each task writes its records where the chain produced them (one Python step per task)")
            dealt = source if writer.deal is None else writer.deal(source)
            written_in_task = WrittenInTask(writer.write, dead_letters=self.spec.dead_letters is not None)
            counts_rows = self._chain_over(dealt, written_in_task).observe(name, *self.layout.sums())
            return counts_rows.writeStream.format("noop")  # observed, then dropped

        run_streaming(
            self.spec, self.spark, observed_out, write_outputs, on_batch, progress_interval, in_query, started
        )

    def _go_on_in_python(self, record: str, error: Exception) -> None:
        """After ``record`` failed the query that kept the records in the JVM (``error``: the JVM could not
        vouch for it), prepare to go on in Python from its micro-batch, which was not committed (at least
        once: what the failed batch wrote may be written again).  Spark's real-time mode has no Python
        path: its run fails, naming the record."""
        from smt.pipeline.streaming import REAL_TIME, STREAMING_CONFIG

        if STREAMING_CONFIG.parse(self.spec.props)["streaming.trigger"] == REAL_TIME:
            raise DataError(
                f"pipeline {self.spec.config['name']}: record {record} is not one Spark SQL reads exactly as the "
                f"converters do in Python (see docs/kafka.md), and {REAL_TIME} runs no Python"
            ) from error
        forget_uncommitted_batch(self.spark, self.spec.config["checkpoint.location"])
        log.warning(
            "record %s is not one Spark SQL reads exactly as the converters do in Python: the run goes on "
            "with each micro-batch through Python, from that record's micro-batch",
            record,
        )

    def _forget_killed_runs_batch(self) -> None:
        """Before the query that keeps the records in the JVM (at least once, Spark's Kafka writer) starts: the
        micro-batch a killed run left uncommitted is planned anew, not replayed (:func:`forget_uncommitted_batch`)."""
        batch = forget_uncommitted_batch(self.spark, self.spec.config["checkpoint.location"])
        if batch is not None:
            log.info(
                "micro-batch %d was left uncommitted by the last run: it is planned anew, from the last committed "
                "batch's end (at least once: what it wrote may be written again)",
                batch,
            )

    def _jvm_stream(self, source, observed: str):
        """The writer of the query that keeps every record in the JVM (:mod:`smt.pipeline.jvm_stream`), or
        None (logged, naming why; refused when the run asks for Spark's real-time mode, which has no other
        path)."""
        from smt.pipeline.streaming import REAL_TIME, STREAMING_CONFIG

        try:
            writer = jvm_stream(self.spec, source, self.layout, observed)
        except NotCompilable as exc:
            if STREAMING_CONFIG.parse(self.spec.props)["streaming.trigger"] == REAL_TIME:
                raise ConfigError.for_key(
                    "streaming.trigger", f"{REAL_TIME} runs only JVM operators, and this run needs Python: {exc}",
                    REAL_TIME,
                ) from None  # fmt: skip
            log.info("each micro-batch goes through Python: %s", exc)
            return None
        log.info("every record stays in the JVM: the chain runs as Spark SQL columns, written inside the query")
        return writer

    def _add(self, observed) -> ChainMetrics:
        counts, stages = self.layout.totals(observed)
        self.counts.add(counts)
        self.stages.merge(stages)
        return stages


class _ProgressThread:
    """Calls ``on_progress`` periodically while the job runs (a no-op without a callback or counts)."""

    def __init__(
        self, snapshot: Callable[[], BatchCounts] | None, started: float, on_progress, interval: float
    ) -> None:
        self._snapshot = snapshot
        self._started = started
        self._on_progress = on_progress
        self._interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "_ProgressThread":
        if self._on_progress is not None and self._snapshot is not None:
            self._thread = threading.Thread(target=self._loop, name="smt-progress", daemon=True)
            self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self._on_progress(self._snapshot(), time.perf_counter() - self._started)

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            # The final figures, also when the run failed: what was counted up to then.
            self._on_progress(self._snapshot(), time.perf_counter() - self._started)


def _write_outputs(
    spec: PipelineSpec, out, batch_id: int | None, dead_letters: Any = None, done: set[str] | None = None
) -> None:
    """Write one run's (or micro-batch's) records to the sink and dead letters to their queue.

    A batch run's completed writes are added to ``done`` (:data:`SINK`, :data:`DEAD_LETTERS`).
    """
    from pyspark.sql import functions as F

    done = done if done is not None and batch_id is None else set()
    # Counts rows have a null flag: neither the records nor the dead letters.
    if dead_letters is None:
        spec.sink.write(out.where(~F.col(DEAD_LETTER_COLUMN)).drop(DEAD_LETTER_COLUMN, COUNTS_COLUMN), batch_id)
        done.add(SINK)
        return
    spec.sink.write_with_dead_letters(out.drop(COUNTS_COLUMN), dead_letters, DEAD_LETTER_COLUMN, batch_id, done.add)


def _fields(plan: FieldPlan | None) -> str:
    """Which fields go into the chain and come out of it, for the log."""
    if plan is None:
        return "all fields"
    return f"fields in: {', '.join(plan.inputs)}; out: {', '.join(plan.outputs)}"


def _task_writer(spec: PipelineSpec, spark) -> TaskWriter | None:
    """The sink's writer in the chain's own tasks (:class:`smt.connector_roles.TaskWrite`), or None."""
    task_write = spec.sink_roles.task_write
    if task_write is None:
        return None
    flag = DEAD_LETTER_COLUMN if spec.dead_letters is not None else None
    return task_write.task_writer(spark, spec.dead_letters, flag)


def _stream_writer(spec: PipelineSpec, out):
    """The sink's writer inside the streaming query (:class:`smt.connector_roles.StreamWrite`), given the
    records and dead letters as :func:`_write_outputs` gives them; None: each micro-batch from the driver."""
    from pyspark.sql import functions as F

    stream_write = spec.sink_roles.stream_write
    if stream_write is None:
        return None
    if spec.dead_letters is None:
        records = out.where(~F.col(DEAD_LETTER_COLUMN)).drop(DEAD_LETTER_COLUMN, COUNTS_COLUMN)
        return stream_write.stream_writer(records, None, None)
    return stream_write.stream_writer(out.drop(COUNTS_COLUMN), spec.dead_letters, DEAD_LETTER_COLUMN)


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
