"""Which Kafka row fields cross between Spark and Python (smt.pipeline.fields)."""

import pytest

from smt.pipeline import PipelineSpec
from smt.pipeline.fields import plan_fields
from smt.record import KAFKA_ROW_FIELDS
from tests.host_functions.wat_guests import HEADERS, TO_UPPER
from tests.smt.sample_plugins import sample_plugins


def input_file(tmp_path):
    path = tmp_path / "in.txt"
    path.touch()  # the spec refuses an input that does not exist
    return str(path)


def spec(tmp_path, guest_wat, function="to_upper", **extra):
    module = tmp_path / "guest.wat"
    module.write_text(guest_wat)
    props = {
        "source.path": input_file(tmp_path),
        "sink.path": str(tmp_path / "out"),
        "transforms": "w",
        "transforms.w.type": "wasm",
        "transforms.w.module.path": str(module),
        "transforms.w.function.name": function,
    }
    props.update({k.replace("__", "."): v for k, v in extra.items()})
    return PipelineSpec.from_properties(props)


def test_text_sink_and_a_value_only_guest_move_the_value_and_coordinates(tmp_path):
    plan = plan_fields(spec(tmp_path, TO_UPPER))
    assert plan.inputs == ("value", "topic", "partition", "offset")
    assert plan.outputs == ("value",)


def test_coordinates_are_left_out_when_failures_are_skipped_silently(tmp_path):
    plan = plan_fields(spec(tmp_path, TO_UPPER, errors__tolerance="all"))
    assert plan.inputs == ("value",)


def test_a_guest_reading_headers_gets_them(tmp_path):
    plan = plan_fields(spec(tmp_path, HEADERS, "headers", errors__tolerance="all"))
    assert "headers" in plan.inputs and plan.outputs == ("value",)


@pytest.mark.parametrize(
    "extra",
    [
        {"sink__format": "jsonl"},  # the sink writes whole records
        {"errors__tolerance": "all", "errors__deadletterqueue__path": "dlq"},  # dead letters are whole records
    ],
)
def test_whole_records_move_when_the_sink_or_dead_letters_need_them(tmp_path, extra):
    plan = plan_fields(spec(tmp_path, TO_UPPER, **extra))
    assert plan.inputs == KAFKA_ROW_FIELDS and plan.outputs == KAFKA_ROW_FIELDS


def test_a_transform_that_does_not_declare_its_fields_gets_everything(tmp_path):
    props = {
        "source.path": input_file(tmp_path),
        "sink.path": str(tmp_path / "out"),
        "transforms": "s",
        "transforms.s.type": "Split",
    }
    plan = plan_fields(PipelineSpec.from_properties(props, plugins=sample_plugins()))
    assert plan.inputs == KAFKA_ROW_FIELDS and plan.outputs == ("value",)


def test_built_in_transforms_and_predicates_declare_what_they_read(tmp_path):
    props = {
        "source.path": input_file(tmp_path),
        "sink.path": str(tmp_path / "out"),
        "value.converter": "json",
        "value.converter.schemas.enable": "false",
        "errors.tolerance": "all",
        "transforms": "mask,stamp,route",
        "transforms.mask.type": "MaskField$Value",
        "transforms.mask.fields": "card",
        "transforms.stamp.type": "InsertField$Value",
        "transforms.stamp.offset.field": "at",
        "transforms.route.type": "TimestampRouter",
        "transforms.route.predicate": "headed",
        "predicates": "headed",
        "predicates.headed.type": "HasHeaderKey",
        "predicates.headed.name": "h",
    }
    plan = plan_fields(PipelineSpec.from_properties(props))
    assert plan.inputs == ("value", "topic", "offset", "timestamp", "headers")
    assert plan.outputs == ("value",)
