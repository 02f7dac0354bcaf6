"""Our documented deviations from Kafka Connect, as precise statements of what both sides produce.

Each entry is a row of the "Deliberate deviations" table in
``docs/kafka-connect-compatibility.md`` (``name`` is the name in its first
column).  A deviation looks at both results: what Kafka produced and what we
produced must each be what the row says, and everything else about the two
outputs must agree (see tests/oracle/_equivalence.py).  Where the row says "we
do what Kafka does for another configuration or record", Kafka runs that
variant too (tests/oracle/_twins.py) and ours is compared with it.

The oracle counts a difference under the first deviation that explains it;
any difference none explains fails the test, and so does a deviation that
explains more cases in one run than its ``budget`` (set from the counts of
the default run, ``SMT_ORACLE_SCALE`` times over).
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
from tests.oracle._equivalence import (
    ANYWHERE,
    AT_FLOAT32_FIELDS,
    NOT_JSON,
    envelope_agrees,
    map_texts_agree,
    outcomes_agree,
    parse_json,
    parts,
    texts_agree,
)
from tests.oracle._twins import WINNERS, deprecated_names, stages

__all__ = ["DEVIATIONS", "Deviation", "Difference"]


@dataclasses.dataclass(frozen=True)
class Difference:
    """One item on which the two sides disagree, with Kafka's results for the case's twins."""

    case: dict
    item: Any
    theirs: dict
    mine: dict
    twins: dict[str, list[dict]]


@dataclasses.dataclass(frozen=True)
class Deviation:
    name: str
    applies: Callable[[Difference], bool]
    #: The most cases this deviation may explain in one run of the whole oracle.
    budget: int


def _charset(case: dict) -> Callable[[bytes], str] | None:
    if case["kind"] == "from_connect" and case["plugin"] == "StringConverter":
        return java_charset(case["config"].get("converter.encoding", "UTF-8"))[1]
    return None


def _differing(d: Difference):
    """The parts that differ, or None when the results are not both successful with one shape."""
    found = parts(d.case, d.theirs, d.mine, _charset(d.case))
    return None if found is None else [p for p in found if not p.same()]


def _float32_in_play(d: Difference) -> bool:
    """Whether a FLOAT32 value can be in the output: the input's schemas have one, or a Cast
    makes one."""
    if d.case["kind"] == "from_connect":
        text = d.item
    elif d.case["kind"] == "pipeline":
        text = json.dumps(d.case["config"]) + "".join(
            base64.b64decode(d.item[k]).decode("utf-8", "replace") for k in ("key", "value") if d.item[k]
        )
    else:
        return True  # read by a converter: the envelope's schema says where the floats are
    return re.search(r'"type": ?"float"|float32', text) is not None


def java17_float_digits(d: Difference) -> bool:
    """A FLOAT32 or FLOAT64 value printed with other digits that read back to the same value:
    Java 17's Float/Double.toString sometimes print a digit more than the shortest (JDK-4511638).
    Another header of the item may differ as header-bytes-pass-through says.  In JSON with a schema only FLOAT32 fields may differ as float32 values; elsewhere a number is
    a FLOAT32 only when the input has one (or a Cast makes one)."""
    differing = _differing(d)
    if not differing:
        return False
    float32 = _float32_in_play(d)
    passed = _passed_through_headers(d)
    digits = [p for p in differing if p.name not in passed]
    for part in digits:
        if not isinstance(part.theirs, str) or not isinstance(part.mine, str):
            return False
        if part.form == "json":
            if not envelope_agrees(
                parse_json(part.theirs), parse_json(part.mine), ANYWHERE if float32 else AT_FLOAT32_FIELDS
            ):
                return False
        elif part.form != "text" or not texts_agree(part.theirs, part.mine, float32):
            return False
    return bool(digits)


def map_entry_order(d: Difference) -> bool:
    """Map text from StringConverter/SimpleHeaderConverter with the same entries in another order
    (Java's HashMap prints them in hash order), at any depth.  Another header of the item may
    differ as header-bytes-pass-through says."""
    passed = _passed_through_headers(d)
    differing = [p for p in _differing(d) or [] if p.name not in passed]
    float32 = _float32_in_play(d)
    return bool(differing) and all(
        p.form == "text"
        and isinstance(p.theirs, str)
        and isinstance(p.mine, str)
        and map_texts_agree(p.theirs, p.mine, float32)
        for p in differing
    )


_ARRAY_IDENTITY = re.compile(r"\[B@[0-9a-f]+")


def bytes_to_string(d: Difference) -> bool:
    """StringConverter writes bytes as base64, where Java's toString gives the array's identity
    ([B@1b6d3586): the texts are the same with each identity standing for base64 text."""
    differing = _differing(d)
    if not differing or d.case["plugin"] != "StringConverter":
        return False
    for part in differing:
        if part.form != "text" or not isinstance(part.theirs, str) or not isinstance(part.mine, str):
            return False
        pattern = "".join(
            "[A-Za-z0-9+/=]*" if _ARRAY_IDENTITY.fullmatch(piece) else re.escape(piece)
            for piece in re.split(f"({_ARRAY_IDENTITY.pattern})", part.theirs)
        )
        if "[B@" not in part.theirs or not re.fullmatch(pattern, part.mine):
            return False
    return True


def _schema_of(envelope: str | None) -> Any:
    return None if envelope is None else json.loads(envelope).get("schema")


def string_and_bytes_read_schemaless(d: Difference) -> bool:
    """StringConverter and ByteArrayConverter read without a schema (Kafka: optional STRING/BYTES):
    the same payload, Kafka's schema optional string/bytes and ours none.  In a pipeline, a record
    whose key or value such a converter read as null: ours is Kafka's result with JsonConverter
    (no schemas) reading that part, which gives a null without a schema too; and HoistField over
    a string: Kafka writes the struct it built, we the map."""
    if d.case["kind"] == "pipeline":
        if _struct_text_of_a_hoisted_string(d):
            return True
        twin = d.twins.get("schemaless-null")
        return (
            bool(twin)
            and any(
                d.item[part] is None
                and d.case["config"].get(f"{part}.converter", "").endswith(("StringConverter", "ByteArrayConverter"))
                for part in ("key", "value")
            )
            and outcomes_agree(d.case, twin[0], d.mine)
        )
    if d.case["kind"] != "to_connect" or d.case["plugin"] not in ("StringConverter", "ByteArrayConverter"):
        return False
    if "ok" not in d.theirs or "ok" not in d.mine:
        return False
    a, b = d.theirs["ok"], d.mine["ok"]
    if a is None or b is None:
        return b is None and a is not None and json.loads(a)["payload"] is None
    kafka_schema = _schema_of(a)
    return (
        _schema_of(b) is None
        and kafka_schema is not None
        and kafka_schema.get("optional") is True
        and kafka_schema["type"] == ("string" if d.case["plugin"] == "StringConverter" else "bytes")
        and json.loads(a)["payload"] == json.loads(b)["payload"]
    )


def _struct_text_of_a_hoisted_string(d: Difference) -> bool:
    """HoistField over a string StringConverter read: Kafka's text is the struct
    (``Struct{f=x}``, null fields left out), ours the map (``{f=x}``, ``{f=null}``); another header
    may differ as header-bytes-pass-through says."""
    config = d.case["config"]
    hoists = [a for a, kind in stages(config) if kind.startswith("HoistField")]
    passed = _passed_through_headers(d)
    differing = [p for p in _differing(d) or [] if p.name not in passed]
    if not hoists or not differing:
        return False
    for part in differing:
        if part.form != "text" or not config.get(f"{part.name}.converter", "").endswith("StringConverter"):
            return False
        if not (isinstance(part.mine, str) and part.mine.startswith("{") and part.mine.endswith("}")):
            return False
        entries = [e for e in part.mine[1:-1].split(", ") if e and not e.endswith("=null")]
        if part.theirs != "Struct{" + ",".join(entries) + "}":
            return False
    return True


def invalid_text_is_not_replaced(d: Difference) -> bool:
    """Bytes that are not valid in the charset fail (StringConverter) or stay bytes
    (SimpleHeaderConverter), where Kafka replaces them with U+FFFD; text the charset cannot
    encode fails, where Kafka writes '?'."""
    case, theirs, mine = d.case, d.theirs, d.mine
    if case["kind"] == "from_connect":  # a character the charset lacks: Java writes '?'
        return (
            case["plugin"] == "StringConverter"
            and "ok" in theirs
            and "error" in mine
            and "cannot encode" in mine["error"]["message"]
            and "?" in base64.b64decode(theirs["ok"] or "").decode("latin-1")
        )
    if case["kind"] != "to_connect" or "ok" not in theirs or "\\ufffd" not in json.dumps(theirs["ok"]):
        return False
    if case["plugin"] == "StringConverter":
        return "error" in mine and "invalid" in mine["error"]["message"]
    if case["plugin"] == "SimpleHeaderConverter":
        return "ok" in mine and _schema_of(mine["ok"]) == {"type": "bytes", "optional": False}
    return False


def schemaless_integer_width(d: Difference) -> bool:
    """Without a schema a Python int has no width: Short/IntegerConverter take any int in range,
    where Kafka refuses a Long (what a schemaless JSON number is)."""
    if not (
        "error" in d.theirs
        and "ok" in d.mine
        and d.case["kind"] == "from_connect"
        and "(was class java.lang.Long)" in d.theirs["error"]["message"]
        and d.case["plugin"] in ("ShortConverter", "IntegerConverter")
    ):
        return False
    envelope = json.loads(d.item)
    layout = ">h" if d.case["plugin"] == "ShortConverter" else ">i"
    payload = envelope["payload"]
    return envelope["schema"] is None and isinstance(payload, int) and d.mine["ok"] == _packed(layout, payload)


def _packed(layout: str, value: int) -> str | None:
    try:
        return base64.b64encode(struct.pack(layout, value)).decode()
    except struct.error:
        return None


def tombstone_pass_through(d: Difference) -> bool:
    """A null key or value passes MaskField and HeaderFrom unchanged (Kafka fails on it): ours is
    Kafka's outcome for the chain without that stage (or without all of them)."""
    if not ("error" in d.theirs and "found: null" in d.theirs["error"]["message"]):
        return False
    return any(
        outcomes_agree(d.case, twin[0], d.mine)
        for name, twin in d.twins.items()
        if name.startswith("without:") and twin
    )


def set_schema_metadata_on_primitives(d: Difference) -> bool:
    """SetSchemaMetadata renames and versions any schema; Kafka 4.1 fails on non-struct ones: ours
    is written with a primitive schema carrying the configured name and version."""
    if not (
        "error" in d.theirs
        and "ok" in d.mine
        and d.theirs["error"]["message"] == "Cannot list fields on non-struct type"
    ):
        return False
    config = d.case["config"]
    for alias, kind in stages(config):
        if not kind.startswith("SetSchemaMetadata"):
            continue
        part = "key" if kind.endswith("$Key") else "value"
        data = d.mine["ok"][part]
        schema = _schema_of(base64.b64decode(data)) if data and _form_of(config, part) == "json" else None
        wanted = {
            "name": config.get(f"transforms.{alias}.schema.name"),
            "version": config.get(f"transforms.{alias}.schema.version"),
        }
        if (
            isinstance(schema, dict)
            and schema.get("type") not in ("struct", None)
            and all(v is None or str(schema.get(k)) == v for k, v in wanted.items())
        ):
            return True
    return False


def _form_of(config: dict, part: str) -> str:
    return "json" if config.get(f"{part}.converter", "").endswith("JsonConverter") else "other"


def header_bytes_pass_through(d: Difference) -> bool:
    """A header value that is bytes is written as it is, where Kafka's SimpleHeaderConverter writes
    base64 or re-parses text (``1.50`` becomes ``1.5``): key and value agree, and each differing
    header is Kafka's base64 of our bytes, or a header read from the record that we wrote back
    unchanged where Kafka wrote what it writes for that header with no transform at all."""
    differing = _differing(d)
    return (
        bool(differing) and d.case["kind"] == "pipeline" and _passed_through_headers(d) >= {p.name for p in differing}
    )


def _passed_through_headers(d: Difference) -> set[str]:
    """The names of the differing header parts that header-bytes-pass-through explains (an item
    may have those beside differences other deviations explain)."""
    if d.case["kind"] != "pipeline" or "ok" not in d.theirs or "ok" not in d.mine:
        return set()
    untouched = d.twins.get("no-transforms", [{}])[0].get("ok", {}).get("headers", [])
    kafka_alone, read = _by_occurrence(untouched), _by_occurrence(d.item["headers"])
    theirs, mine = d.theirs["ok"]["headers"], d.mine["ok"]["headers"]
    explained = set()
    for key, (name, x), (_, y) in zip(_occurrences(theirs), theirs, mine):
        if x != y and x is not None and y is not None:
            as_base64 = base64.b64decode(x) == base64.b64encode(base64.b64decode(y))
            if as_base64 or (key in read and read[key] == y and kafka_alone.get(key) == x):
                explained.add(f"header {name}")
    return explained


def _occurrences(headers: list) -> list[tuple[str, int]]:
    """(name, how many headers of that name came before) for each header."""
    seen: dict[str, int] = {}
    keys = []
    for name, _ in headers:
        keys.append((name, seen.get(name, 0)))
        seen[name] = seen.get(name, 0) + 1
    return keys


def _by_occurrence(headers: list) -> dict[tuple[str, int], str | None]:
    return dict(zip(_occurrences(headers), (value for _, value in headers)))


def rename_collisions(d: Difference) -> bool:
    """Two fields renamed to one name, or onto a field that stays: Kafka keeps whichever its
    HashMap visits last (and with a schema reads a value from the wrong field); ours is Kafka's
    output for the record with all but one field of each colliding group removed."""
    return "ok" in d.mine and any(outcomes_agree(d.case, theirs, d.mine) for theirs in d.twins.get(WINNERS, []))


def deprecated_replace_field_names(d: Difference) -> bool:
    """ReplaceField's blacklist/whitelist keep their Kafka 3.x meaning: ours is Kafka's output
    with them named exclude/include, and Kafka's is its output without them (it ignores them)."""
    aliases = [a for a, kind in stages(d.case.get("config", {})) if kind.startswith("ReplaceField")]
    return any(
        deprecated_names(d.case["config"], alias)
        and outcomes_agree(d.case, d.twins[f"canonical:{alias}"][0], d.mine)
        and outcomes_agree(d.case, d.twins[f"ignored:{alias}"][0], d.theirs)
        for alias in aliases
    )


def schemaless_negative_zero(d: Difference) -> bool:
    """A schemaless JSON -0.0 stays -0.0; Kafka reads numbers as BigDecimal and gets 0.0.  The
    oracle hands converters their input as schemaless envelopes, so Float/DoubleConverter write it."""
    case, theirs, mine = d.case, d.theirs, d.mine
    if case["kind"] == "from_connect" and case["plugin"] in ("FloatConverter", "DoubleConverter"):
        layout = ">f" if case["plugin"] == "FloatConverter" else ">d"
        return (
            "ok" in theirs
            and "ok" in mine
            and None not in (theirs["ok"], mine["ok"])
            and json.loads(d.item) == {"schema": None, "payload": -0.0}
            and [base64.b64decode(x) for x in (theirs["ok"], mine["ok"])]
            == [struct.pack(layout, 0.0), struct.pack(layout, -0.0)]
        )
    differing = _differing(d)
    return bool(differing) and all(
        isinstance(p.theirs, str)
        and isinstance(p.mine, str)
        and "-0.0" in p.mine
        and _same_text_or_document(p.theirs, p.mine.replace("-0.0", "0.0"))
        for p in differing
    )


def _same_text_or_document(a: str, b: str) -> bool:
    return a == b or (parse_json(a) is not NOT_JSON and envelope_agrees(parse_json(a), parse_json(b)))


_MILLIS_RANGE = (-62_135_596_800_000, 253_402_300_799_999)
_LOGICAL = {"org.apache.kafka.connect.data.Timestamp": 1, "org.apache.kafka.connect.data.Date": 86_400_000}


def _times_out_of_range(document: Any, schema: Any) -> list[tuple[str, int]]:
    """(``Timestamp``/``Date``, Kafka's number) for each out-of-range logical value in a payload."""
    if isinstance(schema, dict) and schema.get("name") in _LOGICAL and isinstance(document, int):
        millis = document * _LOGICAL[schema["name"]]
        if not _MILLIS_RANGE[0] <= millis <= _MILLIS_RANGE[1]:
            return [(schema["name"].rsplit(".", 1)[-1], document)]
    found = []
    if isinstance(schema, dict) and schema.get("type") == "struct" and isinstance(document, dict):
        for field in schema.get("fields", []):
            found += _times_out_of_range(document.get(field["field"]), field)
    return found


_YEAR = re.compile(r"^(\d{5,})-")
_NAMED = re.compile(r"(Timestamp|Date) (-?\d+) ")


_UNIT_MILLIS = {"seconds": (1000, 1), "milliseconds": (1, 1), "microseconds": (1, 1000), "nanoseconds": (1, 10**6)}


def _names_the_unix_input(d: Difference, message: str) -> bool:
    """The TimestampConverter stage's unix input, in milliseconds as Kafka's TimeUnit converts it
    (truncating toward zero), is the Timestamp our message names (or its day, for a Date)."""
    config = d.case["config"]
    for alias, kind in stages(config):
        if not kind.startswith("TimestampConverter"):
            continue
        prefix = f"transforms.{alias}."
        part = "key" if kind.endswith("$Key") else "value"
        data = d.item[part]
        converter = config.get(f"{part}.converter", "")
        if data and converter.endswith(("LongConverter", "IntegerConverter", "ShortConverter")):
            document = int.from_bytes(base64.b64decode(data), "big", signed=True)
        else:
            document = parse_json(base64.b64decode(data)) if data else NOT_JSON
        field = config.get(prefix + "field", "")
        value = document.get(field) if field and isinstance(document, dict) else document
        if not isinstance(value, int) or isinstance(value, bool):
            continue
        multiply, divide = _UNIT_MILLIS[config.get(prefix + "unix.precision", "milliseconds")]
        scaled_up = value * multiply
        millis = abs(scaled_up) // divide * (1 if scaled_up >= 0 else -1)
        named = _NAMED.search(message)
        number = int(named.group(2))
        if number == (millis if named.group(1) == "Timestamp" else millis // 86_400_000):
            return True
    return False


def _named_out_of_range(message: str) -> bool:
    """Our message names a Timestamp (milliseconds) or Date (days) outside the years 1-9999."""
    found = _NAMED.search(message)
    if not found:
        return False
    millis = int(found.group(2)) * (1 if found.group(1) == "Timestamp" else 86_400_000)
    return not _MILLIS_RANGE[0] <= millis <= _MILLIS_RANGE[1]


def dates_beyond_year_9999(d: Difference) -> bool:
    """A Date or Timestamp beyond the years 1-9999 is a dead letter here naming the number Kafka
    holds in a java.util.Date: Kafka's output has that Date/Timestamp (or its text, year > 9999);
    or Kafka failed at a converter that cannot write a Date at all (JSON without schemas, the
    number converters), and ours names the unix input's milliseconds (or their day)."""
    if not ("error" in d.mine and d.mine["error"]["message"].endswith(OUT_OF_RANGE)) or d.case["kind"] != "pipeline":
        return False
    message = d.mine["error"]["message"]
    if "error" in d.theirs:
        # A converter that cannot write a java.util.Date at all (JSON without schemas, the number
        # converters) fails the record in Kafka; here it fails one stage earlier, on a number
        # outside the years 1-9999.
        return (
            d.theirs["error"].get("stage") in ("KEY_CONVERTER", "VALUE_CONVERTER")
            and "java.util.Date" in d.theirs["error"]["message"]
            and d.mine["error"].get("stage") == "TRANSFORMATION"
            and _named_out_of_range(message)
            and _names_the_unix_input(d, message)
        )
    if "ok" not in d.theirs:
        return False
    for part in ("key", "value"):
        data = d.theirs["ok"][part]
        document = parse_json(base64.b64decode(data)) if data else NOT_JSON
        if isinstance(document, dict) and document.keys() == {"schema", "payload"}:
            for kind, number in _times_out_of_range(document["payload"], document["schema"]):
                if f"{kind} {number} " in message:
                    return True
            texts = [document["payload"]] + (
                list(document["payload"].values()) if isinstance(document["payload"], dict) else []
            )
            millis = re.search(r"Timestamp (-?\d+) ", message)
            for text in texts:
                year = _YEAR.match(text) if isinstance(text, str) else None
                if year and millis and abs(int(millis.group(1)) / 31_556_952_000 + 1970 - int(year.group(1))) <= 1:
                    return True
    return False


def worker_time_zone(d: Difference) -> bool:
    """Dates in text are written as Kafka writes them in a UTC worker; Kafka in another zone
    writes them in that zone (java.util.Date.toString in StringConverter, Values' formats in
    SimpleHeaderConverter) or fails to read a date: ours agrees with the oracle's UTC JVM, and
    the same case in a JVM at +05:30 gives another outcome."""
    zoned = d.twins.get("zoned")
    return bool(zoned) and outcomes_agree(d.case, d.theirs, d.mine) and not outcomes_agree(d.case, zoned[0], d.theirs)


DEVIATIONS: list[Deviation] = [
    Deviation("schemaless-negative-zero", schemaless_negative_zero, budget=4),
    Deviation("deprecated-replace-field-names", deprecated_replace_field_names, budget=3),
    Deviation("rename-collisions", rename_collisions, budget=7),
    Deviation("header-bytes-pass-through", header_bytes_pass_through, budget=108),
    Deviation("tombstone-pass-through", tombstone_pass_through, budget=117),
    Deviation("set-schema-metadata-on-primitives", set_schema_metadata_on_primitives, budget=18),
    Deviation("dates-beyond-year-9999", dates_beyond_year_9999, budget=33),
    Deviation("java17-float-digits", java17_float_digits, budget=224),
    Deviation("schemaless-integer-width", schemaless_integer_width, budget=42),
    Deviation("map-entry-order", map_entry_order, budget=31),
    Deviation("worker-time-zone", worker_time_zone, budget=156),
    Deviation("bytes-to-string", bytes_to_string, budget=10),
    Deviation("string-and-bytes-read-schemaless", string_and_bytes_read_schemaless, budget=640),
    Deviation("invalid-text-is-not-replaced", invalid_text_is_not_replaced, budget=97),
]
