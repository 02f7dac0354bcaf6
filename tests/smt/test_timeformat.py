"""SimpleDateFormat patterns: golden table of millis -> text, and parsing back."""

import pytest

from smt.timeformat import DateFormatError, compile_pattern

# (pattern, epoch millis, text) — texts as java.text.SimpleDateFormat prints them in UTC.
GOLDEN = [
    ("yyyy MM dd HH mm ss SSS z", 86_401_234, "1970 01 02 00 00 01 234 UTC"),
    ("yyyyMMdd", 1_483_425_001_864, "20170103"),
    ("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", 1_483_425_001_864, "2017-01-03T06:30:01.864Z"),
    ("yyyy-MM-dd", 1_483_425_001_864, "2017-01-03"),
    ("HH:mm:ss.SSS'Z'", 1234, "00:00:01.234Z"),
    ("yy-M-d H:m:s.S", 1_483_425_001_864, "17-1-3 6:30:1.864"),
    ("EEE, d MMM yyyy hh:mm a Z", 1_483_425_001_864, "Tue, 3 Jan 2017 06:30 AM +0000"),
    ("EEEE MMMM dd", 1_483_425_001_864, "Tuesday January 03"),
    ("'week' w 'day' D u F k K", 1_483_425_001_864, "week 1 day 3 2 1 6 6"),
    ("h 'o''clock' a, zzzz", 1_483_471_800_000, "7 o'clock PM, Coordinated Universal Time"),
    ("yyyy-MM-dd'T'HH:mm:ssXXX", 0, "1970-01-01T00:00:00Z"),
    ("G yyyy", -86_400_000, "AD 1969"),
]


@pytest.mark.parametrize("pattern, millis, text", GOLDEN)
def test_format(pattern, millis, text):
    assert compile_pattern(pattern).format(millis) == text


@pytest.mark.parametrize("pattern, millis, text", GOLDEN[:5])
def test_parse_round_trip(pattern, millis, text):
    parsed = compile_pattern(pattern).parse(text)
    if "HH" in pattern or "H:" in pattern:
        assert parsed == millis
    else:
        assert parsed == millis - millis % 86_400_000


def test_parse_is_lenient_and_ignores_trailing_text():
    assert compile_pattern("yyyy-MM-dd").parse("2017-13-01 and more") == compile_pattern("yyyy-MM-dd").parse(
        "2018-01-01"
    )


def test_parse_zone_offset():
    assert compile_pattern("yyyyMMddHHmm Z").parse("201701030630 +0100") == 1_483_421_400_000


@pytest.mark.parametrize(
    "pattern, message",
    [
        ("bad-format", "Illegal pattern character 'b'"),
        ("yyyy'", "Unterminated quote"),
    ],
)
def test_invalid_patterns(pattern, message):
    with pytest.raises(DateFormatError, match=message):
        compile_pattern(pattern)


def test_unparseable_text():
    with pytest.raises(DateFormatError, match='Unparseable date: "nope"'):
        compile_pattern("yyyy").parse("nope")


def test_formatting_a_time_beyond_year_9999_is_a_format_error():
    with pytest.raises(
        DateFormatError,
        match=r"Timestamp 4611686018427387904 \(milliseconds since 1970\) is outside "
        r"the years 1 to 9999",
    ):
        compile_pattern("yyyy-MM-dd").format(2**62)
