"""Our documented deviations from Kafka Connect, as recognisers of the differences they cause.

Each entry is a row of the "Deliberate deviations" table in
``docs/kafka-connect-compatibility.md`` (``name`` is the name in its first
column): the oracle counts a difference under the first deviation that
explains it, and any difference none explains fails the test.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import re
import struct
from typing import Any, Callable

from converters.string import java_charset
from smt.data.logical import OUT_OF_RANGE

__all__ = ["DEVIATIONS", "Deviation"]


@dataclasses.dataclass(frozen=True)
class Deviation:
    name: str
    applies: Callable[[dict, Any, dict, dict], bool]


def _ok_pair(theirs: dict, mine: dict) -> tuple[Any, Any] | None:
    if "ok" in theirs and "ok" in mine:
        return theirs["ok"], mine["ok"]
    return None


def _json(text: Any) -> Any:
    try:
        return json.loads(text if not isinstance(text, str) or text[:1] in '{["-0123456789tfn' else "x")
    except (ValueError, TypeError):
        return _NOT_JSON


_NOT_JSON = object()


def _as_float32(document: Any) -> Any:
    """``document`` with every number rounded to a 32-bit float."""
    if isinstance(document, dict):
        return {k: _as_float32(v) for k, v in document.items()}
    if isinstance(document, list):
        return [_as_float32(v) for v in document]
    if isinstance(document, float) or (isinstance(document, int) and not isinstance(document, bool)):
        try:
            return struct.unpack("<f", struct.pack("<f", float(document)))[0]
        except OverflowError:
            return document
    return document


def _decoded(decode: Callable[[bytes], str], data: bytes) -> str:
    try:
        return decode(data)
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _texts(case: dict, theirs: dict, mine: dict) -> list[tuple[Any, Any]]:
    """The outputs to look at: envelopes, or decoded key/value/header texts."""
    pair = _ok_pair(theirs, mine)
    if pair is None:
        return []
    if case["kind"] == "to_connect":
        return [pair]
    if case["kind"] == "from_connect":
        encoding = case["config"].get("converter.encoding", "UTF-8") if case["plugin"] == "StringConverter" else "UTF-8"
        decode = java_charset(encoding)[1]
        return [tuple(None if p is None else _decoded(decode, base64.b64decode(p)) for p in pair)]
    a, b = pair
    texts = [(a[k], b[k]) for k in ("key", "value")]
    texts += [(x[1], y[1]) for x, y in zip(a["headers"], b["headers"])]
    return [tuple(None if p is None else base64.b64decode(p).decode("utf-8", "replace") for p in t) for t in texts]


def java17_float_digits(case: dict, item: Any, theirs: dict, mine: dict) -> bool:
    """Java 17's Float.toString sometimes prints a digit more than the shortest (JDK-4511638)."""
    texts = _texts(case, theirs, mine)
    if not texts or all(a == b for a, b in texts):
        return False
    for a, b in texts:
        if a == b:
            continue
        if a is None or b is None:
            return False
        x, y = _json(a), _json(b)
        if x is _NOT_JSON or y is _NOT_JSON:
            if _numbers_as_float32(a) != _numbers_as_float32(b):
                return False
        elif _as_float32(x) != _as_float32(y):
            return False
    return True


_NUMBER = re.compile(r"-?[0-9]+\.[0-9]+(?:E-?[0-9]+)?")


def _numbers_as_float32(text: str) -> str:
    """``text`` with every decimal number in it rounded to a 32-bit float."""
    return _NUMBER.sub(lambda m: repr(_as_float32(float(m.group()))), text)


def _schema_of(envelope: str | None) -> Any:
    return None if envelope is None else json.loads(envelope).get("schema")


def string_and_bytes_read_schemaless(case: dict, item: Any, theirs: dict, mine: dict) -> bool:
    """StringConverter and ByteArrayConverter read without a schema (Kafka: optional STRING/BYTES)."""
    pair = _ok_pair(theirs, mine)
    if case["kind"] != "to_connect" or pair is None or case["plugin"] not in ("StringConverter", "ByteArrayConverter"):
        return False
    a, b = pair
    if a is None or b is None:
        return b is None and a is not None and json.loads(a)["payload"] is None
    kafka_schema = _schema_of(a)
    return (
        _schema_of(b) is None
        and kafka_schema is not None
        and kafka_schema.get("optional")
        and kafka_schema["type"] in ("string", "bytes")
        and json.loads(a)["payload"] == json.loads(b)["payload"]
    )


