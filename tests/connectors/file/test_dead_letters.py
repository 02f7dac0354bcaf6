"""The file connector's dead-letter writer: whole records as jsonl, each micro-batch once."""

import json

import pytest

from connectors.file.dead_letters import FileDeadLetters
from tests.connectors.file.test_formats import GOLDEN_JSONL, records_df
from tests.connectors.file.test_micro_batch import lines_in

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
    dead_letters.write(records_df(spark), batch_id=3)
    dead_letters.write(records_df(spark), batch_id=3)
    assert jsonl_lines(tmp_path / "dlq") == GOLDEN_JSONL


def test_every_record_fits():
    assert FileDeadLetters("/unused").record_errors(object()) == []
