"""The file connector's dead-letter writer: whole records as jsonl, each micro-batch once."""

import json

import pytest

from connectors.file.dead_letters import FileDeadLetters
from smt.connector import SinkContext
from smt.connector_roles import sink_roles
from tests.connectors.file.test_formats import GOLDEN_JSONL, records_df
from tests.connectors.file.test_micro_batch import FIRST_QUERY, lines_in, query_checkpoint

pytestmark = pytest.mark.spark


def jsonl_lines(directory):
    return sorted((json.loads(line) for line in lines_in(directory)), key=lambda line: line["offset"])


def test_batch_runs_append_whole_records(spark, tmp_path):
    dead_letters = FileDeadLetters(str(tmp_path / "dlq"))
    dead_letters.write(records_df(spark).limit(1))
    dead_letters.write(records_df(spark))
    assert jsonl_lines(tmp_path / "dlq") == [GOLDEN_JSONL[0], *GOLDEN_JSONL]


def test_a_replayed_micro_batch_is_written_once(spark, tmp_path):
    dead_letters = FileDeadLetters(str(tmp_path / "dlq"))
    dead_letters.open(SinkContext(checkpoint=query_checkpoint(tmp_path / "checkpoint", FIRST_QUERY)))
    dead_letters.write(records_df(spark), batch_id=3)
    dead_letters.write(records_df(spark), batch_id=3)
    assert jsonl_lines(tmp_path / "dlq") == GOLDEN_JSONL


def test_every_record_fits():
    # jsonl holds any record: the writer checks none (the core of a sink alone).
    assert sink_roles(FileDeadLetters("/unused")).record_checks is None


def test_batch_runs_follow_the_sinks_write_mode_when_given(spark, tmp_path):
    from smt.errors import SmtError

    dead_letters = FileDeadLetters(str(tmp_path / "dlq"), "overwrite", "sink.write.mode")
    dead_letters.write(records_df(spark))
    dead_letters.write(records_df(spark).limit(1))
    assert jsonl_lines(tmp_path / "dlq") == [GOLDEN_JSONL[0]]

    refusing = FileDeadLetters(str(tmp_path / "dlq"), "errorifexists", "sink.write.mode")
    assert refusing.output_conflicts() == {
        "errors.deadletterqueue.path": f"'{tmp_path / 'dlq'}' already exists and sink.write.mode is errorifexists; "
        "set sink.write.mode=overwrite to replace it, or append"
    }
    with pytest.raises(SmtError, match=r"^errors\.deadletterqueue\.path: '.*dlq' already exists and sink\.write\.mode"):
        refusing.write(records_df(spark))
