"""Streaming writes to a directory are idempotent per micro-batch id, even after a crashed attempt,
and kept per query: two queries writing to one directory each commit their own batch 0."""

import os

import pytest

from connectors.file import FileSink
from connectors.file._micro_batch import COMMITS_DIR, STAGING_DIR, QueryCommits, batch_file_prefix, write_micro_batch
from connectors.file.dead_letters import FileDeadLetters
from connectors.file.formats import FORMATS
from smt.driver_files import HadoopFiles
from smt.errors import SmtError
from smt.plugin import PluginContext

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


def query_checkpoint(directory, query_id):
    """A checkpoint as Spark leaves it when a query starts: ``metadata`` holds the query's id."""
    directory.mkdir(parents=True)
    (directory / "metadata").write_text(f'{{"id":"{query_id}"}}')
    return str(directory)


FIRST_QUERY = "d438c160-4ddd-4389-be3e-f78c0ad9f1be"
SECOND_QUERY = "0f5e8a31-72c4-4b1e-9d0a-5c3b2a1f0e9d"


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


def test_two_queries_writing_to_one_directory_each_commit_their_own_batches(spark, tmp_path):
    out = str(tmp_path / "out")
    first = QueryCommits(out, query_checkpoint(tmp_path / "first", FIRST_QUERY))
    second = QueryCommits(out, query_checkpoint(tmp_path / "second", SECOND_QUERY))
    assert first.write(FORMATS["text"], values_df(spark, ["a"]), 0) is True
    assert second.write(FORMATS["text"], values_df(spark, ["b"]), 0) is True
    assert first.write(FORMATS["text"], values_df(spark, ["a"]), 0) is False  # a replay of the first's batch 0
    assert second.write(FORMATS["text"], values_df(spark, ["c"]), 1) is True
    assert lines_in(out) == ["a", "b", "c"]
    markers = {
        p.relative_to(tmp_path / "out" / COMMITS_DIR).as_posix() for p in (tmp_path / "out" / COMMITS_DIR).glob("*/*")
    }
    assert markers == {"d438c1604ddd4389/0", "0f5e8a3172c44b1e/0", "0f5e8a3172c44b1e/1"}
    assert all(n.startswith(("batch-d438c1604ddd4389-", "batch-0f5e8a3172c44b1e-", "_", ".")) for n in os.listdir(out))


def test_a_marker_from_before_commits_per_query_counts_for_the_first_batch_of_a_restart(spark, tmp_path):
    out = tmp_path / "out"
    (out / COMMITS_DIR).mkdir(parents=True)
    (out / COMMITS_DIR / "5").write_text("0123456789abcdef")
    (out / f"{batch_file_prefix(5)}0123456789abcdef-part-0.txt").write_text("committed before the restart\n")
    (out / f"{batch_file_prefix(5)}fedcba9876543210-part-0.txt").write_text("an attempt that lost\n")
    (out / COMMITS_DIR / "6").write_text("")  # another query's, from before commits were per query
    commits = QueryCommits(str(out), query_checkpoint(tmp_path / "checkpoint", FIRST_QUERY))
    assert commits.write(FORMATS["text"], values_df(spark, ["replayed"]), 5) is False
    assert commits.write(FORMATS["text"], values_df(spark, ["six"]), 6) is True
    assert lines_in(out) == ["committed before the restart", "six"]


def test_a_new_query_does_not_take_an_old_marker_of_batch_0_for_its_own(spark, tmp_path):
    out = tmp_path / "out"
    (out / COMMITS_DIR).mkdir(parents=True)
    (out / COMMITS_DIR / "0").write_text("0123456789abcdef")
    (out / f"{batch_file_prefix(0)}0123456789abcdef-part-0.txt").write_text("an older query's batch 0\n")
    commits = QueryCommits(str(out), query_checkpoint(tmp_path / "checkpoint", FIRST_QUERY))
    assert commits.write(FORMATS["text"], values_df(spark, ["new"]), 0) is True
    assert lines_in(out) == ["an older query's batch 0", "new"]


def test_a_checkpoint_without_a_query_id_is_named(spark, tmp_path):
    commits = QueryCommits(str(tmp_path / "out"), str(tmp_path / "checkpoint"))
    with pytest.raises(
        SmtError, match=r"checkpoint.location '.*checkpoint': cannot read the streaming query's id from "
    ):
        commits.write(FORMATS["text"], values_df(spark, ["x"]), 0)
    assert not (tmp_path / "out").exists()


def test_a_micro_batch_before_the_query_is_known_is_refused_naming_the_key():
    sink = FileSink()
    sink.configure({"path": "/unused", "format": "text"}, PluginContext("sink", "sink."))
    with pytest.raises(SmtError, match=r"^sink\.path: a micro-batch came before the streaming query's checkpoint$"):
        sink.write(object(), batch_id=0)
    with pytest.raises(SmtError, match=r"^errors\.deadletterqueue\.path: a micro-batch came before the streaming "):
        FileDeadLetters("/unused").write(object(), batch_id=0)
