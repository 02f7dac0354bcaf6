"""Streaming writes to a directory are idempotent per micro-batch id, even after a crashed attempt."""

import os

import pytest

from connectors.file._micro_batch import COMMITS_DIR, STAGING_DIR, batch_file_prefix, write_micro_batch
from connectors.file.formats import FORMATS

pytestmark = pytest.mark.spark


def lines_in(directory):
    lines = []
    for name in sorted(os.listdir(directory)):
        if not name.startswith(("_", ".")):
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                lines.extend(line.rstrip("\n") for line in handle)
    return sorted(lines)


def values_df(spark, values):
    from pyspark.sql import functions as F

    return spark.createDataFrame([(v,) for v in values], "v string").select(F.encode("v", "UTF-8").alias("value"))


def test_a_replayed_batch_is_written_once(spark, tmp_path):
    out = str(tmp_path / "out")
    assert write_micro_batch(FORMATS["text"], values_df(spark, ["a", "b"]), out, 0) is True
    assert write_micro_batch(FORMATS["text"], values_df(spark, ["a", "b"]), out, 0) is False
    assert write_micro_batch(FORMATS["text"], values_df(spark, ["c"]), out, 1) is True
    assert lines_in(out) == ["a", "b", "c"]
    assert sorted(n for n in os.listdir(tmp_path / "out" / COMMITS_DIR) if not n.startswith(".")) == ["0", "1"]
    assert all(n.startswith(("batch-", "_", ".")) for n in os.listdir(out))


def test_leftovers_of_a_crashed_attempt_are_replaced(spark, tmp_path):
    out = tmp_path / "out"
    (out / STAGING_DIR / "7").mkdir(parents=True)
    (out / STAGING_DIR / "7" / "part-0.txt").write_text("half\n")
    (out / f"{batch_file_prefix(7)}part-old.txt").write_text("moved before the crash\n")
    (out / "part-from-another-batch.txt").write_text("kept\n")
    write_micro_batch(FORMATS["text"], values_df(spark, ["x", "y"]), str(out), 7)
    assert lines_in(out) == ["kept", "x", "y"]
    assert not (out / STAGING_DIR / "7").exists()
