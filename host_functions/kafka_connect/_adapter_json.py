"""``get_record`` in Wasm: the record's JSON document built by the adapter.

Byte for byte what :func:`host_functions.kafka_connect.record_json.record_json` makes
(``json.dumps`` with ``ensure_ascii``, compact separators): ``headers`` (names
in first-seen order, the last value of each name; null for a null value),
``topic``, then ``key`` and ``value`` when not null, bytes in standard base64.
Only ASCII topics and header names are escaped here (quotes, backslashes and
control characters, as ``json.dumps`` does); any other byte hands the record
to Python, which decodes, escapes and reports invalid UTF-8 like the
reference path.  The WebAssembly is ``wat/get_record.wat``.
"""

from __future__ import annotations

from host_functions.kafka_connect.adapter_calls import demand, readable
from host_functions.kafka_connect.layout import AdapterShape
from host_functions.kafka_connect.wat_template import render

__all__ = ["json_memory", "json_functions"]

#: Fixed pieces of the document; a segment of the adapter's ``$tx`` memory, at the offsets
#: ``wat/get_record.wat`` copies them from.
PIECES = ('{"headers":{', '},"topic":"', '","key":"', '","value":"', '"}', "null")


def json_memory() -> str:
    text = "".join(PIECES).replace("\\", "\\\\").replace('"', '\\"')
    return f'(memory $tx 1)\n  (data (memory $tx) (i32.const 0) "{text}")'


def json_functions(shape: AdapterShape) -> str:
    """``$get_record`` and its helpers, from ``wat/get_record.wat`` (the shape imports Python's get_record
    for the fallback)."""
    return render(
        "get_record",
        demand=demand(shape, "key", "value", "topic", "headers"),
        readable=readable(shape, "key", "value", "headers"),
    )
