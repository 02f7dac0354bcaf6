"""Where a stage's compiled form over whole records cannot give exactly what its Python path gives, it
refuses (``NotCompilable``, saying why) before it builds a Spark column: no Spark needed here.  Their
parity where they compile: tests/parity/test_compiled_record_parity.py."""

from __future__ import annotations

import pytest

import converters
from smt.compiled import CompiledRecord, NotCompilable
from smt.pipeline.jvm_stream import header_writer
from smt.plugin import PluginContext
from smt.plugins import default_plugins


class _NoSpark:
    """Stands for ``pyspark.sql.functions`` and for the record's columns: touching it fails the test."""

    def __getattr__(self, name):
        raise AssertionError(f"the refusal should come before any Spark column ({name})")

    def __getitem__(self, name):
        raise AssertionError(f"the refusal should come before any Spark column ({name})")


def _configured(kind: str, name: str, props: dict):
    plugin = default_plugins().get(kind, name)()
    plugin.configure(props, PluginContext(alias="t", prefix=f"{kind}s.t."))
    return plugin


def _record(header_converter: str = "simple") -> CompiledRecord:
    return CompiledRecord(_NoSpark(), header_writer(converters.load(header_converter, {})))


@pytest.mark.parametrize("literal", ["text", "42", "true"])
def test_insert_header_refuses_a_literal_the_header_converter_cannot_write(literal):
    transform = _configured("transform", "InsertHeader", {"header": "h", "value.literal": literal})
    with pytest.raises(NotCompilable, match=r"header.converter .*ByteArrayConverter cannot write header 'h'"):
        transform.compile_record(_record("bytearray"), _NoSpark())
