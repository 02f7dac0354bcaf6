"""Precise equivalences the deviations are stated in: float digits, map entry order, outputs by part.

Each function answers one narrow question about two outputs (Kafka's first,
ours second) and is strict everywhere else: a number is excused only where
it is a FLOAT32/FLOAT64 value whose two texts read back to the same float, a
map only where its entries are the same multiset.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any, Callable

from smt.data.float32 import format_float, to_float32

__all__ = [
    "Part",
    "float_texts_agree",
    "json_agrees",
    "map_texts_agree",
    "outcomes_agree",
    "parts",
    "parse_json",
    "texts_agree",
]

NOT_JSON = object()


class _Float(float):
    """A JSON number with a fraction or exponent, remembering its text (Jackson's or orjson's)."""

    text: str

    def __new__(cls, text: str) -> "_Float":
        number = super().__new__(cls, text)
        number.text = text
        return number


def parse_json(text: str | bytes | None) -> Any:
    """The document ``text`` holds (floats keep their text), or :data:`NOT_JSON`."""
    if text is None:
        return NOT_JSON
    try:
        return json.loads(text, parse_float=_Float)
    except (ValueError, TypeError):
        return NOT_JSON


# --- float digits ----------------------------------------------------------------------------

_DIGITS = re.compile(r"[eE].*$")


def _significant_digits(text: str) -> str:
    mantissa = _DIGITS.sub("", text.lstrip("+-")).replace(".", "")
    return mantissa.lstrip("0").rstrip("0") or "0"


def _is_float_text(text: str) -> bool:
    return any(c in text for c in ".eE") and not text.lstrip("-").startswith(("N", "I"))


def float_texts_agree(theirs: str, mine: str, float32: bool) -> bool:
    """Two texts of one FLOAT64 (``float32`` False) or FLOAT32 value that read back to it alike.

    A double: both texts read as the same double (Java 17 sometimes prints a digit more; the value
    is the same).  A float32: ours is the shortest text of the float32 value, and Kafka's is that
    value's exact binary value rounded to more significant digits, 9 at most (Java 17's
    Float.toString, JDK-4511638).  Integers never agree here: their texts are exact.
    """
    if theirs == mine or not (_is_float_text(theirs) and _is_float_text(mine)):
        return theirs == mine
    a, b = float(theirs), float(mine)
    if a == b:
        return True
    if not float32:
        return False
    value = to_float32(b)
    digits = len(_significant_digits(theirs))
    return (
        _significant_digits(format_float(value)) == _significant_digits(mine)
        and len(_significant_digits(mine)) < digits <= 9
        and float(f"{value:.{digits - 1}e}") == a
    )


_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def texts_agree(theirs: str, mine: str, float32: bool = True) -> bool:
    """Texts that are the same but for numbers printed as :func:`float_texts_agree` allows."""
    if theirs == mine:
        return True
    their_numbers, my_numbers = _NUMBER.findall(theirs), _NUMBER.findall(mine)
    return (
        _NUMBER.split(theirs) == _NUMBER.split(mine)
        and len(their_numbers) == len(my_numbers)
        and all(float_texts_agree(a, b, float32) for a, b in zip(their_numbers, my_numbers))
    )


# --- JSON documents --------------------------------------------------------------------------


NEVER, AT_FLOAT32_FIELDS, ANYWHERE = "never", "at FLOAT32 fields", "anywhere"


def json_agrees(theirs: Any, mine: Any, schema: Any = None, float32: str = NEVER) -> bool:
    """The same document, numbers compared as values; FLOAT32 digits as :func:`float_texts_agree`
    allows them where ``float32`` says: never, at the FLOAT32 positions of ``schema`` (an
    envelope's schema), or also at any float position no schema covers."""
    if theirs is None or mine is None:
        return theirs is None and mine is None
    inner = AT_FLOAT32_FIELDS if float32 != NEVER else NEVER
    kind = schema.get("type") if isinstance(schema, dict) else None
    if kind == "struct":
        fields = {f["field"]: f for f in schema.get("fields", [])}
        return _dicts_agree(theirs, mine, lambda k, a, b: json_agrees(a, b, fields.get(k), inner))
    if kind == "array":
        return _lists_agree(theirs, mine, lambda a, b: json_agrees(a, b, schema.get("items"), inner))
    if kind == "map":
        if isinstance(theirs, dict):
            return _dicts_agree(theirs, mine, lambda k, a, b: json_agrees(a, b, schema.get("values"), inner))
        return _lists_agree(
            theirs,
            mine,
            lambda a, b: (
                _lists_agree(a, b, lambda x, y: True)
                and len(a) == 2
                and json_agrees(a[0], b[0], schema.get("keys"), inner)
                and json_agrees(a[1], b[1], schema.get("values"), inner)
            ),
        )
    if schema is None and isinstance(theirs, dict):
        return _dicts_agree(theirs, mine, lambda k, a, b: json_agrees(a, b, None, float32))
    if schema is None and isinstance(theirs, list):
        return _lists_agree(theirs, mine, lambda a, b: json_agrees(a, b, None, float32))
    if isinstance(theirs, _Float) or isinstance(mine, _Float):
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (theirs, mine)):
            return False
        if float32 != NEVER and isinstance(theirs, _Float) and isinstance(mine, _Float):
            return float_texts_agree(
                theirs.text, mine.text, kind == "float" or (schema is None and float32 == ANYWHERE)
            )
        return float(theirs) == float(mine)
    return type(theirs) is type(mine) and theirs == mine


