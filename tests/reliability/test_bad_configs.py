"""Bad configurations are refused by `smt validate` (exit 2) naming the key; values that only look like paths are left alone."""

import pytest
import wasmtime

from smt.commands.output import EXIT_INVALID
from tests.host_functions import wat_guests as g

BASE = "source.path=in\nsource.format=text\nsink.path=out\nsink.format=text\n"

#: (extra lines, an error line `smt validate` must print)
BAD_CONFIGS = [
    ("errors.tolerance=maybe\n", "error: errors.tolerance: must be one of none, all; got 'maybe'"),
    (
        "transforms=x\ntransforms.x.type=NoSuchTransform\n",
        "error: transforms.x.type: unknown transform 'NoSuchTransform'",
    ),
    ("transforms=x\n", "error: transforms.x.type: is required and has no default"),
    (
        "transforms=x\ntransforms.x.type=InsertField$Value\n",
        "error: transforms.x: No field insertion configured: set one of transforms.x.topic.field, "
        "transforms.x.partition.field, transforms.x.offset.field, transforms.x.timestamp.field, transforms.x.static.field",
    ),
    (
        "spark.master=locl[2]\n",
        "error: spark.master: not a Spark master URL: 'locl[2]'; use local, local[N], "
        "local[*], local-cluster[N,C,M], spark://HOST:PORT, yarn or k8s://URL",
    ),
    ("spark.master=local[0]\n", "error: spark.master: not a Spark master URL: 'local[0]'"),
    (
        "errors.tolerance=all\nerrors.deadletterqueue.topic.name=dead\n",
        "error: errors.deadletterqueue.kafka.bootstrap.servers: is required and has no default",
    ),
    (
        "errors.tolerance=all\nerrors.deadletterqueue.topic.name=dead\nerrors.deadletterqueue.kafka.acks=all\n",
        "error: errors.deadletterqueue.kafka.bootstrap.servers: is required and has no default",
    ),
    ("mode=streaming\n", "error: checkpoint.location: is required when mode=streaming"),
    ("sink.write.mode=replace\n", "error: sink.write.mode: must be one of errorifexists, overwrite, append, ignore"),
    ("value.converter=nope\n", "error: value.converter: unknown converter 'nope'"),
    (
        "errors.tolerence=all\n",
        "error: errors.tolerence: unknown key: no plugin reads it, so it has no effect; did you mean 'errors.tolerance'?",
    ),
    (
        "transforms=w\ntransforms.w.type=wasm\ntransforms.w.module.path=none.wasm\n",
        "error: transforms.w.module.path: cannot read WebAssembly module",
    ),
]


@pytest.mark.parametrize("extra, expected", BAD_CONFIGS, ids=[e.split("\n")[0][:40] for e, _ in BAD_CONFIGS])
def test_validate_refuses_a_bad_config_naming_the_key(probe, extra, expected):
    probe.input("a.txt", "line\n")
    outcome = probe.smt("validate", str(probe.pipeline(BASE + extra)))
    assert outcome.code == EXIT_INVALID, outcome.out
    assert any(line.startswith(expected) for line in outcome.error_lines), outcome.err
    probe.assert_input_unchanged()


def test_the_sinks_kafka_settings_serve_a_dead_letter_topic_with_one_key_of_its_own(probe):
    probe.input("a.txt", "line\n")
    pipeline = probe.pipeline(
        "source.path=in\nsink=kafka\nsink.topic=out\nsink.kafka.bootstrap.servers=127.0.0.1:9092\n"
        "errors.tolerance=all\nerrors.deadletterqueue.topic.name=dead\n"
        "errors.deadletterqueue.kafka.max.request.size=2000000\n"
    )
    outcome = probe.smt("validate", str(pipeline))
    assert (outcome.code, outcome.err) == (0, "")


#: Echoes the guest config value `location` as the record value.
ECHO_LOCATION = g.guest(
    """(func (export "echo") (local $v i64)
    (call $reset)
    (local.set $v (call $get_config (i32.const 900) (i32.const 8)))
    (call $set_value (call $ptr (local.get $v)) (call $len (local.get $v))))""",
    imports=("get_config", "set_value"),
    extra='(data (i32.const 900) "location")',
)


@pytest.mark.spark
def test_keys_that_only_look_like_paths_reach_the_plugins_as_written(probe, spark):
    probe.input("a.txt", "line\n")
    (probe.root / "echo.wasm").write_bytes(wasmtime.wat2wasm(ECHO_LOCATION))
    pipeline = probe.pipeline(
        BASE + "transforms=echo\ntransforms.echo.type=wasm\ntransforms.echo.module.path=echo.wasm\n"
        "transforms.echo.function.name=echo\ntransforms.echo.path=reference\n"
        "transforms.echo.config.location=EU\n"
    )
    outcome = probe.run(pipeline)
    assert outcome.code == 0, outcome.err
    # module.path (declared a path) resolved against the file; path=reference and config.location untouched.
    assert probe.lines("out") == [b"EU"]
    probe.assert_input_unchanged()


def test_a_key_set_twice_is_a_warning_naming_its_lines_and_an_error_with_strict(probe):
    pipeline = probe.pipeline(BASE + "sink.format=jsonl\n")  # BASE sets it on line 4
    message = "sink.format: is set 2 times (lines 4, 5); line 5 is used"
    outcome = probe.smt("validate", str(pipeline))
    assert outcome.code == 0
    assert f"warning: {message}" in outcome.err.splitlines()
    outcome = probe.smt("validate", "--strict", str(pipeline))
    assert outcome.code == EXIT_INVALID
    assert outcome.error_lines == [f"error: {message}"]
