"""Streaming mode: one Structured Streaming query, its checkpoint, and when it ends.

``mode=streaming`` runs ``source → processor → sink`` as a streaming query
whose micro-batches go through ``foreachBatch`` to the sink (and the
dead-letter queue).  Spark's checkpoint (``checkpoint.location``) records
which input each micro-batch covered and which batches finished; a batch that
was running when the job died is replayed with the same id and input on
restart.  No input is lost; sinks that are idempotent per batch id (the file
sink) end with every record exactly once, others (Kafka) at least once.

The checkpoint belongs to one pipeline: the first run stores the pipeline's
fingerprint (its settings, minus tuning keys) in
``<checkpoint.location>/smt-pipeline.json``.  As Kafka Connect keeps a
connector's offsets when its transforms are reconfigured, a later run may
change what happens to records (transforms, predicates, converters,
``errors.*``): the changes are logged and the fingerprint updated.  A run
that changes what the stored offsets are offsets *of* is refused, naming the
keys, before Spark touches the checkpoint: ``source``, ``sink`` and the keys
each connector declares as saying what it reads or writes
(:attr:`smt.connector.Source.checkpoint_keys`: the file source's path, the
Kafka source's topics, the file sink's path and format; every key of a
connector that declares none).  ``smt validate`` makes the same check on a
local checkpoint.

The query ends by itself with ``streaming.trigger=availableNow`` (once the
input present at start is processed) or after ``streaming.timeout.ms``.
While it runs, the driver reads each finished micro-batch's progress (its
observed metrics carry the pipeline's counts), on classic and Spark Connect
sessions alike.
"""

from __future__ import annotations

import json
import logging
import time
from importlib.metadata import version
from typing import Any, Callable, Mapping

from smt.config import ConfigDef, ConfigType, Importance, at_least, one_of
from smt.errors import ConfigError, SmtError
from smt.pipeline.checkpoint_files import local_checkpoint_files
from smt.secret_values import without_secrets

__all__ = [
    "REAL_TIME",
    "STREAMING_CONFIG",
    "CheckpointMismatch",
    "FINGERPRINT_FILE",
    "check_local_checkpoint",
    "checkpoint_keys",
    "run_streaming",
    "pipeline_fingerprint",
    "wait_s",
]

log = logging.getLogger(__name__)

#: At the timeout, how long the micro-batch in flight may take to finish before it is interrupted.
_STOP_GRACE_S = 30.0
_STOP_POLL_S = 0.02

STREAMING_CONFIG = (
    ConfigDef()
    .define(
        "streaming.trigger",
        ConfigType.STRING,
        "processingTime",
        one_of("processingTime", "availableNow", "realTime"),
        Importance.MEDIUM,
        "'processingTime': a micro-batch every streaming.trigger.interval.ms, until stopped; "
        "'availableNow': process the input present at start (in several micro-batches if the "
        "source limits them), then stop; 'realTime': Spark's real-time mode (PySpark 4.1 on, a classic "
        "session), each record written as soon as it is read, in batches that last "
        "streaming.trigger.interval.ms (0: Spark's default) and need a task slot for each source "
        "partition; only for a run whose records stay in the JVM (the run says what keeps it out).",
    )
    .define(
        "streaming.trigger.interval.ms",
        ConfigType.LONG,
        0,
        at_least(0),
        Importance.LOW,
        "With trigger processingTime: the micro-batch interval (0 = start the next batch as soon as "
        "the previous one ends). With realTime: how long each batch runs before its offsets are "
        "checkpointed (0 = Spark's default).",
    )
    .define(
        "streaming.timeout.ms",
        ConfigType.LONG,
        0,
        at_least(0),
        Importance.MEDIUM,
        "Stop the query after this long (0 = no limit), once the micro-batch then running has finished "
        f"(waiting at most {_STOP_GRACE_S:.0f} s more; a micro-batch cut short is replayed on restart).",
    )
)

FINGERPRINT_FILE = "smt-pipeline.json"

#: Keys that tune a run without changing what it computes; they may change between restarts.
_TUNING_PREFIXES = ("spark.", "streaming.", "errors.log.", "errors.retry.")
_TUNING_KEYS = ("checkpoint.location", "name", "source.max.files.per.trigger")


