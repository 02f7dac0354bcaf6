"""errors.retry.*: which stage retries (the converters reading a record), and which does not."""

import json

import pyarrow as pa
import pytest

import converters
from converters.bytearray import ByteArrayConverter
from smt import Record, RecordBatch
from smt.chain import TransformChain
from smt.error_handling import ErrorPolicy
from smt.errors import RetriableError, StageError
from smt.pipeline.processor import BatchProcessor
from smt.plugins import hookimpl, load_plugins
from smt.transform import Transform
from tests.converters.registry_stand_in import RegistryStandIn

ORDER = json.dumps({"type": "record", "name": "Order", "fields": [{"name": "id", "type": "long"}]})
#: Confluent's wire format: magic byte, schema id 1, then the Avro body of {"id": 7}.
ORDER_7 = b"\x00\x00\x00\x00\x01\x0e"
RETRYING = dict(tolerance="all", retry_timeout_ms=60_000, retry_delay_max_ms=1)


class FlakyUpstream(Transform):
    """Fails each record's first try with a retriable error, as a transform calling a service that restarts."""

    name = "FlakyUpstream"

    def configure(self, configs, context=None):
        super().configure(configs, context)
        self.tried: set[int] = set()

    def apply(self, record: Record) -> Record:
        if record.offset not in self.tried:
            self.tried.add(record.offset)
            raise RetriableError("upstream service unavailable")
        return record


class FlakyPlugin:
    @hookimpl
    def smt_transforms(self):
        return [FlakyUpstream]


@pytest.fixture
def registry():
    server = RegistryStandIn().start()
    server.register("orders-value", ORDER)
    yield server
    server.stop()


def processor(policy, value_converter, **chain_props):
    chain = TransformChain.from_properties(
        chain_props, plugins=load_plugins(entry_points=False, extra_plugins=[FlakyPlugin()])
    )
    raw = ByteArrayConverter()
    raw.configure({})
    return BatchProcessor(chain, raw, value_converter, raw, policy)


def avro(registry):
    return converters.load("avro", {"schema.registry.url": registry.url}, is_key=False)


def orders(*values):
    records = [
        Record(topic="orders", partition=0, offset=i, timestamp=1000, key=None, value=value)
        for i, value in enumerate(values)
    ]
    return RecordBatch.from_records(records).to_arrow()


def written(out: pa.RecordBatch) -> list:
    return [row["value"] for row in out.to_pylist()]


def test_a_value_converter_reading_through_a_registry_outage_is_retried(registry):
    registry.fail_next(2)
    out, counts = processor(ErrorPolicy(**RETRYING), avro(registry)).process(orders(ORDER_7))
    assert (counts.written, counts.failed) == (1, 0)
    [value] = written(out)
    assert avro(registry).to_connect_data("orders", value)[1].get("id") == 7
    assert registry.failures_left == 0  # both failed requests were made, then the retry passed


def test_without_retries_the_outage_fails_the_record_at_the_value_converter(registry):
    registry.fail_next(1)
    with pytest.raises(StageError, match=r"VALUE_CONVERTER stage .* cannot fetch schema id 1: .*503"):
        processor(ErrorPolicy(), avro(registry)).process(orders(ORDER_7))


def test_a_retriable_transform_failure_is_not_retried():
    raw = ByteArrayConverter()
    raw.configure({})
    chain = {"transforms": "flaky", "transforms.flaky.type": "FlakyUpstream"}
    out, counts = processor(ErrorPolicy(**RETRYING), raw, **chain).process(orders(b"a", b"b"))
    assert (counts.written, counts.failed) == (0, 2)
    assert written(out) == []
