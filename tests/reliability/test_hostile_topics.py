"""A record's topic never chooses where the table sink writes: a topic that could name a place outside
the sink's folder fails that record alone, at TASK_PUT, naming it; the rest are written.

A topic is data: it comes from a Kafka topic, a file's records, or a transform's routing.  The records
here carry theirs in a JSON-lines file (``"topic"`` per line), as a record routed by a transform would.
Read back with pyarrow (an independent reader): every good record in its table, nothing anywhere else.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.reliability.conftest import assert_accounted, context_header

pytestmark = pytest.mark.spark

HOSTILE = ["../../escaped", "../victim", "..", ".", "/abs/olute", "a/b", "nul\x00byte", "", "x" * 300, "ünï"]
GOOD = ["orders", "orders.v1", "Orders-EU_2"]


def _line(topic: str, n: int) -> str:
    value = json.dumps({"schema": {"type": "struct", "fields": [{"field": "id", "type": "int64"}]},
                        "payload": {"id": n}})  # fmt: skip
    return json.dumps({"topic": topic, "value": value})


def _files_under(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*") if path.is_file()}


@pytest.mark.parametrize("mode", ["append", "overwrite"])
def test_a_hostile_topic_fails_alone_and_writes_nothing_outside_the_sink_folder(probe, spark, mode):
    neighbour = probe.root / "victim"
    neighbour.mkdir()
    (neighbour / "keep.txt").write_text("mine")
    lines = [_line(topic, n) for n, topic in enumerate(GOOD * 2 + HOSTILE)]
    probe.input("records.jsonl", "\n".join(lines) + "\n")
    pipeline = probe.pipeline(
        "source.path=in\nsource.format=jsonl\nvalue.converter=json\n"
        "sink=table\nsink.format=parquet\nsink.path=tables/data/${topic}\n"
        f"sink.write.mode={mode}\n"
        "errors.tolerance=all\nerrors.deadletterqueue.path=dlq\nerrors.deadletterqueue.context.headers.enable=true\n"
    )
    before = _files_under(probe.root)

    outcome = probe.run(pipeline)

    assert_accounted(outcome, written_lines=len(GOOD) * 2, dead_letters=len(HOSTILE))
    tables = probe.root / "tables" / "data"
    assert sorted(p.name for p in tables.iterdir()) == sorted(GOOD)
    for n, topic in enumerate(GOOD):
        assert sorted(pq.read_table(tables / topic).column("id").to_pylist()) == [n, n + len(GOOD)]
    # Nothing was written or deleted outside tables/data, the dead letters and the run's own files.
    after = _files_under(probe.root)
    outside = {f for f in after - before if not f.startswith(("tables/data/", "dlq/", "metrics.json"))}
    assert outside == set() and before <= after
    assert (neighbour / "keep.txt").read_text() == "mine"
    letters = probe.dead_letters()
    assert sorted(json.loads(d["value"])["payload"]["id"] for d in letters) == list(
        range(len(GOOD) * 2, len(GOOD) * 2 + len(HOSTILE))
    )
    for letter in letters:
        assert context_header(letter, "stage") == "TASK_PUT"
        assert "cannot name a table: ${topic} takes a legal Kafka topic name" in context_header(
            letter, "exception.message"
        )
    probe.assert_input_unchanged()


def test_with_errors_tolerance_none_the_run_stops_naming_the_topic(probe, spark):
    probe.input("records.jsonl", _line("orders", 1) + "\n" + _line("../../escaped", 2) + "\n")
    pipeline = probe.pipeline(
        "source.path=in\nsource.format=jsonl\nvalue.converter=json\n"
        "sink=table\nsink.format=parquet\nsink.path=tables/${topic}\n"
    )
    outcome = probe.run(pipeline)
    assert outcome.code != 0
    assert "the topic '../../escaped' cannot name a table" in outcome.err
    assert not (probe.root.parent / "escaped").exists()


def _jdbc_pipeline(probe, postgres, table: str, **extra: str):
    keys = "".join(f"{key}={value}\n" for key, value in extra.items())
    return probe.pipeline(
        "source.path=in\nsource.format=jsonl\nvalue.converter=json\n"
        f"sink=table\nsink.format=jdbc\nsink.table={table}\n"
        f"sink.option.url={postgres.jdbc_url}\nsink.option.user=smt\n"
        "errors.tolerance=all\nerrors.deadletterqueue.path=dlq\nerrors.deadletterqueue.context.headers.enable=true\n"
        + keys
    )


@pytest.mark.parametrize("first, second", [("orders.v1", "orders_v1"), ("Orders", "orders")])
def test_two_topics_that_make_one_jdbc_table_are_refused_before_anything_is_written(
    probe,
    spark,
    postgres,
    first,
    second,
):
    stem = f"collide_{first.lower().replace('.', '_')}_"
    probe.input("records.jsonl", "\n".join([_line(f"{stem}{first}", 1), _line(f"{stem}{second}", 2)]) + "\n")
    outcome = probe.run(_jdbc_pipeline(probe, postgres, "t_${topic}"))
    assert outcome.code != 0
    assert f"the topics '{stem}{first}' and '{stem}{second}' both name the table" in outcome.err
    assert postgres.query(f"select count(*) from pg_tables where tablename ilike 't_{stem}%'") == [["0"]]


def test_a_topic_that_makes_a_table_name_postgresql_would_cut_fails_alone(probe, spark, postgres):
    long_topic = "long_" + "x" * 70
    probe.input("records.jsonl", "\n".join([_line("short_ok", 1), _line(long_topic, 2)]) + "\n")
    outcome = probe.run(_jdbc_pipeline(probe, postgres, "t_${topic}"))
    assert_accounted(outcome, written_lines=1, dead_letters=1)
    assert postgres.query("select id from t_short_ok") == [["1"]]
    [letter] = probe.dead_letters()
    assert "longer than PostgreSQL's 63 bytes" in context_header(letter, "exception.message")


def test_a_topic_whose_table_an_earlier_run_made_for_another_topic_is_refused(probe, spark, postgres):
    """Across runs: ``orders.v2`` first, ``orders_v2`` in a later run; both make ``t_...orders_v2``."""
    probe.input("records.jsonl", _line("across_orders.v2", 1) + "\n")
    first = probe.run(_jdbc_pipeline(probe, postgres, "t_${topic}"))
    assert first.code == 0, first.err
    (probe.root / "in" / "records.jsonl").write_text(_line("across_orders_v2", 2) + "\n")
    probe._before = None  # a new input for the second run
    second = probe.run(_jdbc_pipeline(probe, postgres, "t_${topic}"))
    assert second.code != 0
    assert (
        "the topic 'across_orders_v2' names the table 't_across_orders_v2', which an earlier run made for the "
        "topic 'across_orders.v2'" in second.err
    )
    assert postgres.query("select id from t_across_orders_v2") == [["1"]]