class CheckpointMismatch(SmtError):
    """The checkpoint holds the offsets of another source or sink, or was not written by this tool."""

    def __init__(self, checkpoint: str, reason: str) -> None:
        super().__init__(f"checkpoint.location '{checkpoint}' {reason}")
        self.reason = reason


def run_streaming(
    spec: Any,
    spark: Any,
    out: Any,
    write_outputs: Callable[[Any, Any, int], None],
    on_batch: Callable[[Any], None] | None = None,
    poll_interval: float = 0.5,
    in_query: Callable[[], Any] | None = None,
    started: float | None = None,
) -> None:
    """Run the streaming query until it stops (trigger, timeout) or fails.

    ``in_query()`` gives the sink's writer inside the query (a ``DataStreamWriter``), or None; then
    ``write_outputs(spec, batch_df, batch_id)`` writes each micro-batch from the driver;
    ``on_batch(progress)`` is called on the driver once for each finished
    micro-batch, with its ``StreamingQueryProgress``.  ``started``: when the
    run began (``time.monotonic()``; default now), which ``streaming.timeout.ms`` counts from.
    Raises :class:`smt.errors.ConfigError` for bad ``streaming.*`` keys and
    :class:`CheckpointMismatch` when the checkpoint belongs to another pipeline.
    """
    settings = STREAMING_CONFIG.parse(spec.props)
    if not spec.source_roles.supports_streaming:
        raise ConfigError.for_key("mode", f"source '{spec.config['source']}' cannot run in streaming mode", "streaming")
    checkpoint = spec.config["checkpoint.location"]
    identity = checkpoint_keys(spec.props, spec.source_roles, spec.sink_roles)
    claim_checkpoint(spark, checkpoint, spec.shown_props(), identity)  # never secrets on disk
    writer = in_query() if in_query is not None else None
    # The sink that writes inside the query says what failed, as its write from the driver would.
    described_by = spec.sink_roles.stream_write if writer is not None else None
    if writer is not None:
        log.info("each micro-batch is written inside the streaming query (no step on the driver)")
    else:
        writer = out.writeStream.foreachBatch(lambda batch_df, batch_id: write_outputs(spec, batch_df, batch_id))
    writer = writer.option("checkpointLocation", checkpoint).queryName(spec.config["name"])
    if settings["streaming.trigger"] == "availableNow":
        writer = writer.trigger(availableNow=True)
    elif settings["streaming.trigger"] == REAL_TIME:
        writer = _real_time(writer, settings["streaming.trigger.interval.ms"])
    elif settings["streaming.trigger.interval.ms"]:
        writer = writer.trigger(processingTime=f"{settings['streaming.trigger.interval.ms']} milliseconds")
    timeout_ms = settings["streaming.timeout.ms"]
    deadline = (time.monotonic() if started is None else started) + timeout_ms / 1000 if timeout_ms else None
    progress = _ProgressReader(None, on_batch)
    # A real-time batch runs until its duration is up: stopped at the deadline, not waited for.
    finish = settings["streaming.trigger"] != REAL_TIME

    def start() -> Any:
        with local_checkpoint_files(spark, checkpoint):
            return writer.start()

    for attempt in range(_SPARK_55271_RESTARTS + 1):
        error = _run_query(start, writer, progress, deadline, poll_interval, finish)
        if error is None:
            return
        if attempt == _SPARK_55271_RESTARTS or not _is_spark_55271(error):
            failure = described_by.stream_failure(error) if described_by is not None else None
            if failure is None or failure is error:
                raise error
            raise failure from error
        log.warning(
            "%s: Spark's Kafka connector %s failed reporting a finished micro-batch, a bug of its own "
            "(SPARK-55271: a restarted query's first batch); starting the query again from its checkpoint",
            spec.config["name"], _SPARK_VERSION,
        )  # fmt: skip


#: ``streaming.trigger``'s value for Spark's real-time mode.
REAL_TIME = "realTime"


