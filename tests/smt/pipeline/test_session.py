"""The session a pipeline builds on a local master is fitted to the machine's cores."""

from __future__ import annotations

import pytest

from smt.pipeline import PipelineSpec
from smt.pipeline.session import LOCAL_DELTA_SNAPSHOT_PARTITIONS, build_spark_session

pytestmark = pytest.mark.spark


@pytest.fixture
def unset_in_the_shared_session(spark):
    """The key unset in the tests' session (which ``build_spark_session`` gets again), then put back."""
    before = spark.conf.get(LOCAL_DELTA_SNAPSHOT_PARTITIONS)
    spark.conf.unset(LOCAL_DELTA_SNAPSHOT_PARTITIONS)
    yield spark
    spark.conf.set(LOCAL_DELTA_SNAPSHOT_PARTITIONS, before)


def spec(tmp_path, **more):
    (tmp_path / "in.txt").write_text("a\n")
    return PipelineSpec.from_properties(
        {"source": "file", "source.path": str(tmp_path / "in.txt"), "sink": "noop", **more}
    )


def test_a_local_session_replays_delta_logs_in_as_many_tasks_as_it_has_cores(unset_in_the_shared_session, tmp_path):
    session = build_spark_session(spec(tmp_path))
    assert session is unset_in_the_shared_session
    assert session.conf.get(LOCAL_DELTA_SNAPSHOT_PARTITIONS) == str(session.sparkContext.defaultParallelism)


def test_the_files_own_setting_is_kept(unset_in_the_shared_session, tmp_path):
    session = build_spark_session(spec(tmp_path, **{LOCAL_DELTA_SNAPSHOT_PARTITIONS: "7"}))
    assert session.conf.get(LOCAL_DELTA_SNAPSHOT_PARTITIONS) == "7"
