"""Example pipeline files run end to end on local Spark: text in, Wasm guest, text out."""

import shutil

import pytest

from smt.pipeline import PipelineSpec, run_pipeline
from smt.testing import output_lines
from tests.examples.wasm.conftest import EXAMPLES_DIR

pytestmark = pytest.mark.spark

#: example -> the lines its sample input becomes
EXPECTED_OUTPUT = {
    "pii_mask": [
        '{"user": "alice", "email": "a***@example.com", "card": "**** **** **** 1111", "password": "***"}',
        '{"user": "bob", "note": "call b***@mail.example.org or use card ****-****-****-0004", "api_key": "***"}',
        '{"user": "carol", "orders": [{"id": 7, "payment": {"card": "***********0005", "token": "***"}}]}',
    ],
    "filter_user_id": [
        '{"user_id": 1, "event": "login"}',
        '{"user_id": "u-2", "event": "purchase"}',
    ],
    "split_array": ['{"sku": "A-1", "qty": 2}', '{"sku": "B-7", "qty": 1}', '"single"'],
}


@pytest.mark.parametrize("example", sorted(EXPECTED_OUTPUT))
def test_the_example_pipeline_file_runs_as_written(spark, tmp_path, guest_modules, example):
    # A copy of the example folder, with the C guest where its properties expect it (build/).
    folder = tmp_path / example
    shutil.copytree(EXAMPLES_DIR / example, folder)
    (folder / "build").mkdir(exist_ok=True)
    shutil.copy(guest_modules[(example, "c")], folder / "build" / f"{example}.c.wasm")

    result = run_pipeline(PipelineSpec.from_properties(folder / f"{example}.properties"), spark=spark)

    assert sorted(output_lines(folder / "out")) == sorted(EXPECTED_OUTPUT[example])
    assert result.counts.read == len((folder / "input.txt").read_text().splitlines())