def _real_time(writer: Any, interval_ms: int) -> Any:
    """``writer`` in Spark's real-time mode (``Trigger.RealTime``, which PySpark 4.1 does not expose yet:
    set through the JVM writer), its batches ``interval_ms`` long (0: Spark's default)."""
    java_writer = getattr(writer, "_jwrite", None)
    if java_writer is None:
        raise ConfigError.for_key("streaming.trigger", "realTime needs a classic Spark session (not Spark Connect)")
    from py4j.protocol import Py4JError

    triggers = writer._spark._jvm.org.apache.spark.sql.streaming.Trigger
    try:
        trigger = triggers.RealTime(f"{interval_ms} milliseconds") if interval_ms else triggers.RealTime()
    except Py4JError:
        raise ConfigError.for_key(
            "streaming.trigger", f"realTime needs Spark 4.1 or later (this is {_SPARK_VERSION})"
        ) from None
    writer._jwrite = java_writer.trigger(trigger)
    return writer.outputMode("update")  # a stateless query's update is its append; the mode takes only this


def _run_query(
    start: Callable[[], Any],
    writer: Any,
    progress: "_ProgressReader",
    deadline: float | None,
    poll_interval: float,
    finish: bool = True,
) -> Any:
    """Start the query (``start()``, of ``writer``) and run it until it stops or fails; its error, or None.
    With ``finish``, a micro-batch running at the deadline may finish first."""
    query = start()
    progress.follow(query)
    try:
        while query.isActive and (deadline is None or time.monotonic() < deadline):
            try:
                query.awaitTermination(wait_s(poll_interval, deadline, time.monotonic()))
            except Exception:  # the query failed: its error is query.exception()
                if query.exception() is None:
                    raise
            progress.read()
        if query.isActive and finish:
            _finish_running_batch(query, progress)
    finally:
        if query.isActive and not finish:
            _stop_cutting_short(query, getattr(writer, "_spark", None))
        elif query.isActive:
            query.stop()
        progress.read()
    return query.exception()


#: Spark's loggers that report the tasks of a real-time batch cut short by a stop as aborted writes.
_ABORT_LOGGERS = (
    "org.apache.spark.sql.execution.datasources.v2.WriteToDataSourceV2Exec",
    "org.apache.spark.sql.execution.datasources.v2.DataWritingSparkTask",
    "org.apache.spark.util.Utils",
)
#: How long, after the stop, the cut tasks may take to report before those loggers speak again.
_ABORTS_WAIT_S = 5.0


def _stop_cutting_short(query: Any, spark: Any) -> None:
    """Stop a query whose batch is running (a real-time one's always is), without Spark's stack trace of
    each task it interrupts: nothing failed, and the batch's records are read again on a restart.
    ``spark``: the classic session that runs it (None: a Spark Connect one, whose server logs)."""
    jvm = getattr(spark, "_jvm", None)
    if jvm is None:
        query.stop()
        return
    log4j = jvm.org.apache.logging.log4j
    levels = {name: log4j.LogManager.getLogger(name).getLevel() for name in _ABORT_LOGGERS}
    for name in levels:
        log4j.core.config.Configurator.setLevel(name, log4j.Level.OFF)
    try:
        query.stop()
        tracker, deadline = spark.sparkContext.statusTracker(), time.monotonic() + _ABORTS_WAIT_S
        while tracker.getActiveStageIds() and time.monotonic() < deadline:
            time.sleep(_STOP_POLL_S)
    finally:
        for name, level in levels.items():
            log4j.core.config.Configurator.setLevel(name, level)


def wait_s(poll_interval: float, deadline: float | None, now: float) -> float:
    """How long the next ``awaitTermination`` waits: the poll interval, cut short by the deadline, never
    below the millisecond Spark counts in (it refuses a timeout of 0 ms: "Timeout has to be positive")."""
    if deadline is None:
        return poll_interval
    return max(_LEAST_WAIT_S, min(poll_interval, deadline - now))


#: The shortest wait Spark takes (its timeout is whole milliseconds, and positive).
_LEAST_WAIT_S = 0.001


#: Spark 4.1.0 to 4.1.2's Kafka source fails a restarted query when its first micro-batch (a replay of the
#: batch the last run left uncommitted, planned without asking Kafka for its latest offsets) reports
#: its metrics: a NullPointerException in ``KafkaMicroBatchStream.metrics`` after the batch has been
#: written and committed (SPARK-55271, fixed in 4.1.3; ``delta-spark`` holds PySpark at 4.1.1).  Started
#: again, the query plans its next batch the usual way.
_SPARK_55271_RESTARTS = 2
_SPARK_VERSION = version("pyspark")


