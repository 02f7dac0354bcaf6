"""Hostile plug-ins fail only their own records: traps, endless loops, memory bombs, floods of records,
errors and network access.  The rest of the batch goes on, on a fresh instance."""

import logging
import re

import pytest

from tests.host_functions.conftest import make_record
from tests.host_functions.extism.conftest import run_batch

#: export, trigger value, settings, the cause in the failure (a pattern)
HOSTILE = [
    ("trap", b"boom", {}, r"trap: unreachable instruction executed \(the guest aborted\)"),
    ("spin", b"spin", {"timeout_ms": 200}, r"timed out after 200 ms \(timeout.ms\)"),
    (
        "bomb",
        b"bomb",
        {"memory_max_bytes": 8 << 20},
        r"out of memory: guest memory at \d+ bytes of memory.max.bytes=8388608",
    ),
    ("flood", b"flood", {}, r"the output holds 1000000 records for one input record; max.outputs.per.record=10000"),
    ("fail", b"anything", {}, r'the plug-in reported an error \(return code 1\): refused "anything"'),
    ("fetch", b"x", {}, r"http_request is not allowed: Extism plug-ins get no network access here"),
]


@pytest.mark.parametrize(("export", "trigger", "settings", "cause"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_record_fails_alone_and_the_batch_goes_on(extism_transform, export, trigger, settings, cause):
    transform = extism_transform("hostile", alias="evil", function_name=export, **settings)
    records = [
        make_record(value=b"before", offset=0),
        make_record(value=trigger, offset=1),
        make_record(value=b"after", offset=2),
    ]

    out, errors = run_batch(transform, records)

    fails_every_record = export in ("fail", "fetch")
    assert [r.value for r in out] == ([] if fails_every_record else [b"before", b"after"])
    assert 1 in errors.rows
    message = errors.message(1)
    assert message.startswith(f"wasm transform 'evil' ({export} in guests-hostile-")
    assert re.search(cause, message)
    assert message.endswith("on the record at partition=0 offset=1 (row 1 of the batch)")


#: the same for a plug-in built with standard Go (a panic ends in `unreachable`; the Go runtime
#: needs more memory to start)
HOSTILE_GO = [
    ("trap", b"boom", {}, r"trap: unreachable instruction executed \(the guest aborted\)"),
    ("spin", b"spin", {"timeout_ms": 200}, r"timed out after 200 ms \(timeout.ms\)"),
    (
        "bomb",
        b"bomb",
        {"memory_max_bytes": 32 << 20},
        r"out of memory: guest memory at \d+ bytes of memory.max.bytes=33554432",
    ),
]


@pytest.mark.parametrize(("export", "trigger", "settings", "cause"), HOSTILE_GO, ids=[h[0] for h in HOSTILE_GO])
def test_a_hostile_record_fails_alone_in_a_go_plugin_too(extism_transform, export, trigger, settings, cause):
    transform = extism_transform("hostile-go", function_name=export, **settings)
    records = [make_record(value=b"before"), make_record(value=trigger), make_record(value=b"after")]

    out, errors = run_batch(transform, records)

    assert [r.value for r in out] == [b"before", b"after"]
    assert errors.rows == [1]
    assert re.search(cause, errors.message(1))


def test_state_starts_afresh_after_a_trap(extism_transform):
    # the instance that trapped is never reused: its variables and globals go with it
    counting = extism_transform("hostile", function_name="count")
    values = [b"a", b"b", b"boom", b"c", b"d"]

    out, errors = run_batch(counting, [make_record(value=v) for v in values])

    assert errors.rows == [2]
    assert [r.value for r in out] == [b"calls=1 vars=1", b"calls=2 vars=2", b"calls=1 vars=1", b"calls=2 vars=2"]


def test_many_traps_in_a_row_each_fail_their_record(extism_transform):
    transform = extism_transform("hostile", function_name="trap")
    values = [b"boom" if i % 3 == 0 else b"ok-%d" % i for i in range(30)]

    out, errors = run_batch(transform, [make_record(value=v) for v in values])

    assert errors.rows == list(range(0, 30, 3))
    assert [r.value for r in out] == [v for v in values if v != b"boom"]


def test_plugin_logs_go_to_the_transforms_logger(extism_transform, caplog):
    transform = extism_transform("hostile", alias="loud", function_name="echo")
    with caplog.at_level(logging.INFO, logger="smt.transform"):
        run_batch(transform, [make_record(topic="orders")])
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records if "echo" in r.getMessage()] == [
        (transform.context.logger("transform").name, logging.INFO, 'echo "orders"')
    ]


def test_below_the_loggers_level_plugins_do_not_call_the_host_to_log(extism_transform, caplog):
    transform = extism_transform("hostile", function_name="echo")
    with caplog.at_level(logging.WARNING, logger="smt.transform"):
        run_batch(transform, [make_record()])
    assert [r for r in caplog.records if "echo" in r.getMessage()] == []
