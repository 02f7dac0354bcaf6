"""The per-batch processor: converters, chain, error policy and the accounting invariant."""

import pyarrow as pa
import pytest

from converters.bytearray import ByteArrayConverter
from converters.string import StringConverter
from smt import Record, RecordBatch, Stage, StageError
from smt.chain import TransformChain
from smt.config_providers import SecretMask
from smt.error_handling import ErrorPolicy
from smt.errors import DataError
from smt.pipeline.processor import DEAD_LETTER_COLUMN, BatchProcessor, _Failures
from tests.smt.sample_plugins import sample_plugins


def string_converter():
    converter = StringConverter()
    converter.configure({})
    return converter


def processor(policy, **chain_props):
    props = {k.replace("__", "."): v for k, v in chain_props.items()}
    chain = TransformChain.from_properties(props, plugins=sample_plugins())
    raw = ByteArrayConverter()
    raw.configure({})
    return BatchProcessor(chain, raw, string_converter(), raw, policy)


def input_batch(values):
    records = [
        Record(topic="in", partition=0, offset=i, timestamp=1000 + i, key=b"k%d" % i, value=v, headers=[("h", b"x")])
        for i, v in enumerate(values)
    ]
    return RecordBatch.from_records(records).to_arrow()


CHAIN = dict(
    transforms="split,a,drop",
    transforms__split__type="Split",
    transforms__a__type="AppendSuffix",
    transforms__a__suffix="!",
    transforms__drop__type="DropValue",
    transforms__drop__value="gone!",
)


def test_every_input_row_is_written_filtered_or_failed():
    policy = ErrorPolicy(tolerance="all", dlq_path="/unused")
    out, counts = processor(policy, **CHAIN).process(input_batch([b"a|b", b"gone", b"boom", b"\xff", b"c"]))
    rows = out.to_pylist()
    written = [r for r in rows if not r[DEAD_LETTER_COLUMN]]
    dead = [r for r in rows if r[DEAD_LETTER_COLUMN]]
    assert [r["value"] for r in written] == [b"a!", b"b!", b"c!"]
    assert [r["value"] for r in dead] == [b"boom", b"\xff"]
    assert [r["offset"] for r in written] == [0, 0, 4]
    assert (counts.read, counts.written, counts.filtered, counts.failed, counts.dead_lettered) == (5, 2, 1, 2, 2)
    assert counts.read == counts.written + counts.filtered + counts.failed
    assert counts.output_rows == 3


def test_dead_letters_are_the_original_input_records_with_context_headers():
    policy = ErrorPolicy(tolerance="all", dlq_path="/unused", context_headers=True, connector_name="orders")
    out, _ = processor(policy, **CHAIN).process(input_batch([b"ok", b"boom", b"\xff"]))
    dead = [r for r in out.to_pylist() if r[DEAD_LETTER_COLUMN]]
    assert [(r["offset"], r["key"], r["value"]) for r in dead] == [(1, b"k1", b"boom"), (2, b"k2", b"\xff")]
    headers = {h["key"]: h["value"] for h in dead[0]["headers"]}
    assert dead[0]["headers"][0] == {"key": "h", "value": b"x"}
    assert headers["__connect.errors.stage"] == b"TRANSFORMATION"
    assert headers["__connect.errors.connector.name"] == b"orders"
    assert headers["__connect.errors.offset"] == b"1"
    assert headers["__connect.errors.exception.message"] == b"cannot append to boom"
    assert headers["__connect.errors.class.name"].endswith(b"AppendSuffix")
    assert b"Traceback" in headers["__connect.errors.exception.stacktrace"]
    converter_headers = {h["key"]: h["value"] for h in dead[1]["headers"]}
    assert converter_headers["__connect.errors.stage"] == b"VALUE_CONVERTER"


def test_without_a_dead_letter_queue_failures_are_skipped_and_counted():
    out, counts = processor(ErrorPolicy(tolerance="all"), **CHAIN).process(input_batch([b"boom", b"x"]))
    assert [r["value"] for r in out.to_pylist()] == [b"x!"]
    assert (counts.failed, counts.dead_lettered) == (1, 0)


def test_tolerance_none_stops_at_the_first_failure_naming_stage_and_record():
    with pytest.raises(
        StageError,
        match=r"VALUE_CONVERTER stage with converters\.string\.StringConverter on "
        r"record topic='in' partition=0 offset=1: ConverterError: .*invalid UTF-8",
    ):
        processor(ErrorPolicy(), **CHAIN).process(input_batch([b"fine", b"\xff"]))


def test_passthrough_columns_stay_arrow_end_to_end():
    raw = ByteArrayConverter()
    raw.configure({})
    chain = TransformChain([])
    out, counts = BatchProcessor(chain, raw, raw, raw, ErrorPolicy()).process(input_batch([b"a", None]))
    assert [r["value"] for r in out.to_pylist()] == [b"a", None]
    assert out.schema.field("timestamp").type == pa.timestamp("us")
    assert RecordBatch.from_arrow(out).timestamp == [1000, 1001]
    assert counts.written == 2