def _is_spark_55271(error: BaseException) -> bool:
    text = str(error)
    return (
        _SPARK_VERSION in ("4.1.0", "4.1.1", "4.1.2")
        and 'the return value of "scala.Option.get()" is null' in text
        and "IterableOps.map" in text
    )


def _finish_running_batch(query: Any, progress: "_ProgressReader") -> None:
    """Wait (at most :data:`_STOP_GRACE_S`) for the micro-batch in flight to report.

    Stopping a query interrupts its micro-batch; one interrupted after its
    output was written but before its progress was reported would be written
    yet never counted.  The next micro-batch, stopped as it starts, has
    written nothing.
    """
    deadline = time.monotonic() + _STOP_GRACE_S
    reported = progress.reports
    while query.isActive and query.status.get("isTriggerActive") and time.monotonic() < deadline:
        query.awaitTermination(_STOP_POLL_S)
        progress.read()
        if progress.reports != reported:
            return


class _ProgressReader:
    """Hands each micro-batch's progress to ``on_batch`` once, as the query reports it.

    Spark keeps the last ``spark.sql.streaming.numRecentProgressUpdates``
    (100) progress reports; the driver reads the new ones every poll interval.
    """

    def __init__(self, query: Any, on_batch: Callable[[Any], None] | None) -> None:
        self._query = query
        self._on_batch = on_batch
        self._seen: set[tuple[int, str]] = set()

    def follow(self, query: Any) -> None:
        """Read ``query``'s reports from now on (a query started again keeps the reports already handed on)."""
        self._query = query

    @property
    def reports(self) -> int:
        """How many progress reports were handed on so far."""
        return len(self._seen)

    def read(self) -> None:
        for report, progress in _unseen_reports(self._query, self._seen):
            self._seen.add(report)
            if self._on_batch is not None:
                self._on_batch(progress)


def _unseen_reports(query: Any, seen: set[tuple[int, str]]) -> list[tuple[tuple[int, str], Any]]:
    """The query's progress reports not in ``seen``, oldest first, each with its (batch id, timestamp).

    An idle query reports again under the last batch id (with nothing observed): a report is told by
    both.  In a classic session only the new reports are read from the JVM (PySpark's
    ``recentProgress`` reads all 100 as JSON, two JVM calls each, at every poll: CPU the micro-batches
    running beside it lack); over Spark Connect the server sends them all.
    """
    java = getattr(query, "_jsq", None)
    if java is None:
        reports = [((progress.batchId, progress.timestamp), progress) for progress in query.recentProgress]
        return [(report, progress) for report, progress in reports if report not in seen]
    from pyspark.sql.streaming.listener import StreamingQueryProgress

    recent = java.recentProgress()
    unseen = []
    for index in range(len(recent) - 1, -1, -1):
        progress = recent[index]
        report = (progress.batchId(), progress.timestamp())
        if report in seen:
            break
        unseen.append((report, StreamingQueryProgress.fromJson(json.loads(progress.json()))))
    return unseen[::-1]


# --- the checkpoint's owner -------------------------------------------------------


def pipeline_fingerprint(props: Mapping[str, Any]) -> dict[str, str]:
    """The settings that define what a pipeline computes (tuning keys left out), as the checkpoint stores
    them: without a secret (a password does not change what the pipeline computes)."""
    return without_secrets({key: value for key, value in sorted(props.items()) if not _is_tuning(key)})


def _is_tuning(key: str) -> bool:
    return key.startswith(_TUNING_PREFIXES) or key in _TUNING_KEYS


def checkpoint_keys(props: Mapping[str, Any], source: Any, sink: Any) -> frozenset[str]:
    """The keys whose change makes a checkpoint's stored offsets meaningless (see the module's doc);
    ``source`` and ``sink`` are the connectors' roles (:mod:`smt.connector_roles`)."""
    keys = {"source", "sink"}
    for kind, connector in (("source", source), ("sink", sink)):
        declared = connector.checkpoint_keys
        if declared is None:
            keys.update(key for key in props if key.startswith(f"{kind}."))
        else:
            keys.update(f"{kind}.{key}" for key in declared)
    return frozenset(key for key in keys if not _is_tuning(key))


