"""The host-function shape: the Kafka Connect Extism transformer's test plug-in, rebuilt with the Rust
and Go PDKs, run on the cases of the transformer's own tests."""

import pytest

from tests.host_functions.conftest import make_record
from tests.host_functions.extism.conftest import run_batch

PLUGINS = ["connect_transformer-rust", "connect_transformer-go"]
RECORD = make_record(
    topic="foo",
    key=b"the-key",
    value=b"the-value",
    headers=(("the-key", b"my-key"), ("the-header-in", b"header-value")),
)

#: export -> what it changes in RECORD
GOLDEN = {
    "toUpper": {"key": b"THE-KEY", "value": b"THE-VALUE"},
    "valueToKey": {"key": b"the-value"},
    "headerToKey": {"key": b"my-key"},
    "copyHeader": {"headers": RECORD.headers + (("the-header-out", b"header-value"),)},
    "transform": {"key": b"the-value", "value": b"THE-VALUE"},
}


@pytest.mark.parametrize("plugin", PLUGINS)
@pytest.mark.parametrize("export", sorted(GOLDEN))
def test_each_export_changes_the_record_through_host_functions(extism_transform, plugin, export):
    out, errors = run_batch(extism_transform(plugin, function_name=export), [RECORD, RECORD.replace(offset=1)])

    assert errors.failures == []
    assert out == [RECORD.replace(**GOLDEN[export]), RECORD.replace(offset=1, **GOLDEN[export])]


@pytest.mark.parametrize("plugin", PLUGINS)
def test_the_transforms_converters_apply(extism_transform, plugin):
    transform = extism_transform(plugin, function_name="toUpper", key_converter="string", value_converter="string")

    out, errors = run_batch(transform, [make_record(key="key-1", value="value-1")])

    assert errors.failures == []
    assert [(r.key, r.value) for r in out] == [("KEY-1", "VALUE-1")]  # strings in, strings out


@pytest.mark.parametrize("plugin", PLUGINS)
def test_a_null_value_is_handle_zero_and_a_missing_header_too(extism_transform, plugin):
    out, errors = run_batch(extism_transform(plugin, function_name="headerToKey"), [make_record(value=None)])

    assert errors.failures == []
    assert [(r.key, r.value) for r in out] == [(b"", None)]  # the plug-in reads handle 0 as empty bytes


def test_a_converter_that_refuses_a_value_fails_that_record_only(extism_transform):
    transform = extism_transform(
        "connect_transformer-rust",
        function_name="toUpper",
        value_converter="json",
        **{"value.converter.schemas.enable": "false"},
    )

    out, errors = run_batch(transform, [make_record(value={"a": 1}), make_record(value=object())])

    assert [r.value for r in out] == [{"A": 1}]
    assert errors.rows == [1]
    assert "value.converter failed" in errors.message(1)