def _dicts_agree(theirs: Any, mine: Any, agree: Callable[[str, Any, Any], bool]) -> bool:
    return (
        isinstance(theirs, dict)
        and isinstance(mine, dict)
        and theirs.keys() == mine.keys()
        and all(agree(k, theirs[k], mine[k]) for k in theirs)
    )


def _lists_agree(theirs: Any, mine: Any, agree: Callable[[Any, Any], bool]) -> bool:
    return (
        isinstance(theirs, list)
        and isinstance(mine, list)
        and len(theirs) == len(mine)
        and all(agree(a, b) for a, b in zip(theirs, mine))
    )


def envelope_agrees(theirs: Any, mine: Any, float32: str = NEVER) -> bool:
    """Two JsonConverter outputs (envelopes or bare payloads): the same schema, and payloads that
    agree under it (see :func:`json_agrees`)."""
    if theirs is NOT_JSON or mine is NOT_JSON:
        return False  # text that is not JSON agrees only when it is the same text (Part.same)
    if isinstance(theirs, dict) and theirs.keys() == {"schema", "payload"}:
        return (
            isinstance(mine, dict)
            and mine.keys() == theirs.keys()
            and json_agrees(theirs["schema"], mine["schema"])
            and json_agrees(theirs["payload"], mine["payload"], theirs["schema"], float32)
        )
    return json_agrees(theirs, mine, None, float32)


# --- map text --------------------------------------------------------------------------------


def _top_level(inner: str) -> list[str]:
    """``inner`` split at its top-level commas (outside brackets and double quotes)."""
    pieces, depth, quoted, start = [], 0, False, 0
    for i, c in enumerate(inner):
        if c == '"':
            quoted = not quoted
        elif not quoted and c in "{[":
            depth += 1
        elif not quoted and c in "}]":
            depth -= 1
        elif not quoted and depth == 0 and c == ",":
            pieces.append(inner[start:i])
            start = i + 1
    pieces.append(inner[start:])
    return [p[1:] if p.startswith(" ") else p for p in pieces]


def _canonical(text: str) -> str:
    """``text`` with the entries of every map in it sorted: Java's ``{k=v, k=v}`` and Kafka
    Values' ``{"k":v,"k":v}`` alike."""
    if len(text) < 2 or text[-1] not in "}]":
        return text
    opening = "{" if text[-1] == "}" else "["
    depth, quoted, start = 0, False, -1
    for i, c in enumerate(text):
        if c == '"':
            quoted = not quoted
        elif not quoted and c in "{[":
            if depth == 0:
                start = i
            depth += 1
        elif not quoted and c in "}]":
            depth -= 1
    if start < 0 or text[start] != opening or depth != 0:
        return text
    pieces = [_canonical(p) for p in _top_level(text[start + 1 : -1])] if start + 1 < len(text) - 1 else []
    if opening == "{":
        pieces.sort()
    return text[:start] + opening + "\x00".join(pieces) + text[-1]


