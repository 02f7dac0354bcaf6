"""Java ``.properties`` parsing: golden tables, a golden file, and a real JVM as oracle."""

from __future__ import annotations

import json
import pathlib
import random
import re
import subprocess

import pytest

from smt.errors import ConfigError
from smt.properties import PropertiesError, load_properties, parse_properties

DATA = pathlib.Path(__file__).parent / "data"

# (text, expected dict): each row one rule of java.util.Properties.load.
PARSE_CASES = {
    # separators: =, : or white space, exactly one consumed
    "equals": ("key=value", {"key": "value"}),
    "colon": ("key:value", {"key": "value"}),
    "space": ("key value", {"key": "value"}),
    "tab": ("key\tvalue", {"key": "value"}),
    "form feed": ("key\fvalue", {"key": "value"}),
    "spaces around equals": ("key = value", {"key": "value"}),
    "spaces around colon": ("key  :  value", {"key": "value"}),
    "second equals is content": ("key = = v", {"key": "= v"}),
    "equals then equals": ("key==v", {"key": "=v"}),
    "colon then equals": ("key:=v", {"key": "=v"}),
    "white space then colon then colon": ("key : :v", {"key": ":v"}),
    "separator inside value": ("url=http://host:80/a=b", {"url": "http://host:80/a=b"}),
    # keys and values
    "key alone": ("key", {"key": ""}),
    "key and separator alone": ("key =   ", {"key": ""}),
    "leading white space of line stripped": ("  \t key=v", {"key": "v"}),
    "leading white space of value stripped": ("key=   v", {"key": "v"}),
    "trailing white space of value kept": ("key=v  \t", {"key": "v  \t"}),
    "only space tab and form feed are white space": ("key=\u00a0v", {"key": "\u00a0v"}),
    "duplicate keys: last wins": ("k=1\nk=2\nk=3", {"k": "3"}),
    "empty key": ("=value", {"": "value"}),
    # comments and blank lines
    "hash comment": ("# comment\nk=v", {"k": "v"}),
    "bang comment": ("! comment\nk=v", {"k": "v"}),
    "indented comment": ("   # comment\nk=v", {"k": "v"}),
    "hash inside value is content": ("k=v # not a comment", {"k": "v # not a comment"}),
    "comment is not continued": ("# comment \\\nk=v", {"k": "v"}),
    "blank and white-space lines ignored": ("\n  \n\t\f\nk=v\n\n", {"k": "v"}),
    "empty text": ("", {}),
    # line endings
    "LF": ("a=1\nb=2", {"a": "1", "b": "2"}),
    "CRLF": ("a=1\r\nb=2\r\n", {"a": "1", "b": "2"}),
    "CR": ("a=1\rb=2\r", {"a": "1", "b": "2"}),
    "mixed endings": ("a=1\r\nb=2\rc=3\n", {"a": "1", "b": "2", "c": "3"}),
    # continuation lines
    "continuation joins lines": ("k=a\\\nb", {"k": "ab"}),
    "continuation drops next line's leading white space": ("k=a, \\\n   \t b", {"k": "a, b"}),
    "continuation over CRLF": ("k=a\\\r\n  b\r\nx=y", {"k": "ab", "x": "y"}),
    "continuation over CR": ("k=a\\\r  b\rx=y", {"k": "ab", "x": "y"}),
    "continuation in the key": ("ke\\\n  y=v", {"key": "v"}),
    "continuation before the value": ("key=\\\n   value", {"key": "value"}),
    "two backslashes do not continue": ("k=a\\\\\nb", {"k": "a\\", "b": ""}),
    "three backslashes continue": ("k=a\\\\\\\n  b", {"k": "a\\b"}),
    "four backslashes do not continue": ("k=a\\\\\\\\\nb", {"k": "a\\\\", "b": ""}),
    "hash after continuation is content": ("k=a\\\n# b", {"k": "a# b"}),
    "bang after continuation is content": ("k=a\\\n  ! b", {"k": "a! b"}),
    "blank line ends a continuation": ("k=a\\\n\nb=c", {"k": "a", "b": "c"}),
    "white-space line ends a continuation": ("k=a\\\n   \nb=c", {"k": "a", "b": "c"}),
    "continuation at end of input drops the backslash": ("k=a\\", {"k": "a"}),
    "continuation then line break at end of input": ("k=a\\\n", {"k": "a"}),
    "continuation of a comment-like first line": ("\\\n#c\nk=v", {"k": "v"}),
    "lone backslash at end of input is an empty key": ("\\", {"": ""}),
    # escapes
    "t n r f escapes": ("k=\\t\\n\\r\\f", {"k": "\t\n\r\f"}),
    "unicode escape": ("k=caf\\u00e9", {"k": "café"}),
    "unicode escape upper-case hex": ("k=\\u00C9\\u00DF", {"k": "Éß"}),
    "unicode escape in the key": ("caf\\u00e9=v", {"café": "v"}),
    "surrogate pair escapes make one character": ("k=\\uD83D\\uDE00", {"k": "😀"}),
    "escaped separator is not a separator": ("\\u003d=v", {"=": "v"}),
    "other escapes drop the backslash": ('k=\\a\\b\\z\\"', {"k": 'abz"'}),
    "escaped backslash": ("k=C:\\\\temp", {"k": "C:\\temp"}),
    "escaped space in the key": ("my\\ key=v", {"my key": "v"}),
    "escaped equals in the key": ("a\\=b=c", {"a=b": "c"}),
    "escaped colon in the key": ("a\\:b:c", {"a:b": "c"}),
    "escaped hash starts a key": ("\\#k=v", {"#k": "v"}),
    "escaped white space starts a value": ("k=\\ \\ v", {"k": "  v"}),
    "literal UTF-8": ("clé=naïve ✓", {"clé": "naïve ✓"}),
    "escape-like text in a comment is ignored": ("# \\uZZZZ\nk=v", {"k": "v"}),
}


