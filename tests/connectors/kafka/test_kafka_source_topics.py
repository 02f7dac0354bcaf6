"""``sink.topic`` by origin, and no writing into the topics the pipeline reads (no broker, no Spark).

The same rules on a real broker are in ``test_kafka_routing.py``.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
import wasmtime
from pyspark import cloudpickle

from connectors.kafka import SourceTopicError
from smt import RecordBatch
from smt.cli import EXIT_INVALID, main
from smt.errors import ConfigError
from smt.pipeline import PipelineSpec
from smt.pipeline.processor import DEAD_LETTER_COLUMN, BatchProcessor
from smt.testing.records import make_record
from tests.host_functions.wat_guests import TO_UPPER

SERVERS = "127.0.0.1:9092"

#: Records with the header "audit" go to "audit-events"; the others keep their topic.
ROUTE_AUDITED = {
    "transforms.audit.type": "RegexRouter", "transforms.audit.regex": ".*",
    "transforms.audit.replacement": "audit-events", "transforms.audit.predicate": "audited",
    "predicates": "audited", "predicates.audited.type": "HasHeaderKey", "predicates.audited.name": "audit",
}  # fmt: skip


@pytest.fixture
def to_upper(tmp_path) -> dict[str, str]:
    """A Wasm to_upper stage (it can change only the value)."""
    path = tmp_path / "to_upper.wasm"
    path.write_bytes(wasmtime.wat2wasm(TO_UPPER))
    return {"transforms.upper.type": "wasm", "transforms.upper.module.path": str(path),
            "transforms.upper.function.name": "to_upper"}  # fmt: skip


def pipeline(transforms: str = "", **settings: str) -> dict[str, str]:
    """Kafka ``raw-events`` → Kafka on the same broker, with ``settings`` (``__`` for ``.``)."""
    return {
        "source": "kafka", "source.kafka.bootstrap.servers": SERVERS, "source.topics": "raw-events",
        "sink": "kafka", "sink.kafka.bootstrap.servers": SERVERS, "transforms": transforms,
        **{key.replace("__", "."): value for key, value in settings.items()},
    }  # fmt: skip


WRITES_BACK = (
    r"^sink\.topic: is not set and no transform can change a record's topic, so every record would be "
    r"written back into the topic it was read from \('raw-events', same Kafka cluster\); set sink\.topic, "
    r"route records with a transform such as RegexRouter, or set sink\.allow\.source\.topics=true$"
)


def test_a_pipeline_that_can_only_write_back_into_its_source_topic_is_refused(to_upper):
    with pytest.raises(ConfigError, match=WRITES_BACK):
        PipelineSpec.from_properties({**pipeline("upper"), **to_upper})
    with pytest.raises(ConfigError, match=WRITES_BACK):
        PipelineSpec.from_properties(pipeline())  # no transforms at all


def test_smt_validate_reports_it(tmp_path, to_upper, capsys):
    path = tmp_path / "pipeline.properties"
    path.write_text("".join(f"{key}={value}\n" for key, value in {**pipeline("upper"), **to_upper}.items()))
    assert main(["validate", str(path)]) == EXIT_INVALID
    assert capsys.readouterr().err.startswith("error: sink.topic: is not set and no transform can change")


@pytest.mark.parametrize("settings, message", [
    ({"sink__topic": "raw-events"}, r"^sink\.topic: 'raw-events' is read by this pipeline's source \('raw-events'\) "
                                    r"from the same Kafka cluster; choose another topic, or set "
                                    r"sink\.allow\.source\.topics=true$"),
    ({"sink__topic": "raw-2", "source__topics": "", "source__topic__pattern": "raw-.*",
      "sink__kafka__bootstrap__servers": "localhost:9092"},
     r"^sink\.topic: 'raw-2' is read by this pipeline's source \(topics matching 'raw-\.\*'\) from the same"),
])  # fmt: skip
def test_a_default_topic_the_source_reads_is_refused_even_with_routing(settings, message):
    with pytest.raises(ConfigError, match=message):
        PipelineSpec.from_properties({**pipeline("audit", **settings), **ROUTE_AUDITED})


@pytest.mark.parametrize("transforms, settings", [
    ("upper", {"sink__topic": "clean-events"}),
    ("audit", {}),                                              # a transform may route: checked per record
    ("upper", {"sink__allow__source__topics": "true"}),
    ("upper", {"sink__kafka__bootstrap__servers": "other-cluster:9092"}),
])  # fmt: skip
def test_pipelines_that_may_write_elsewhere_are_accepted(to_upper, transforms, settings):
    spec = PipelineSpec.from_properties({**pipeline(transforms, **settings), **to_upper, **ROUTE_AUDITED})
    assert spec.sink is not None


def test_a_record_bound_for_a_source_topic_fails_on_its_own_even_after_pickling():
    spec = PipelineSpec.from_properties({**pipeline("audit"), **ROUTE_AUDITED})
    sink = cloudpickle.loads(cloudpickle.dumps(spec.sink))  # as it travels to the executors
    records = RecordBatch.from_records([make_record(topic="audit-events"), make_record(topic="raw-events")]).to_arrow()
    assert [(row, type(exc), str(exc)) for row, exc in sink.record_errors(records)] == [
        (1, SourceTopicError, "would write into 'raw-events', which this pipeline reads; set sink.topic or route it"),
    ]


def test_allowed_source_topics_are_written():
    spec = PipelineSpec.from_properties({**pipeline("audit", sink__allow__source__topics="true"), **ROUTE_AUDITED})
    assert list(spec.sink.record_errors(RecordBatch.from_records([make_record(topic="raw-events")]).to_arrow())) == []


def test_sink_topic_replaces_the_topic_of_records_the_chain_did_not_route():
    spec = PipelineSpec.from_properties({**pipeline("audit", sink__topic="clean-events"), **ROUTE_AUDITED})
    records = pa.RecordBatch.from_pydict({"topic": ["raw-events", "audit-events", None, "", "raw-events"]})
    routed = [False, True, True, True, True]
    prepared = spec.sink.prepare_records(records, pa.array(routed).to_numpy(zero_copy_only=False))
    # A routed record keeps its topic, even one the source reads (refused later); no topic gets the default.
    assert prepared.column("topic").to_pylist() == [
        "clean-events",
        "audit-events",
        "clean-events",
        "clean-events",
        "raw-events",
    ]


def input_batch() -> pa.RecordBatch:
    records = [make_record(topic="raw-events", offset=0, value=b"a"),
               make_record(topic="raw-events", offset=1, value=b"b", headers=(("audit", b"1"),)),
               make_record(topic="raw-events", offset=2, value=b"c")]  # fmt: skip
    return RecordBatch.from_records(records).to_arrow()


def test_the_processor_tells_the_sink_which_records_were_routed(to_upper):
    spec = PipelineSpec.from_properties({**pipeline("upper,audit", sink__topic="clean-events"),
                                         **to_upper, **ROUTE_AUDITED})  # fmt: skip
    out, counts = BatchProcessor.from_spec(spec).process(input_batch())
    assert [(r["value"], r["topic"]) for r in out.to_pylist()] == [
        (b"A", "clean-events"),
        (b"B", "audit-events"),
        (b"C", "clean-events"),
    ]
    assert counts.written == 3


def test_without_sink_topic_unrouted_records_fail_at_task_put_and_are_dead_lettered():
    spec = PipelineSpec.from_properties({
        **pipeline("audit", errors__tolerance="all", errors__deadletterqueue__topic__name="dlq",
                   errors__deadletterqueue__context__headers__enable="true"),
        **ROUTE_AUDITED})  # fmt: skip
    out, counts = BatchProcessor.from_spec(spec).process(input_batch())
    rows = out.to_pylist()
    assert [(r["value"], r["topic"]) for r in rows if not r[DEAD_LETTER_COLUMN]] == [(b"b", "audit-events")]
    dead = [r for r in rows if r[DEAD_LETTER_COLUMN]]
    assert [(r["offset"], r["value"]) for r in dead] == [(0, b"a"), (2, b"c")]
    context = {h["key"]: h["value"] for h in dead[0]["headers"]}
    assert context["__connect.errors.stage"] == b"TASK_PUT"
    assert context["__connect.errors.exception.message"] == (
        b"would write into 'raw-events', which this pipeline reads; set sink.topic or route it"
    )
    assert (counts.written, counts.failed, counts.dead_lettered) == (1, 2, 2)


@pytest.mark.parametrize(
    "settings",
    [
        {"errors__deadletterqueue__topic__name": "raw-events"},
        {"errors__deadletterqueue__topic__name": "raw-dlq", "source__topics": "", "source__topic__pattern": "raw-.*"},
    ],
)
def test_a_dead_letter_topic_the_source_reads_is_refused(to_upper, settings):
    with pytest.raises(
        ConfigError,
        match=r"^errors\.deadletterqueue\.topic\.name: '(raw-events|raw-dlq)' is read by this pipeline's source "
        r"\(.*\) from the same Kafka cluster: its dead letters would be read again; choose another topic$",
    ):
        PipelineSpec.from_properties(
            {**pipeline("upper", sink__topic="clean-events", errors__tolerance="all", **settings), **to_upper}
        )


def test_a_dead_letter_topic_on_another_cluster_is_accepted(to_upper):
    spec = PipelineSpec.from_properties({
        **pipeline("upper", sink__topic="clean-events", errors__tolerance="all",
                   errors__deadletterqueue__topic__name="raw-events",
                   errors__deadletterqueue__kafka__bootstrap__servers="other-cluster:9092"),
        **to_upper,
    })  # fmt: skip
    assert spec.dead_letters is not None
