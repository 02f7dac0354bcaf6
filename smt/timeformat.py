"""Java ``SimpleDateFormat`` patterns, formatted and parsed faithfully in UTC.

Kafka Connect's TimestampConverter and TimestampRouter take a
``SimpleDateFormat`` pattern and run it in UTC with the default (English)
locale.  Translating such a pattern to ``strftime`` only approximates it
(``SSS`` has no equivalent, ``yy`` and ``y`` differ, quoting differs), so the
pattern is compiled here, once, into a list of field printers and a parsing
regular expression that follow Java's rules:

* letters ``a-zA-Z`` are pattern fields, text in single quotes is literal,
  ``''`` is a quote, any other character is literal; an unknown letter is an
  error (``Illegal pattern character 'b'``), as in Java;
* numbers are zero-padded to the field's width, ``yy`` is the two-digit year,
  text fields (``MMM``, ``EEEE``, ``a``, ``z``) use English names;
* parsing is lenient like Java's default: adjacent numeric fields take exactly
  their width, a lone numeric field takes all its digits, out-of-range values
  roll over (month 13 is January next year), text after the pattern is ignored.

Dates before the Gregorian cutover (1582) use the proleptic Gregorian
calendar, where Java would switch to the Julian one.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Callable

from smt.data.logical import EPOCH, MILLIS_PER_DAY, OUT_OF_RANGE

__all__ = ["DateFormat", "DateFormatError", "compile_pattern"]

_NAIVE_EPOCH = EPOCH.replace(tzinfo=None)  # the printers read a naive UTC moment
_MONTHS = ("January February March April May June July August September October November December").split()
_DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
_PATTERN_LETTERS = "GyYMLwWDdFEuaHkKhmsSzZX"
# How long a field's printed value stays the same; used to memoise formatting.
_DAY_FIELDS = set("GyYMLwWDdFEu")
_GRANULARITY = {
    "a": 3_600_000,
    "H": 3_600_000,
    "k": 3_600_000,
    "K": 3_600_000,
    "h": 3_600_000,
    "m": 60_000,
    "s": 1_000,
    "S": 1,
}
_NUMERIC = set("yYwWDdFuHkKhmsS") | {"M", "L"}
_MEMO_LIMIT = 4096


class DateFormatError(ValueError):
    """A pattern is invalid, or a text does not match its pattern."""


def compile_pattern(pattern: str) -> "DateFormat":
    """Compile a ``SimpleDateFormat`` pattern; raises :class:`DateFormatError` if invalid."""
    return DateFormat(pattern)


class DateFormat:
    """One compiled pattern: :meth:`format` epoch millis, :meth:`parse` text to millis."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._tokens = _tokenize(pattern)
        self._printers = [_printer(token) for token in self._tokens]
        self._granularity = _granularity(self._tokens)
        self._memo: dict[int, str] = {}
        self._parser: tuple[re.Pattern, list] | None = None

    @property
    def granularity(self) -> int:
        """Milliseconds over which the printed text stays the same (a day for ``yyyyMMdd``)."""
        return self._granularity

    def __reduce__(self):  # compiled state is rebuilt on executors
        return (DateFormat, (self.pattern,))

    # --- formatting ---------------------------------------------------------

    def format(self, millis: int) -> str:
        """The text of epoch milliseconds ``millis`` (UTC); raises DateFormatError beyond the years 1-9999."""
        bucket = millis // self._granularity
        text = self._memo.get(bucket)
        if text is None:
            text = self._format(millis)
            if len(self._memo) >= _MEMO_LIMIT:
                self._memo.clear()
            self._memo[bucket] = text
        return text

    def _format(self, millis: int) -> str:
        try:
            moment = _NAIVE_EPOCH + _dt.timedelta(milliseconds=millis)
        except OverflowError:
            raise DateFormatError(f"Timestamp {millis} (milliseconds since 1970) {OUT_OF_RANGE}") from None
        return "".join(printer(moment) for printer in self._printers)

    # --- parsing ------------------------------------------------------------

    def parse(self, text: str) -> int:
        """Epoch milliseconds of ``text``; raises :class:`DateFormatError` when it does not match."""
        if self._parser is None:
            self._parser = _build_parser(self._tokens)
        regex, fields = self._parser
        match = regex.match(text)
        if match is None:
            raise DateFormatError(f'Unparseable date: "{text}"')
        values: dict[str, object] = {}
        for (letter, count), raw in zip(fields, match.groups()):
            values[letter] = _parse_field(letter, count, raw)
        return _to_millis(values)


