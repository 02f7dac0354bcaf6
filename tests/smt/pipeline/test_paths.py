"""Where a pipeline reads and writes: declared path keys resolve, overlapping outputs are refused."""

import pytest

from smt.pipeline.paths import overlap_problems
from smt.pipeline.spec import resolve_paths


def test_only_keys_declared_as_paths_resolve_against_the_base_folder():
    props = {
        "source.path": "in",
        "sink.path": "/abs/out",
        "checkpoint.location": "cp",
        "errors.deadletterqueue.path": "dlq",
        "value.converter": "json",
        "value.converter.json.schema.file": "schemas/event.json",
        "transforms": "w,x",
        "transforms.w.type": "wasm",
        "transforms.w.module.path": "guest.wasm",
        "transforms.w.path": "reference",
        "transforms.w.config.location": "EU",
        "transforms.w.config.path": "a/b",
        "transforms.x.type": "NoSuchTransform",
        "transforms.x.path": "x",
        "spark.local.dir": "tmp",
        "source.topic": "in.path",
    }
    assert resolve_paths(props, "/base") == {
        **props,
        "source.path": "/base/in",
        "checkpoint.location": "/base/cp",
        "errors.deadletterqueue.path": "/base/dlq",
        "value.converter.json.schema.file": "/base/schemas/event.json",
        "transforms.w.module.path": "/base/guest.wasm",
    }


def test_kafka_key_and_trust_stores_resolve_for_source_sink_and_dead_letters():
    props = {
        "source": "kafka",
        "source.kafka.ssl.truststore.location": "certs/ts.p12",
        "sink": "kafka",
        "sink.kafka.ssl.keystore.location": "certs/ks.p12",
        "errors.deadletterqueue.topic.name": "dead",
        "errors.deadletterqueue.kafka.ssl.truststore.location": "../dlq.p12",
        "sink.kafka.sasl.jaas.config": "path=x",
    }
    resolved = resolve_paths(props, "/base")
    assert resolved["source.kafka.ssl.truststore.location"] == "/base/certs/ts.p12"
    assert resolved["sink.kafka.ssl.keystore.location"] == "/base/certs/ks.p12"
    assert resolved["errors.deadletterqueue.kafka.ssl.truststore.location"] == "/dlq.p12"
    assert resolved["sink.kafka.sasl.jaas.config"] == "path=x"


@pytest.mark.parametrize("value", ["hdfs://nn/data", "file:///data", "/abs", "", "  "])
def test_uris_absolute_and_empty_paths_are_left_as_written(value):
    assert resolve_paths({"source.path": value}, "/base")["source.path"] == value


@pytest.mark.parametrize(
    "source, sink, relation",
    [
        ("/d/in/*.txt", "/d/in/out", "lies inside"),  # a glob stands for the folder it searches
        ("/d/in/a.txt", "/d/in", "contains"),  # a folder holding an input file
        ("file:///d/in", "/d/in", "is the same path as"),  # file:// is the local file system
        ("hdfs://nn/d/in", "hdfs://nn/d", "contains"),
        ("/d/in/{a,b}.txt", "/d/in", "contains"),
    ],
)
def test_outputs_over_inputs_are_found_however_the_paths_are_written(source, sink, relation):
    [problem] = overlap_problems({"source.path": source}, {"sink.path": sink}, {})
    assert problem.key == "sink.path"
    assert problem.reason.startswith(f"'{sink}' {relation} source.path '{source}'")


@pytest.mark.parametrize(
    "source, sink",
    [
        ("/d/in", "/d/input"),  # a common prefix is not a common folder
        ("/d/in", "/d/out"),
        ("hdfs://nn/d/in", "/d/in"),  # another file system
        ("hdfs://nn/d/in", "hdfs://other/d/in"),  # another cluster
    ],
)
def test_paths_that_only_look_alike_are_fine(source, sink):
    assert overlap_problems({"source.path": source}, {"sink.path": sink}, {}) == []


def test_dead_letters_may_hold_the_sink_folder_but_not_lie_inside_it():
    assert overlap_problems({}, {"sink.path": "/d/dlq/out"}, {"errors.deadletterqueue.path": "/d/dlq"}) == []
    [problem] = overlap_problems({}, {"sink.path": "/d/out"}, {"errors.deadletterqueue.path": "/d/out/dlq"})
    assert problem.key == "errors.deadletterqueue.path"