def test_rows_a_source_could_not_read_fail_at_task_poll_and_are_dead_lettered():
    from smt.connector import SOURCE_ERROR_COLUMN

    arrow = input_batch([b"a", b"garbage", b"c"])
    arrow = arrow.append_column(SOURCE_ERROR_COLUMN, pa.array([None, "line 2: not JSON", None], pa.string()))
    policy = ErrorPolicy(tolerance="all", dlq_path="/unused", context_headers=True)
    out, counts = processor(policy, **CHAIN).process(arrow)
    rows = out.to_pylist()
    assert [r["value"] for r in rows if not r[DEAD_LETTER_COLUMN]] == [b"a!", b"c!"]
    dead = [r for r in rows if r[DEAD_LETTER_COLUMN]]
    assert [r["value"] for r in dead] == [b"garbage"]
    headers = {h["key"]: h["value"] for h in dead[0]["headers"]}
    assert headers["__connect.errors.stage"] == b"TASK_POLL"
    assert headers["__connect.errors.exception.message"] == b"line 2: not JSON"
    assert (counts.read, counts.written, counts.failed) == (3, 2, 1)


def test_a_source_error_stops_the_pipeline_with_tolerance_none():
    from smt.connector import SOURCE_ERROR_COLUMN

    arrow = input_batch([b"a"]).append_column(SOURCE_ERROR_COLUMN, pa.array(["truncated record"], pa.string()))
    with pytest.raises(
        StageError,
        match=r"TASK_POLL stage with source on record topic='in' partition=0 "
        r"offset=0: SourceRecordError: truncated record",
    ):
        processor(ErrorPolicy(), **CHAIN).process(arrow)


# --- columns beside the Kafka row layout ---------------------------------------


def with_ids(arrow: pa.RecordBatch, ids: list[str]) -> pa.RecordBatch:
    return arrow.append_column("order_id", pa.array(ids, pa.string())).append_column(
        "day", pa.array([20240101 + i for i in range(len(ids))], pa.int32())
    )


def test_extra_columns_travel_with_their_record_through_fan_out_drop_and_failure():
    arrow = with_ids(input_batch([b"a|b", b"gone", b"boom", b"c"]), ["o1", "o2", "o3", "o4"])
    policy = ErrorPolicy(tolerance="all")
    out, _ = BatchProcessor(processor(policy, **CHAIN).chain, *converters(), policy, dead_letter_rows=True).process(
        arrow
    )
    rows = out.to_pylist()
    assert [(r["value"], r["order_id"], r["day"]) for r in rows if not r[DEAD_LETTER_COLUMN]] == [
        (b"a!", "o1", 20240101),
        (b"b!", "o1", 20240101),
        (b"c!", "o4", 20240104),
    ]
    assert [(r["value"], r["order_id"]) for r in rows if r[DEAD_LETTER_COLUMN]] == [(b"boom", "o3")]
    assert out.schema.field("day").type == pa.int32()


def test_error_columns_say_why_each_dead_letter_failed_and_are_null_on_records():
    policy = ErrorPolicy(tolerance="all")
    chain = processor(policy, **CHAIN).chain
    out, counts = BatchProcessor(chain, *converters(), policy, dead_letter_rows=True, error_columns=True).process(
        input_batch([b"ok", b"boom", b"\xff"])
    )
    rows = out.to_pylist()
    assert [(r["error_stage"], r["error_message"]) for r in rows if not r[DEAD_LETTER_COLUMN]] == [(None, None)]
    dead = [r for r in rows if r[DEAD_LETTER_COLUMN]]
    assert [(r["value"], r["error_stage"]) for r in dead] == [(b"boom", "TRANSFORMATION"), (b"\xff", "VALUE_CONVERTER")]
    assert dead[0]["error_class"].endswith("AppendSuffix")
    assert dead[0]["error_message"] == "cannot append to boom"
    assert dead[1]["error_class"] == "converters.string.StringConverter"
    assert dead[1]["error_exception"] == "smt.converter.ConverterError"
    assert (counts.failed, counts.dead_lettered) == (2, 2)


def converters():
    raw = ByteArrayConverter()
    raw.configure({})
    return raw, string_converter(), raw


def test_a_record_error_that_stops_the_run_leaves_no_secret_in_its_message_or_context():
    failures = _Failures(ErrorPolicy(mask=SecretMask((("s3cr3t-value", "${env:S}"),))))
    with pytest.raises(StageError, match=r"DataError: cannot log in with \$\{env:S\}$") as stopped:
        try:
            raise DataError("cannot log in with s3cr3t-value")
        except DataError as exc:
            failures.failed(0, StageError(Stage.VALUE_CONVERTER, "AvroConverter", exc))
    assert stopped.value.__suppress_context__, "the unmasked error must not be printed as its context"
