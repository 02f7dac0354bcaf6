"""Debezium's ``schema.name.adjustment.mode``: schema names made valid Avro full names.

``avro`` replaces each character Avro does not allow with ``_`` (a leading digit is kept after
the ``_``); ``avro_unicode`` replaces it with ``_u`` and its UTF-16 code unit in hex (at least
four digits when it fits in two), and there ``_`` itself counts as invalid. ``none`` leaves names
alone. Characters are judged per UTF-16 code unit, as Java does.
"""

from __future__ import annotations

from typing import Callable

MODES = ("none", "avro", "avro_unicode")


def _letter(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z")


def _digit(c: str) -> bool:
    return "0" <= c <= "9"


def _utf16_units(name: str) -> list[str]:
    units = []
    for char in name:
        code = ord(char)
        if code > 0xFFFF:  # a surrogate pair, as Java's String.charAt sees it
            code -= 0x10000
            units += [chr(0xD800 + (code >> 10)), chr(0xDC00 + (code & 0x3FF))]
        else:
            units.append(char)
    return units


def _avro(name: str) -> str:
    out = []
    for index, c in enumerate(_utf16_units(name)):
        valid = _letter(c) or c == "_" or (index > 0 and (c == "." or _digit(c)))
        if valid:
            out.append(c)
        else:
            out.append("_" + c if index == 0 and _digit(c) else "_")
    return "".join(out)


def _avro_unicode(name: str) -> str:
    out = []
    for index, c in enumerate(_utf16_units(name)):
        valid = _letter(c) or (index > 0 and (c == "." or _digit(c)))
        if valid:
            out.append(c)
        else:
            digits = format(ord(c), "x")
            out.append("_u" + ("00" + digits if len(digits) <= 2 else digits))
    return "".join(out)


def schema_name_adjuster(mode: str) -> Callable[[str], str]:
    """The adjuster for ``mode`` (one of :data:`MODES`, any case, surrounding blanks ignored)."""
    mode = mode.strip().lower()
    if mode == "avro":
        return _avro
    if mode == "avro_unicode":
        return _avro_unicode
    return _unchanged


def _unchanged(name: str) -> str:
    return name