def map_texts_agree(theirs: str, mine: str, float32: bool) -> bool:
    """Map text (StringConverter's ``toString``, SimpleHeaderConverter's) with the same entries,
    compared as multisets at every depth, numbers as :func:`texts_agree` allows."""
    return "{" in theirs and texts_agree(_canonical(theirs), _canonical(mine), float32)


# --- outputs by part -------------------------------------------------------------------------


class Part:
    """One output of a result, in both versions: a key, value or header of a pipeline record, or a
    converter's output.  ``form`` is ``json`` (a JsonConverter's), ``text`` (StringConverter's or
    SimpleHeaderConverter's) or ``bytes``."""

    def __init__(self, name: str, form: str, theirs: Any, mine: Any) -> None:
        self.name, self.form, self.theirs, self.mine = name, form, theirs, mine

    def same(self) -> bool:
        if self.theirs == self.mine:
            return True
        if self.form != "json" or self.theirs is None or self.mine is None:
            return False
        return envelope_agrees(parse_json(self.theirs), parse_json(self.mine))

    def __repr__(self) -> str:
        return f"Part({self.name}, {self.form}, {self.theirs!r}, {self.mine!r})"


def _form(converter: str | None) -> str:
    name = (converter or "").rsplit(".", 1)[-1]
    if name.lower() in ("jsonconverter", "json"):
        return "json"
    if name.lower() in ("stringconverter", "simpleheaderconverter", "string", "simple"):
        return "text"
    return "bytes"


def _decode(data: str | None, form: str, charset: Callable[[bytes], str] | None = None) -> Any:
    if data is None:
        return None
    raw = base64.b64decode(data)
    if form == "bytes":
        return raw
    try:
        return (charset or bytes.decode)(raw)
    except UnicodeDecodeError:
        return raw


def parts(case: dict, theirs: dict, mine: dict, charset: Callable[[bytes], str] | None = None) -> list[Part] | None:
    """The parts of two successful results, or None when either failed or their shapes differ
    (another topic, partition, timestamp, header names or count)."""
    if "ok" not in theirs or "ok" not in mine:
        return None
    a, b = theirs["ok"], mine["ok"]
    if case["kind"] == "to_connect":
        return [Part("item", "json", a, b)]
    if case["kind"] == "from_connect":
        form = _form(case["converter"])
        return [Part("item", form, _decode(a, form, charset), _decode(b, form, charset))]
    if any(a[k] != b[k] for k in ("topic", "partition", "timestamp")):
        return None
    if [h[0] for h in a["headers"]] != [h[0] for h in b["headers"]]:
        return None
    config = case["config"]
    found = []
    for name in ("key", "value"):
        form = _form(config.get(f"{name}.converter", "ByteArrayConverter"))
        found.append(Part(name, form, _decode(a[name], form), _decode(b[name], form)))
    header_form = _form(config.get("header.converter", "SimpleHeaderConverter"))
    for (header, x), (_, y) in zip(a["headers"], b["headers"]):
        found.append(Part(f"header {header}", header_form, _decode(x, header_form), _decode(y, header_form)))
    return found


# --- outcomes --------------------------------------------------------------------------------


def outcomes_agree(case: dict, theirs: dict, mine: dict) -> bool:
    """The same outcome: written with the same output, dropped, failed at the same stage, or a
    configuration both refused.  JSON is compared as the document it is."""
    if set(theirs) != set(mine):
        return False
    if "error" in theirs:
        return theirs["error"].get("stage") == mine["error"].get("stage")
    if "ok" not in theirs:
        return True  # dropped, or a configuration refused by both
    if case["kind"] == "to_connect":
        return Part("item", "json", theirs["ok"], mine["ok"]).same()
    found = parts(case, theirs, mine)
    return found is not None and all(p.same() for p in found)
