"""A streaming run's checkpoint files on a local disk (smt.pipeline.checkpoint_files): its query writes them
with Spark's file-system manager; the session's own setting, and its other queries, keep theirs."""

import threading
import time

import pytest

from smt.pipeline import run_pipeline
from smt.pipeline.checkpoint_files import CHECKPOINT_FILE_MANAGER_KEY, local_checkpoint_files, manager_class
from tests.smt.pipeline.test_streaming import jsonl_values, streaming_spec, write_input

pytestmark = pytest.mark.spark

FILE_SYSTEM = "FileSystemBasedCheckpointFileManager"
FILE_CONTEXT = "FileContextBasedCheckpointFileManager"
_WAIT_S = 60.0


def managers(query) -> set[str]:
    """The classes that write the running ``query``'s offsets and commits."""
    execution = query._jsq.streamingQuery()
    logs = (execution.offsetLog(), execution.commitLog())
    return {log.fileManager().getClass().getSimpleName() for log in logs}


def rate_query(spark, checkpoint: str):
    """A user's query of the session: rate → noop (not started)."""
    return spark.readStream.format("rate").load().writeStream.format("noop").option("checkpointLocation", checkpoint)


def spark_class(spark, simple_name: str) -> str:
    """The full name of Spark's checkpoint file manager ``simple_name`` in this Spark."""
    name = manager_class(spark._jvm, simple_name)
    assert name is not None, f"no {simple_name} in this Spark"
    return name


def test_a_runs_local_checkpoint_is_written_by_the_file_system_manager_and_the_sessions_queries_keep_spark_default(
    spark, tmp_path
):
    write_input(tmp_path / "in", "a.txt", ["a1", "a2"])
    spec = streaming_spec(tmp_path, streaming__trigger="processingTime", streaming__timeout__ms="8000")
    seen: list[set[str]] = []
    run = threading.Thread(target=run_pipeline, args=(spec,), kwargs={"spark": spark}, daemon=True)
    run.start()
    deadline = time.monotonic() + _WAIT_S
    while not seen and run.is_alive() and time.monotonic() < deadline:
        for query in spark.streams.active:
            if query.name == spec.config["name"]:
                seen.append(managers(query))
        time.sleep(0.05)
    run.join(_WAIT_S)
    assert seen == [{FILE_SYSTEM}]
    assert jsonl_values(tmp_path / "out") == ["a1", "a2"]
    assert spark.conf.get(CHECKPOINT_FILE_MANAGER_KEY, None) is None
    user = rate_query(spark, str(tmp_path / "user-checkpoint")).start()
    try:
        assert managers(user) == {FILE_CONTEXT}
    finally:
        user.stop()


def test_the_sessions_own_manager_is_kept(spark, tmp_path):
    spark.conf.set(CHECKPOINT_FILE_MANAGER_KEY, spark_class(spark, FILE_CONTEXT))
    try:
        with local_checkpoint_files(spark, str(tmp_path / "checkpoint")):
            query = rate_query(spark, str(tmp_path / "checkpoint")).start()
        try:
            assert managers(query) == {FILE_CONTEXT}
        finally:
            query.stop()
        assert spark.conf.get(CHECKPOINT_FILE_MANAGER_KEY) == spark_class(spark, FILE_CONTEXT)
    finally:
        spark.conf.unset(CHECKPOINT_FILE_MANAGER_KEY)


def test_a_checkpoint_on_no_local_file_system_is_left_to_spark(spark):
    with local_checkpoint_files(spark, "nosuchfs://host/checkpoint"):
        assert spark.conf.get(CHECKPOINT_FILE_MANAGER_KEY, None) is None