def claim_checkpoint(spark: Any, checkpoint: str, props: Mapping[str, Any], identity: frozenset[str]) -> None:
    """Store this pipeline's fingerprint in a new checkpoint, or check the stored one and bring it up to date.

    Raises :class:`CheckpointMismatch` when a key of ``identity`` changed.  A
    checkpoint holding only a fingerprint (the query never started a batch)
    is claimed anew.
    """
    from smt.driver_files import driver_files

    files = driver_files(spark)
    fingerprint = pipeline_fingerprint(props)
    stored = _checked_fingerprint(files, checkpoint, fingerprint, identity)
    if stored == fingerprint:
        return
    if stored is not None:
        log.warning(
            "checkpoint.location '%s': the pipeline changed since the checkpoint was written (%s); "
            "it carries on from the stored offsets",
            checkpoint,
            describe_changes(stored, fingerprint, limit=20),
        )
    files.write_text(_marker(checkpoint), json.dumps(fingerprint, indent=2, sort_keys=True) + "\n")


def check_local_checkpoint(checkpoint: str, props: Mapping[str, Any], identity: frozenset[str]) -> None:
    """:func:`claim_checkpoint`'s refusals, without Spark and without writing: for ``smt validate``.

    A checkpoint on a remote file system is left to the run.
    """
    from smt.driver_files import local_files

    if "://" in checkpoint and not checkpoint.startswith("file:"):
        return
    _checked_fingerprint(local_files(), checkpoint, pipeline_fingerprint(props), identity)


def _checked_fingerprint(
    files: Any, checkpoint: str, fingerprint: dict[str, str], identity: frozenset[str]
) -> dict[str, str] | None:
    """The stored fingerprint, or None for a checkpoint to claim; raises :class:`CheckpointMismatch`."""
    marker = _marker(checkpoint)
    spark_state = [n for n in files.list_names(checkpoint) if FINGERPRINT_FILE not in n]
    if not spark_state:
        return None
    if not files.exists(marker):
        raise CheckpointMismatch(
            checkpoint,
            f"is not empty and has no {FINGERPRINT_FILE}: it was not written by an smt pipeline; "
            "use a new checkpoint.location",
        )
    written = _load(files, checkpoint)
    stored = pipeline_fingerprint(written)  # a checkpoint of an older version may hold secrets: compared without
    if written != stored:
        files.write_text(marker, json.dumps(stored, indent=2, sort_keys=True) + "\n")
    if any(stored.get(key) != fingerprint.get(key) for key in identity):
        moved = {key: value for key, value in stored.items() if key in identity}
        now = {key: value for key, value in fingerprint.items() if key in identity}
        raise CheckpointMismatch(
            checkpoint,
            f"holds the offsets of another source or sink ({describe_changes(moved, now)}); "
            "use a new checkpoint.location, or delete this one to start over",
        )
    return stored


def _marker(checkpoint: str) -> str:
    return f"{checkpoint.rstrip('/')}/{FINGERPRINT_FILE}"


def _load(files: Any, checkpoint: str) -> dict[str, str]:
    try:
        stored = json.loads(files.read_text(_marker(checkpoint)))
    except ValueError as exc:
        raise CheckpointMismatch(checkpoint, f"has a {FINGERPRINT_FILE} that cannot be read: {exc}") from exc
    if not isinstance(stored, dict):
        raise CheckpointMismatch(checkpoint, f"has a {FINGERPRINT_FILE} that cannot be read: not a JSON object")
    return stored


def describe_changes(stored: Mapping[str, str], current: Mapping[str, str], limit: int = 5) -> str:
    """``key changed 'a' → 'b'; key added; key removed``, at most ``limit`` keys."""
    changes = []
    for key in sorted(set(stored) | set(current)):
        if key not in current:
            changes.append(f"{key} removed")
        elif key not in stored:
            changes.append(f"{key} added")
        elif stored[key] != current[key]:
            changes.append(f"{key} changed '{stored[key]}' → '{current[key]}'")
    more = f"; and {len(changes) - limit} more" if len(changes) > limit else ""
    return "; ".join(changes[:limit]) + more
