"""A failed write's operating-system cause, found in Spark's error and named with the folder."""

import pytest

from smt.pipeline.os_causes import os_cause

DISK_FULL = """An error occurred while calling o61.save.
: org.apache.spark.SparkException: [TASK_WRITE_FAILED] Task failed while writing rows to file:/mnt/full/out/_temporary/0/_temporary/attempt_2026_0000_m_000000_0/part-00000-81fc-c000.txt. SQLSTATE: 58030
\tat org.apache.spark.sql.errors.QueryExecutionErrors$.taskFailedWhileWritingRowsError(QueryExecutionErrors.scala:774)
Caused by: org.apache.hadoop.fs.FSError: java.io.IOException: No space left on device
\tat org.apache.hadoop.fs.RawLocalFileSystem$LocalFSFileOutputStream.write(RawLocalFileSystem.java:549)
Caused by: java.io.IOException: No space left on device
"""


@pytest.mark.parametrize(
    "text, cause",
    [
        (DISK_FULL, "No space left on device while writing to /mnt/full/out"),
        (DISK_FULL.replace("/out/_temporary/0/_temporary/attempt_2026_0000_m_000000_0", "/dlq/_smt_staging/3-ab"),
         "No space left on device while writing to /mnt/full/dlq"),
        ("java.io.IOException: Disk quota exceeded", "Disk quota exceeded (java.io.IOException from the file system)"),
        ("[TASK_WRITE_FAILED] Task failed while writing rows to hdfs://nn/x/part-1. ... Permission denied",
         "Permission denied while writing to hdfs://nn/x/part-1"),
        ("org.apache.spark.SparkException: something else", None),
    ],
)  # fmt: skip
def test_the_cause_and_the_folder_are_named(text, cause):
    assert os_cause(text) == cause
