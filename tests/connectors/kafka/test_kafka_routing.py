"""On a real broker: ``sink.topic`` takes the records the chain did not route, and nothing goes back
into the topic the pipeline reads (batch and streaming)."""

from __future__ import annotations

import pytest
import wasmtime

from smt.pipeline import PipelineSpec, run_pipeline
from smt.pipeline.runner import PipelineFailed
from tests.host_functions.wat_guests import TO_UPPER, guest

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

#: A guest that routes a record whose value is "@name" to topic "name" with set_topic; others pass.
ROUTE_BY_VALUE = guest(
    """(func (export "route") (local $v i64) (local $p i32) (local $n i32)
    (call $reset)
    (local.set $v (call $get_value))
    (local.set $p (call $ptr (local.get $v)))
    (local.set $n (call $len (local.get $v)))
    (if (i32.and (i32.gt_u (local.get $n) (i32.const 1)) (i32.eq (i32.load8_u (local.get $p)) (i32.const 64)))
      (then (call $set_topic (i32.add (local.get $p) (i32.const 1)) (i32.sub (local.get $n) (i32.const 1))))))""",
    imports=("get_value", "set_topic"),
)

REFUSED = b"would write into '%s', which this pipeline reads; set sink.topic or route it"


@pytest.fixture(scope="module")
def guests(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("routing-guests")
    paths = {}
    for name, source in (("to_upper", TO_UPPER), ("route", ROUTE_BY_VALUE)):
        paths[name] = str(folder / f"{name}.wasm")
        (folder / f"{name}.wasm").write_bytes(wasmtime.wat2wasm(source))
    return paths


def pipeline(servers: str, source: str, **settings: str) -> PipelineSpec:
    return PipelineSpec.from_properties({
        "source": "kafka", "source.kafka.bootstrap.servers": servers, "source.topics": source,
        "sink": "kafka", "sink.kafka.bootstrap.servers": servers,
        **{key.replace("__", "."): value for key, value in settings.items()},
    })  # fmt: skip


def wasm(alias: str, path: str, function: str) -> dict[str, str]:
    return {f"transforms__{alias}__type": "wasm", f"transforms__{alias}__module__path": path,
            f"transforms__{alias}__function__name": function}  # fmt: skip


def values(broker, topic: str, n: int | None = None) -> list[bytes]:
    return sorted(r.value for r in broker.consume(topic, n))


def test_sink_topic_takes_every_record_the_chain_did_not_route(kafka_spark, kafka_broker, guests):
    stem = kafka_broker.unique_topic("by-origin")
    raw = kafka_broker.create_topic(f"{stem}-raw", partitions=2)
    clean, audit = kafka_broker.create_topic(f"{stem}-clean"), kafka_broker.create_topic(f"{stem}-audit")
    kafka_broker.produce(raw, [{"value": "a", "partition": 0}, {"value": "b", "headers": [("audit", "1")], "partition": 1},
                               {"value": "c", "partition": 1}])  # fmt: skip
    spec = pipeline(kafka_broker.bootstrap_servers, raw, sink__topic=clean, transforms="upper,audit",
                    **wasm("upper", guests["to_upper"], "to_upper"),
                    transforms__audit__type="RegexRouter", transforms__audit__regex=".*",
                    transforms__audit__replacement=audit, transforms__audit__predicate="audited",
                    predicates="audited", predicates__audited__type="HasHeaderKey",
                    predicates__audited__name="audit")  # fmt: skip

    assert run_pipeline(spec, spark=kafka_spark).counts.written == 3
    assert values(kafka_broker, clean, 2) == [b"A", b"C"]
    assert [(r.value, r.headers) for r in kafka_broker.consume(audit, 1)] == [(b"B", (("audit", b"1"),))]
    assert values(kafka_broker, raw) == [b"a", b"b", b"c"], "nothing may go back into the source topic"


def refusing_pipeline(kafka_broker, guests, stem: str, **settings: str) -> tuple[PipelineSpec, str, str, str]:
    """Raw records "@<stem>-routed" and "stay": the guest routes the first, the second has nowhere to go."""
    raw = kafka_broker.create_topic(f"{stem}-raw")
    routed, dlq = kafka_broker.create_topic(f"{stem}-routed"), kafka_broker.create_topic(f"{stem}-dlq")
    kafka_broker.produce(raw, [{"key": "r", "value": f"@{routed}"}, {"key": "s", "value": "stay"}])
    spec = pipeline(kafka_broker.bootstrap_servers, raw, transforms="route",
                    **wasm("route", guests["route"], "route"), **settings)  # fmt: skip
    return spec, raw, routed, dlq


def dead_letter_settings(dlq: str) -> dict[str, str]:
    return {"errors__tolerance": "all", "errors__deadletterqueue__topic__name": dlq,
            "errors__deadletterqueue__context__headers__enable": "true"}  # fmt: skip


def assert_refused_and_routed(kafka_broker, raw: str, routed: str, dlq: str) -> None:
    assert values(kafka_broker, routed, 1) == [f"@{routed}".encode()]
    [dead] = kafka_broker.consume(dlq, 1)
    headers = dict(dead.headers)
    assert (dead.key, dead.value, headers["__connect.errors.stage"]) == (b"s", b"stay", b"TASK_PUT")
    assert headers["__connect.errors.exception.message"] == REFUSED % raw.encode()
    assert values(kafka_broker, raw) == sorted([f"@{routed}".encode(), b"stay"])


def test_without_sink_topic_a_guest_routes_with_set_topic_and_the_rest_is_dead_lettered(
    kafka_spark, kafka_broker, guests
):
    stem = kafka_broker.unique_topic("set-topic")
    spec, raw, routed, dlq = refusing_pipeline(kafka_broker, guests, stem, **dead_letter_settings(f"{stem}-dlq"))
    counts = run_pipeline(spec, spark=kafka_spark).counts
    assert (counts.read, counts.written, counts.dead_lettered) == (2, 1, 1)
    assert_refused_and_routed(kafka_broker, raw, routed, dlq)


def test_with_errors_tolerance_none_the_refusal_stops_the_run_before_writing(kafka_spark, kafka_broker, guests):
    stem = kafka_broker.unique_topic("refused")
    spec, raw, routed, _ = refusing_pipeline(kafka_broker, guests, stem)
    with pytest.raises(PipelineFailed, match=rf"Error in TASK_PUT stage with connectors\.kafka\.sink\.KafkaSink on "
                                             rf"record topic='{raw}' partition=0 offset=1: SourceTopicError: would "
                                             rf"write into '{raw}', which this pipeline reads; set sink\.topic or "
                                             r"route it"):  # fmt: skip
        run_pipeline(spec, spark=kafka_spark)
    assert kafka_broker.consume(routed) == []


def test_allow_source_topics_writes_back_into_the_source_topic(kafka_spark, kafka_broker, guests):
    raw = kafka_broker.create_topic(kafka_broker.unique_topic("allowed"))
    kafka_broker.produce(raw, [{"value": "a"}])
    spec = pipeline(kafka_broker.bootstrap_servers, raw, sink__allow__source__topics="true", transforms="upper",
                    **wasm("upper", guests["to_upper"], "to_upper"))  # fmt: skip
    assert run_pipeline(spec, spark=kafka_spark).counts.written == 1
    assert values(kafka_broker, raw, 2) == [b"A", b"a"]


@pytest.mark.parametrize("mode", ["batch", "streaming"])
def test_a_run_into_one_known_topic_counts_what_it_wrote(kafka_spark, kafka_broker, guests, tmp_path, mode):
    # One destination and no dead letters: the sink writes without any other Spark action first,
    # so the counts can only come back with the write itself.
    stem = kafka_broker.unique_topic(f"counted-{mode}")
    raw, clean = kafka_broker.create_topic(f"{stem}-raw", partitions=2), kafka_broker.create_topic(f"{stem}-clean")
    kafka_broker.produce(raw, [{"value": v, "partition": n % 2} for n, v in enumerate("abc")])
    streaming = {"checkpoint__location": str(tmp_path / "checkpoint"), "streaming__trigger": "availableNow"}
    spec = pipeline(
        kafka_broker.bootstrap_servers,
        raw,
        sink__topic=clean,
        transforms="upper",
        mode=mode,
        **wasm("upper", guests["to_upper"], "to_upper"),
        **(streaming if mode == "streaming" else {}),
    )
    counts = run_pipeline(spec, spark=kafka_spark).counts
    assert (counts.read, counts.written) == (3, 3)
    assert values(kafka_broker, clean, 3) == [b"A", b"B", b"C"]


def test_a_stream_routes_and_refuses_the_same_way(kafka_spark, kafka_broker, guests, tmp_path):
    stem = kafka_broker.unique_topic("stream-routing")
    spec, raw, routed, dlq = refusing_pipeline(
        kafka_broker, guests, stem, mode="streaming", checkpoint__location=str(tmp_path / "checkpoint"),
        streaming__trigger="availableNow", **dead_letter_settings(f"{stem}-dlq"))  # fmt: skip
    counts = run_pipeline(spec, spark=kafka_spark).counts
    assert (counts.read, counts.written, counts.dead_lettered) == (2, 1, 1)
    assert_refused_and_routed(kafka_broker, raw, routed, dlq)
