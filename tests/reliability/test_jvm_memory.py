"""A JVM out of memory is reported as such, naming the settings that help, with no Python traceback."""

import pytest

from smt.commands.output import EXIT_FAILED
from tests.reliability.conftest import RUN_BOUND_SECONDS, smt_process

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def test_a_value_too_large_for_the_driver_heap_names_the_memory_settings(tmp_path, pytestconfig):
    (tmp_path / "in").mkdir()
    with open(tmp_path / "in" / "big.txt", "wb") as handle:
        handle.write(b"a" * (200 << 20) + b"\n")  # one 200 MB value in a 512 MB JVM
    pipeline = tmp_path / "pipeline.properties"
    pipeline.write_text(
        "source.path=in\nsink.path=out\nsink.write.mode=overwrite\n"
        "spark.master=local[1]\nspark.driver.memory=512m\nspark.ui.enabled=false\n"
    )
    # Its own process: the JVM dies, and spark.driver.memory only applies to a JVM not yet started.
    process = smt_process(["run", str(pipeline)], tmp_path, str(pytestconfig.rootpath))
    _, stderr = process.communicate(timeout=RUN_BOUND_SECONDS)
    assert process.returncode == EXIT_FAILED
    assert "Traceback (most recent call last)" not in stderr
    *_, error, hint = stderr.splitlines()
    assert hint.startswith("hint: Spark's log: ")
    assert error == (
        "error: Spark ran out of memory (java.lang.OutOfMemoryError): a record or batch did not fit in the JVM's "
        "heap. Give Spark more memory with spark.driver.memory (now 512m; a local run executes in the driver) or "
        "spark.executor.memory (now 1g; on a cluster), or send fewer records per batch with "
        "spark.sql.execution.arrow.maxRecordsPerBatch (now 65536); a single record larger than a few hundred MB "
        "needs the memory either way"
    )
    assert (tmp_path / "in" / "big.txt").stat().st_size == (200 << 20) + 1
