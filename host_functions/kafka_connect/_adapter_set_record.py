"""``set_record`` in Wasm: the adapter parses the common documents itself.

It accepts an ASCII JSON object whose strings have no escapes, with
whitespace anywhere ``json.loads`` allows it, keys in any order, and:
``headers`` an object of (unique) names to base64 strings or null, or null;
``topic`` a string or null; ``key`` and ``value`` base64 strings or null;
any other key a string or null (ignored).  Base64 must be canonical (length
a multiple of 4, at most two trailing ``=``), the strings ``b64decode(...,
validate=True)`` accepts at that length.  Everything else (escapes,
numbers, duplicate keys, bad base64, non-ASCII...) goes to Python
(:class:`host_functions.kafka_connect.record_json.RecordJson`), which parses it and fails
the record exactly as the reference path does; nothing is changed before
that decision.  The WebAssembly is ``wat/set_record.wat``.
"""

from __future__ import annotations

from host_functions.kafka_connect.adapter_calls import check_guest
from host_functions.kafka_connect.layout import SET_HEADERS, SET_KEY, SET_TOPIC, SET_VALUE
from host_functions.kafka_connect.wat_template import render

__all__ = ["set_record_functions"]


def set_record_functions() -> str:
    """``$set_record`` and its parser, from ``wat/set_record.wat``."""
    return render(
        "set_record",
        check_guest=check_guest("(local.get $p)", "(local.get $l)"),
        SET_TOPIC=SET_TOPIC,
        # SET_TOPIC only with a topic: without one, the input's stays
        SET_MASK=SET_KEY | SET_VALUE | SET_HEADERS,
    )