@pytest.mark.parametrize("text, expected", PARSE_CASES.values(), ids=PARSE_CASES.keys())
def test_parse(text, expected):
    assert parse_properties(text) == expected


# (text, line named in the error): malformed \uXXXX escapes.
MALFORMED_CASES = {
    "non-hex digit": ("a=1\nk=\\u00g9", 2, r"'\\u00g9'"),
    "too few digits at end": ("k=\\u12", 1, r"'\\u12'"),
    "in the key": ("\n\nk\\uXYZW=v", 3, r"'\\uXYZW'"),
    "on a continued line": ("k=ok \\\n  then \\u12x4", 2, r"'\\u12x4'"),
    "after CRLF lines": ("a=1\r\nb=2\r\nc=\\u", 3, r"'\\u'"),
    "after CR lines": ("a=1\rb=2\rc=\\u1", 3, r"'\\u1'"),
}


@pytest.mark.parametrize("text, line, shown", MALFORMED_CASES.values(), ids=MALFORMED_CASES.keys())
def test_malformed_unicode_escape_names_source_and_line(text, line, shown):
    match = rf"^pipe\.properties, line {line}: malformed \\uxxxx escape {shown}$"
    with pytest.raises(PropertiesError, match=match) as info:
        parse_properties(text, source="pipe.properties")
    assert (info.value.source, info.value.line) == ("pipe.properties", line)


def test_properties_error_is_a_config_error():
    with pytest.raises(ConfigError, match=r"^<string>, line 1: malformed"):
        parse_properties("k=\\uabc")


def test_golden_file():
    expected = json.loads((DATA / "everything.expected.json").read_text(encoding="utf-8"))
    assert load_properties(DATA / "everything.properties") == expected


def test_load_accepts_str_path_and_strips_byte_order_mark(tmp_path):
    path = tmp_path / "bom.properties"
    path.write_bytes(b"\xef\xbb\xbfkey=caf\xc3\xa9\r\n")
    assert load_properties(str(path)) == {"key": "café"}


def test_load_missing_file_names_the_path(tmp_path):
    path = tmp_path / "missing.properties"
    expected = rf"^{re.escape(str(path))}: cannot read properties file: No such file"
    with pytest.raises(PropertiesError, match=expected):
        load_properties(path)


def test_load_directory_names_the_path(tmp_path):
    with pytest.raises(PropertiesError, match=rf"^{re.escape(str(tmp_path))}: cannot read properties file"):
        load_properties(tmp_path)


def test_load_invalid_utf8_names_the_line(tmp_path):
    path = tmp_path / "latin1.properties"
    path.write_bytes(b"a=1\r\nb=2\nname=caf\xe9\n")
    with pytest.raises(PropertiesError, match=rf"^{re.escape(str(path))}, line 3: not valid UTF-8"):
        load_properties(path)


def test_load_malformed_escape_names_the_file_and_line(tmp_path):
    path = tmp_path / "bad.properties"
    path.write_text("# header\nk=\\uXXXX\n", encoding="utf-8")
    with pytest.raises(PropertiesError, match=rf"^{re.escape(str(path))}, line 2: malformed \\uxxxx escape"):
        load_properties(path)


# --- Java itself as the oracle ----------------------------------------------------
# PySpark needs a JVM, so one is always here; these tests compare our parser with
# java.util.Properties.load(Reader) on the golden file and on random inputs built
# from the characters the rules care about.

_TRICKY = ["\\", "\\", "=", ":", " ", "\t", "\f", "\n", "\r", "\r\n", "#", "!", "a", "u", "0041", "é", "t"]


def _java_load(java: str, paths: list[pathlib.Path]) -> list[dict]:
    result = subprocess.run(
        [java, str(DATA / "PropertiesDump.java"), *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return [json.loads(line) for line in result.stdout.splitlines()]


def _ours(path: pathlib.Path) -> dict:
    try:
        return {"ok": load_properties(path)}
    except PropertiesError:
        return {"error": True}


def test_matches_java_on_golden_file_and_random_inputs(tmp_path, java):
    rng = random.Random(20261125)
    paths = [DATA / "everything.properties"]
    for index in range(400):
        text = "".join(rng.choice(_TRICKY) for _ in range(rng.randint(0, 40)))
        path = tmp_path / f"case{index}.properties"
        path.write_bytes(text.encode("utf-8"))
        paths.append(path)
    java_results = _java_load(java, paths)
    assert len(java_results) == len(paths)
    mismatches = []
    for path, theirs in zip(paths, java_results):
        expected = {"error": True} if "error" in theirs else theirs
        if _ours(path) != expected:
            mismatches.append((path.read_bytes(), theirs, _ours(path)))
    assert not mismatches, mismatches[:5]
    assert sum("error" in r for r in java_results) > 0, "the sample should include malformed escapes"


def test_keys_set_more_than_once_are_remembered_with_their_lines():
    props = parse_properties("a=1\nb=2\n# a=comment\na = 3\\\n  more\nb=4\na=5\n")
    assert dict(props) == {"a": "5", "b": "4"}  # the last wins, as in Java
    assert props.duplicates == {"a": [1, 4, 7], "b": [2, 6]}