# --- tokens -----------------------------------------------------------------


def _tokenize(pattern: str) -> list[tuple[str, int] | str]:
    """Fields as ``(letter, count)``, literals as strings."""
    tokens: list[tuple[str, int] | str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "'":
            if i + 1 < n and pattern[i + 1] == "'":
                tokens.append("'")
                i += 2
                continue
            end = i + 1
            literal = []
            while True:
                if end >= n:
                    raise DateFormatError(f"Unterminated quote in pattern '{pattern}'")
                if pattern[end] == "'":
                    if end + 1 < n and pattern[end + 1] == "'":
                        literal.append("'")
                        end += 2
                        continue
                    break
                literal.append(pattern[end])
                end += 1
            tokens.append("".join(literal))
            i = end + 1
        elif ("a" <= char <= "z") or ("A" <= char <= "Z"):
            if char not in _PATTERN_LETTERS:
                raise DateFormatError(f"Illegal pattern character '{char}'")
            end = i
            while end < n and pattern[end] == char:
                end += 1
            tokens.append((char, end - i))
            i = end
        else:
            tokens.append(char)
            i += 1
    return tokens


def _granularity(tokens: list) -> int:
    granularity = MILLIS_PER_DAY
    for token in tokens:
        if isinstance(token, tuple) and token[0] not in _DAY_FIELDS:
            granularity = min(granularity, _GRANULARITY.get(token[0], MILLIS_PER_DAY))
    return granularity


# --- printers ---------------------------------------------------------------


def _number(value: int, count: int) -> str:
    return str(value).zfill(count) if value >= 0 else "-" + str(-value).zfill(count)


def _week_of_year(moment: _dt.datetime) -> tuple[int, int]:
    """(week year, week) under the US rules Java's default locale uses: Sunday first, 1 day minimum."""
    jan1 = moment.replace(month=1, day=1)
    offset = (jan1.weekday() + 1) % 7  # days since the Sunday starting week 1
    week = (moment.timetuple().tm_yday - 1 + offset) // 7 + 1
    next_jan1 = jan1.replace(year=moment.year + 1) if moment.year < 9999 else None
    if next_jan1 is not None and week > 1:
        start_of_next = next_jan1 - _dt.timedelta(days=(next_jan1.weekday() + 1) % 7)
        if moment.replace(hour=0, minute=0, second=0, microsecond=0) >= start_of_next:
            return moment.year + 1, 1
    return moment.year, week


def _printer(token: tuple[str, int] | str) -> Callable[[_dt.datetime], str]:
    if isinstance(token, str):
        return lambda moment, text=token: text
    letter, count = token
    if letter == "G":
        return lambda m: "AD"
    if letter == "y":
        if count == 2:
            return lambda m: _number(m.year % 100, 2)
        return lambda m: _number(m.year, count)
    if letter == "Y":
        if count == 2:
            return lambda m: _number(_week_of_year(m)[0] % 100, 2)
        return lambda m: _number(_week_of_year(m)[0], count)
    if letter in "ML":
        if count >= 4:
            return lambda m: _MONTHS[m.month - 1]
        if count == 3:
            return lambda m: _MONTHS[m.month - 1][:3]
        return lambda m: _number(m.month, count)
    if letter == "E":
        if count >= 4:
            return lambda m: _DAYS[m.weekday()]
        return lambda m: _DAYS[m.weekday()][:3]
    if letter == "a":
        return lambda m: "AM" if m.hour < 12 else "PM"
    if letter == "z":
        return (lambda m: "Coordinated Universal Time") if count >= 4 else (lambda m: "UTC")
    if letter == "Z":
        return lambda m: "+0000"
    if letter == "X":
        return lambda m: "Z"
    numbers: dict[str, Callable[[_dt.datetime], int]] = {
        "w": lambda m: _week_of_year(m)[1],
        "W": lambda m: (m.day - 1 + (m.replace(day=1).weekday() + 1) % 7) // 7 + 1,
        "D": lambda m: m.timetuple().tm_yday,
        "d": lambda m: m.day,
        "F": lambda m: (m.day - 1) // 7 + 1,
        "u": lambda m: m.isoweekday(),
        "H": lambda m: m.hour,
        "k": lambda m: m.hour or 24,
        "K": lambda m: m.hour % 12,
        "h": lambda m: (m.hour % 12) or 12,
        "m": lambda m: m.minute,
        "s": lambda m: m.second,
        "S": lambda m: m.microsecond // 1000,
    }
    get = numbers[letter]
    return lambda m: _number(get(m), count)


# --- parsing ----------------------------------------------------------------

_TEXT_CHOICES = {
    "G": ["AD", "BC"],
    "a": ["AM", "PM"],
}
_ZONE_REGEX = r"(?:GMT|UTC|UT)(?:[+-]\d{1,2}(?::?\d{2})?)?|[+-]\d{2}:?\d{2}|[+-]\d{2}|Z|Coordinated Universal Time"


def _build_parser(tokens: list) -> tuple[re.Pattern, list]:
    parts: list[str] = []
    fields: list[tuple[str, int]] = []
    for index, token in enumerate(tokens):
        if isinstance(token, str):
            parts.append(re.escape(token))
            continue
        letter, count = token
        fields.append(token)
        if letter in "ML" and count >= 3 or letter == "E":
            names = _MONTHS if letter in "ML" else _DAYS
            choices = sorted(set(names) | {n[:3] for n in names}, key=len, reverse=True)
            parts.append("(" + "|".join(choices) + ")")
        elif letter in _TEXT_CHOICES:
            parts.append("(" + "|".join(_TEXT_CHOICES[letter]) + ")")
        elif letter in "zZX":
            parts.append("(" + _ZONE_REGEX + ")")
        else:
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            abutting = isinstance(following, tuple) and _is_numeric(following)
            parts.append(rf"(\d{{{count}}})" if abutting else r"([+-]?\d+)")
    return re.compile("".join(parts), re.IGNORECASE), fields


def _is_numeric(token: tuple[str, int]) -> bool:
    letter, count = token
    return letter in _NUMERIC and not (letter in "ML" and count >= 3)


def _parse_field(letter: str, count: int, raw: str) -> object:
    if letter in "ML" and count >= 3:
        return _index_of(raw, _MONTHS) + 1
    if letter == "E":
        return _index_of(raw, _DAYS)
    if letter in "Ga":
        return raw.upper()
    if letter in "zZX":
        return _zone_offset_minutes(raw)
    value = int(raw)
    if letter in "yY" and count <= 2 and len(raw.lstrip("+-")) == 2:
        return ("two-digit", value)
    return value


def _index_of(raw: str, names: list[str]) -> int:
    lowered = raw.lower()
    for index, name in enumerate(names):
        if lowered in (name.lower(), name[:3].lower()):
            return index
    raise DateFormatError(f"unknown name '{raw}'")


def _zone_offset_minutes(raw: str) -> int:
    text = raw.upper()
    for prefix in ("GMT", "UTC", "UT"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    if text in ("", "Z", "COORDINATED UNIVERSAL TIME"):
        return 0
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    if len(digits) <= 2:
        hours, minutes = int(digits), 0
    else:
        hours, minutes = int(digits[:-2]), int(digits[-2:])
    return sign * (hours * 60 + minutes)


def _resolve_two_digit_year(value: int) -> int:
    """Java puts a two-digit year within 80 years before and 20 after now."""
    now = _dt.datetime.now(_dt.timezone.utc)
    start = now.year - 80
    year = (start // 100) * 100 + value
    if year < start:
        year += 100
    return year


def _to_millis(values: dict[str, object]) -> int:
    year = values.get("y", values.get("Y", 1970))
    if isinstance(year, tuple):
        year = _resolve_two_digit_year(year[1])
    month = values.get("M", values.get("L"))
    day = values.get("d")
    if month is None and day is None and "D" in values:
        days = _days_from_civil(year, 1, 1) + values["D"] - 1
    else:
        month = 1 if month is None else month
        year += (month - 1) // 12
        month = (month - 1) % 12 + 1
        days = _days_from_civil(year, month, 1) + (1 if day is None else day) - 1
    hour = values.get("H")
    if hour is None and "k" in values:
        hour = values["k"] % 24
    if hour is None:
        twelve = values.get("h", values.get("K"))
        twelve = 0 if twelve is None else twelve % 12
        hour = twelve + (12 if values.get("a") == "PM" else 0)
    seconds = days * 86_400 + hour * 3600 + values.get("m", 0) * 60 + values.get("s", 0)
    zone = values.get("z", values.get("Z", values.get("X", 0)))
    return (seconds - zone * 60) * 1000 + values.get("S", 0)


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar (any year)."""
    year -= month <= 2
    era = (year if year >= 0 else year - 399) // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468
