"""Streaming writes to a directory are idempotent per micro-batch id, even after a crashed attempt."""

import os

import pytest

from connectors.file._micro_batch import COMMITS_DIR, STAGING_DIR, batch_file_prefix, write_micro_batch
from connectors.file.formats import FORMATS
from smt.driver_files import HadoopFiles

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
    assert os.listdir(out / STAGING_DIR) == []


def test_an_attempt_that_loses_the_commit_deletes_only_its_own_files(spark, tmp_path, monkeypatch):
    out = tmp_path / "out"
    assert write_micro_batch(FORMATS["text"], values_df(spark, ["first"]), str(out), 3) is True
    winner = (out / COMMITS_DIR / "3").read_text()
    # A second attempt that checked the marker before the first created it goes on to write, then loses.
    (out / COMMITS_DIR / "3").rename(out / "hidden-marker")
    real_create = HadoopFiles.create_new

    def marker_back_then_create(self, path, text):
        (out / "hidden-marker").rename(out / COMMITS_DIR / "3")
        return real_create(self, path, text)

    monkeypatch.setattr(HadoopFiles, "create_new", marker_back_then_create)
    assert write_micro_batch(FORMATS["text"], values_df(spark, ["second"]), str(out), 3) is False
    assert lines_in(out) == ["first"]
    assert (out / COMMITS_DIR / "3").read_text() == winner
    assert os.listdir(out / STAGING_DIR) == []


def test_the_winner_drops_what_other_attempts_of_its_batch_left(spark, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / f"{batch_file_prefix(4)}0123456789abcdef-part-0.txt").write_text("a crashed attempt\n")
    (out / f"{batch_file_prefix(40)}0123456789abcdef-part-0.txt").write_text("batch 40 is another batch\n")
    assert write_micro_batch(FORMATS["text"], values_df(spark, ["x"]), str(out), 4) is True
    assert lines_in(out) == ["batch 40 is another batch", "x"]


def test_a_marker_from_before_attempt_ids_keeps_its_files(spark, tmp_path):
    out = tmp_path / "out"
    (out / COMMITS_DIR).mkdir(parents=True)
    (out / COMMITS_DIR / "0").write_text("")
    (out / f"{batch_file_prefix(0)}part-0.txt").write_text("committed long ago\n")
    assert write_micro_batch(FORMATS["text"], values_df(spark, ["again"]), str(out), 0) is False
    assert lines_in(out) == ["committed long ago"]