def invalid_text_is_not_replaced(case: dict, item: Any, theirs: dict, mine: dict) -> bool:
    """Bytes that are not valid in the charset fail (StringConverter) or stay bytes (SimpleHeaderConverter),
    where Kafka replaces them with U+FFFD; text the charset cannot encode fails, where Kafka writes '?'."""
    if case["kind"] == "from_connect":  # a character the charset lacks: Java writes '?'
        return (
            case["plugin"] == "StringConverter"
            and "ok" in theirs
            and "error" in mine
            and "cannot encode" in mine["error"]["message"]
        )
    if case["kind"] != "to_connect" or "ok" not in theirs or "\\ufffd" not in json.dumps(theirs["ok"]):
        return False
    if case["plugin"] == "StringConverter":
        return "error" in mine and "invalid" in mine["error"]["message"]
    if case["plugin"] == "SimpleHeaderConverter":
        return "ok" in mine and '"type":"bytes"' in mine["ok"]
    return False


def schemaless_integer_width(case: dict, item: Any, theirs: dict, mine: dict) -> bool:
    """Without a schema a Python int has no width: Short/IntegerConverter take any int in range,
    where Kafka refuses a Long (what a schemaless JSON number is)."""
    return (
        "error" in theirs
        and "ok" in mine
        and case["kind"] == "from_connect"
        and "(was class java.lang.Long)" in theirs["error"]["message"]
        and case["plugin"] in ("ShortConverter", "IntegerConverter")
    )


