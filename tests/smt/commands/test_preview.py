"""``smt preview`` (#34 item 8): a few records shown stage by stage, nothing written, the outcome ``smt run``'s."""

from __future__ import annotations

import json
import re

import pytest

from smt.cli import main
from smt.commands.preview import preview_records, read_records
from smt.pipeline import PipelineSpec, run_pipeline

pytestmark = pytest.mark.spark

LINES = [
    {"id": 1, "card": "4111", "kind": "order"},
    {"id": 2, "card": "5500", "kind": "test"},
    "not json",
    {"id": 4, "card": "3400", "kind": "order"},
    {"id": 5, "card": "6011", "kind": "order"},
]
PIPELINE = """\
name=preview
source=file
source.path=in.jsonl
source.topic=orders
sink=file
sink.path=out
sink.format=jsonl
value.converter=json
value.converter.schemas.enable=false
transforms=mask,tests,route
transforms.mask.type=MaskField$Value
transforms.mask.fields=card
transforms.tests.type=Filter
transforms.tests.predicate=isTest
transforms.route.type=RegexRouter
transforms.route.regex=(.*)
transforms.route.replacement=$1-masked
predicates=isTest
predicates.isTest.type=TopicNameMatches
predicates.isTest.pattern=never
errors.tolerance=all
errors.deadletterqueue.path=dead
spark.ui.enabled=false
"""


@pytest.fixture
def pipeline(tmp_path):
    lines = [line if isinstance(line, str) else json.dumps(line) for line in LINES]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    path = tmp_path / "p.properties"
    path.write_text(PIPELINE, encoding="utf-8")
    return path


def sink_rows(folder):
    rows = [json.loads(line) for f in sorted(folder.glob("part-*")) for line in f.read_text().splitlines()]
    return sorted((r["topic"], r.get("key"), r.get("value")) for r in rows)


@pytest.mark.parametrize("limit", [3, 5])
def test_the_outcome_is_what_smt_run_gives_for_the_same_records(pipeline, tmp_path, spark, limit):
    spec = PipelineSpec.from_properties(pipeline)
    records = read_records(spec, spark, limit)
    assert records.num_rows == limit
    shown = preview_records(spec, records, PipelineSpec.from_properties(pipeline))
    assert not (tmp_path / "out").exists() and not (tmp_path / "dead").exists()  # nothing written

    kept = (tmp_path / "in.jsonl").read_text().splitlines()[:limit]
    (tmp_path / "in.jsonl").write_text("\n".join(kept) + "\n", encoding="utf-8")
    result = run_pipeline(PipelineSpec.from_properties(pipeline), spark=spark)
    preview = sorted((r["topic"], _text(r.get("key")), _text(r["value"])) for r in shown.written())
    assert preview == sink_rows(tmp_path / "out")
    assert shown.dead_lettered() == result.counts.dead_lettered == 1


def _text(data):
    return None if data is None else bytes(data).decode()


def test_the_cli_shows_each_stage_and_the_dead_letter_reason(pipeline, tmp_path, capsys):
    text = pipeline.read_text().replace("pattern=never", "pattern=orders")
    pipeline.write_text(text.replace("transforms=mask,tests,route", "transforms=mask,route,tests"))
    assert main(["preview", str(pipeline), "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^record 1: orders\[0\]@0$", out, re.M)
    assert re.search(r"^  converted +topic=orders key=null value=\{'id': 1, 'card': '4111', 'kind': 'order'\}$",
                     out, re.M)  # fmt: skip
    assert re.search(r"^  mask \(MaskField\$Value\) +topic=orders key=null value=\{'id': 1, 'card': '', ", out, re.M)
    assert re.search(r"^  route \(RegexRouter\) +topic=orders-masked ", out, re.M)
    assert re.search(r"^  tests \(Filter\) +topic=orders-masked ", out, re.M)  # the predicate names orders only
    assert re.search(r"^  value converter +dead letter: .*malformed JSON.* in 'not json'$", out, re.M)
    assert "to the sink, as smt run gives them (2):" in out
    assert out.rstrip().endswith("dead-lettered: 1; nothing was written")
    assert not (tmp_path / "out").exists() and not (tmp_path / "dead").exists()


def test_a_filtered_record_shows_as_dropped_by_its_stage(pipeline, capsys):
    pipeline.write_text(pipeline.read_text().replace("pattern=never", "pattern=orders"))
    assert main(["preview", str(pipeline), "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^  tests \(Filter\) +dropped$", out, re.M)
    assert "to the sink, as smt run gives them (0):" in out


def test_from_reads_the_records_of_another_file(pipeline, tmp_path, capsys):
    (tmp_path / "other.txt").write_text('{"id": 9, "card": "1234", "kind": "x"}\n', encoding="utf-8")
    assert main(["preview", str(pipeline), "--from", str(tmp_path / "other.txt")]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^record 1: orders\[0\]@0$", out, re.M) and "record 2:" not in out
    assert re.search(r"^  orders-masked key=null value=\{\"id\":9,\"card\":\"\",\"kind\":\"x\"\}$", out, re.M)


def test_a_limit_below_one_is_refused(pipeline, capsys):
    assert main(["preview", str(pipeline), "--limit", "0"]) == 2
    assert "expected a whole number of at least 1, got '0'" in capsys.readouterr().err
