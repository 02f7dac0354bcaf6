"""A guest that runs out of memory gets a fresh instance, and its record one more try there.

The Kafka Connect transformer's Rust SDK never frees the document ``get_record`` hands it, so its
``transform`` leaks about 110 bytes a record: under any memory limit an instance fills up in the end.
"""

import logging

import pytest

from tests.host_functions import wat_guests as g
from tests.host_functions.conftest import make_record, run

#: 20 pages: the Rust guest starts at 17 (its stack and data), so an instance lasts about a thousand records.
SMALL_MEMORY = 20 * 65536
PADDING = b" and some padding" * 5


@pytest.mark.parametrize(("path", "count"), [("fast", 20_000), ("reference", 4_000)])
def test_a_leaking_guest_outlives_many_instances_without_failing_a_record(
    make_transform, kafka_connect_rust_guest, caplog, path, count
):
    transform = make_transform(kafka_connect_rust_guest, "transform", path=path, memory_max_bytes=SMALL_MEMORY)
    # ~100-byte values: the leaked document is ~200 bytes
    records = [make_record(value=b"value %06d" % i + PADDING, key=None, headers=()) for i in range(count)]

    with caplog.at_level(logging.INFO, logger="smt"):
        out, origins, errors = run(transform, records)

    assert errors.failures == []
    assert origins == list(range(count))
    assert [(r.key, r.value) for r in out[::997]] == [
        (b"value %06d" % i + PADDING, b"VALUE %06d" % i + PADDING.upper()) for i in range(0, count, 997)
    ]
    fresh_instances = [r.getMessage() for r in caplog.records if "runs again on a fresh instance" in r.getMessage()]
    assert len(fresh_instances) >= 3
    assert f"of memory.max.bytes={SMALL_MEMORY}); record " in fresh_instances[0]


@pytest.mark.parametrize("path", ["fast", "reference"])
def test_a_record_that_runs_out_of_memory_on_a_fresh_instance_too_fails(make_transform, caplog, path):
    transform = make_transform(g.MEMORY_BOMB, "bomb", path=path, memory_max_bytes=4 * 1024 * 1024)

    with caplog.at_level(logging.INFO, logger="smt"):
        out, _, errors = run(transform, [make_record(value=b"bomb")])

    assert out == []
    assert "out of memory: guest memory at" in errors.message(0)
    assert sum("runs again on a fresh instance" in r.getMessage() for r in caplog.records) == 1