def _differing(texts: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """The pairs of ``texts`` that differ, as JSON documents where both are JSON (Jackson prints
    -6.7005855657238072E16 where we print -6.700585565723807e+16: the same double)."""
    return [(a, b) for a, b in texts if a != b and (_json(a) is _NOT_JSON or _json(a) != _json(b))]


def map_entry_order(case: dict, item: Any, theirs: dict, mine: dict) -> bool:
    """Maps print their entries in our order; Java's HashMap prints them in hash order."""
    differing = _differing(_texts(case, theirs, mine))
    return bool(differing) and all(
        a is not None
        and b is not None
        and "{" in a
        and sorted(_numbers_as_float32(a)) == sorted(_numbers_as_float32(b))
        for a, b in differing
    )


def bytes_to_string(case: dict, item: Any, theirs: dict, mine: dict) -> bool:
    """StringConverter writes bytes as base64, where Java's toString gives the array's identity ([B@1b6d3586)."""
    texts = _texts(case, theirs, mine)
    differing = [(a, b) for a, b in texts if a != b]
    return bool(differing) and all(a is not None and "[B@" in a for a, _ in differing)


def tombstone_pass_through(case: dict, item: Any, theirs: dict, mine: dict) -> bool:
    """A null key or value passes MaskField, HeaderFrom and ValueToKey unchanged; Kafka fails on it."""
    return (
        "error" in theirs
        and "ok" in mine
        and "found: null" in theirs["error"]["message"]
        and case["plugin"].split("$")[0] in ("MaskField", "HeaderFrom", "ValueToKey")
    )


def set_schema_metadata_on_primitives(case: dict, item: Any, theirs: dict, mine: dict) -> bool:
    """SetSchemaMetadata renames and versions any schema; Kafka 4.1 fails on non-struct ones."""
    return (
        "error" in theirs
        and "ok" in mine
        and case["plugin"].startswith("SetSchemaMetadata")
        and theirs["error"]["message"] == "Cannot list fields on non-struct type"
    )


def _same_part(theirs: str | None, mine: str | None) -> bool:
    """The same key or value bytes, or the same JSON document (Jackson escapes characters we do not)."""
    if theirs == mine:
        return True
    if theirs is None or mine is None:
        return False
    document = _json(base64.b64decode(theirs))
    return document is not _NOT_JSON and document == _json(base64.b64decode(mine))


def header_bytes_pass_through(case: dict, item: Any, theirs: dict, mine: dict) -> bool:
    """A bytes header value is written as it is; Kafka's SimpleHeaderConverter writes it as base64."""
    pair = _ok_pair(theirs, mine)
    if case["kind"] != "pipeline" or pair is None:
        return False
    a, b = pair
    if any(a[k] != b[k] for k in ("topic", "partition", "timestamp")):
        return False
    if not all(_same_part(a[k], b[k]) for k in ("key", "value")):
        return False
    if [h[0] for h in a["headers"]] != [h[0] for h in b["headers"]]:
        return False
    return all(
        x == y or (x is not None and y is not None and base64.b64decode(x) == base64.b64encode(base64.b64decode(y)))
        for (_, x), (_, y) in zip(a["headers"], b["headers"])
    )


def rename_collisions(case: dict, item: Any, theirs: dict, mine: dict) -> bool:
    """Two fields renamed to one name, or onto a field that stays: Kafka keeps whichever its HashMap
    visits last (hash order), and with a schema reads a field's value from the field its reversed
    renames name (a rename onto a field that stays reads the renamed one), failing when the record
    lacks it or its type does not fit; we keep the renamed one, the last rename winning."""
    kafka_read_failed = "error" in theirs and theirs["error"].get("stage") == "TRANSFORMATION"
    if not case["plugin"].startswith("ReplaceField") or "ok" not in mine or not ("ok" in theirs or kafka_read_failed):
        return False
    pairs = [m.split(":") for m in case["config"].get("transforms.t.renames", "").split(",") if ":" in m]
    targets = [new for _, new in pairs]
    part = "key" if case["plugin"].endswith("$Key") else "value"
    document = _json(base64.b64decode(item[part])) if item[part] else None
    payload = document.get("payload", document) if isinstance(document, dict) and "schema" in document else document
    names = set(payload) if isinstance(payload, dict) else set()
    sources = {old for old, _ in pairs}
    return len(set(targets)) < len(targets) or any(t in names - sources for t in targets)


def deprecated_replace_field_names(case: dict, item: Any, theirs: dict, mine: dict) -> bool:
    """ReplaceField's blacklist/whitelist keep their Kafka 3.x meaning (exclude/include); Kafka 4.0
    removed them and ignores them."""
    config = case.get("config", {})
    return case["plugin"].startswith("ReplaceField") and any(
        f"transforms.t.{old}" in config and f"transforms.t.{new}" not in config
        for old, new in (("blacklist", "exclude"), ("whitelist", "include"))
    )


def schemaless_negative_zero(case: dict, item: Any, theirs: dict, mine: dict) -> bool:
    """A schemaless JSON -0.0 stays -0.0; Kafka reads numbers as BigDecimal and gets 0.0.  The
    oracle hands converters their input as schemaless envelopes, so Float/DoubleConverter write it."""
    if case["kind"] == "from_connect" and case["plugin"] in ("FloatConverter", "DoubleConverter"):
        pair = _ok_pair(theirs, mine)
        layout = ">f" if case["plugin"] == "FloatConverter" else ">d"
        return (
            pair is not None
            and None not in pair
            and "-0.0" in item
            and _json(item) == {"schema": None, "payload": -0.0}
            and [base64.b64decode(x) for x in pair] == [struct.pack(layout, 0.0), struct.pack(layout, -0.0)]
        )
    texts = _texts(case, theirs, mine)
    differing = [(a, b) for a, b in texts if a != b]
    return bool(differing) and all(
        a is not None
        and b is not None
        and "-0.0" in b
        and _same_text_or_document(a.replace("-0.0", "0.0"), b.replace("-0.0", "0.0"))
        for a, b in differing
    )


def _same_text_or_document(a: str, b: str) -> bool:
    return a == b or (_json(a) is not _NOT_JSON and _json(a) == _json(b))


def dates_beyond_year_9999(case: dict, item: Any, theirs: dict, mine: dict) -> bool:
    """A Date or Timestamp beyond the years 1-9999 fails here; Kafka's java.util.Date holds it."""
    return "error" in mine and mine["error"]["message"].endswith(OUT_OF_RANGE)


DEVIATIONS: list[Deviation] = [
    Deviation("schemaless-negative-zero", schemaless_negative_zero),
    Deviation("deprecated-replace-field-names", deprecated_replace_field_names),
    Deviation("rename-collisions", rename_collisions),
    Deviation("header-bytes-pass-through", header_bytes_pass_through),
    Deviation("tombstone-pass-through", tombstone_pass_through),
    Deviation("set-schema-metadata-on-primitives", set_schema_metadata_on_primitives),
    Deviation("dates-beyond-year-9999", dates_beyond_year_9999),
    Deviation("java17-float-digits", java17_float_digits),
    Deviation("schemaless-integer-width", schemaless_integer_width),
    Deviation("map-entry-order", map_entry_order),
    Deviation("bytes-to-string", bytes_to_string),
    Deviation("string-and-bytes-read-schemaless", string_and_bytes_read_schemaless),
    Deviation("invalid-text-is-not-replaced", invalid_text_is_not_replaced),
]
