"""converters.load: every registered name and Kafka class alias, and third-party plugins."""

import pytest

import converters
from converters import Converter
from smt.plugins import hookimpl, load_plugins

NAMES = {
    "bytearray": "ByteArrayConverter",
    "org.apache.kafka.connect.converters.ByteArrayConverter": "ByteArrayConverter",
    "string": "StringConverter",
    "org.apache.kafka.connect.storage.StringConverter": "StringConverter",
    "json": "JsonConverter",
    "org.apache.kafka.connect.json.JsonConverter": "JsonConverter",
    "avro": "AvroConverter",
    "io.confluent.connect.avro.AvroConverter": "AvroConverter",
    "simple": "SimpleHeaderConverter",
    "org.apache.kafka.connect.storage.SimpleHeaderConverter": "SimpleHeaderConverter",
}


@pytest.mark.parametrize("name, class_name", NAMES.items())
def test_every_name_and_alias_loads(name, class_name):
    configs = {"avro.schema": '"string"'} if class_name == "AvroConverter" else {}
    converter = converters.load(name, configs, is_key=True)
    assert type(converter).__name__ == class_name
    assert getattr(converter, "is_key", True) is True


def test_unknown_name_lists_known_ones():
    with pytest.raises(
        KeyError,
        match="unknown converter 'protobuf'; known: avro, boolean, bytearray, double, float, integer, json, long, short, simple, string",
    ):
        converters.load("protobuf")


class ReversingConverter(Converter):
    """A third-party converter: stores text reversed."""

    name = "reversing"
    aliases = ("com.example.ReversingConverter",)

    def from_connect_data(self, topic, schema, value):
        return None if value is None else value[::-1].encode()

    def to_connect_data(self, topic, data):
        return None, None if data is None else data.decode()[::-1]


class ThirdPartyPlugin:
    @hookimpl
    def smt_converters(self):
        return [ReversingConverter]


def test_third_party_converter_is_usable_by_name():
    plugins = load_plugins(entry_points=False, extra_plugins=[ThirdPartyPlugin()])
    converter = converters.load("com.example.ReversingConverter", plugins=plugins)
    assert converter.from_connect_data("t", None, "abc") == b"cba"
    assert converter.to_connect_batch(["t"], [b"cba"]) == (None, ["abc"])


PLUGIN_MODULE = '''
from converters import Converter
from smt.plugins import hookimpl


class UpperConverter(Converter):
    """Stores text upper-cased."""

    name = "upper"
    aliases = ("com.example.UpperConverter",)

    def from_connect_data(self, topic, schema, value):
        return None if value is None else value.upper().encode()

    def to_connect_data(self, topic, data):
        return None, None if data is None else data.decode()


@hookimpl
def smt_converters():
    return [UpperConverter]
'''


def test_converter_installed_as_a_distribution_loads_through_its_entry_point(tmp_path, monkeypatch):
    # A real (if tiny) installed distribution: a module plus dist-info metadata
    # declaring an "smt" entry point, found on sys.path by importlib.metadata.
    (tmp_path / "upper_converter_plugin.py").write_text(PLUGIN_MODULE, encoding="utf-8")
    dist_info = tmp_path / "upper_converter-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: upper-converter\nVersion: 1.0\n", encoding="utf-8"
    )
    (dist_info / "entry_points.txt").write_text("[smt]\nupper = upper_converter_plugin\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins = load_plugins()
    assert plugins.lookup("converter", "upper").origin == "upper"
    converter = converters.load("com.example.UpperConverter", plugins=plugins)
    assert converter.from_connect_data("t", None, "abc") == b"ABC"


class FlakyConverter(Converter):
    name = "flaky"

    def to_connect_data(self, topic, data):
        if data == b"bad":
            raise ValueError("cannot read this")
        return None, data


def test_default_batch_path_reports_a_failing_row_and_goes_on():
    converter = FlakyConverter()
    converter.configure({}, is_key=True)
    errors = []
    _, values = converter.to_connect_batch(["t1", "t2"], [b"ok", b"bad"], lambda row, exc: errors.append((row, exc)))
    assert values == [b"ok", None]
    ((row, exc),) = errors
    assert row == 1 and isinstance(exc, ValueError) and str(exc) == "cannot read this"


def test_unexpected_failures_in_our_batch_paths_still_name_converter_stage_and_topic(monkeypatch):
    converter = converters.load("json", {"schemas.enable": "true"}, is_key=True)

    def broken(topic, data):
        raise KeyError("surprise")

    monkeypatch.setattr(converter, "_read", broken)
    errors = []
    converter.to_connect_batch(["t"], [b"{}"], lambda row, exc: errors.append(exc))
    assert str(errors[0]) == "JsonConverter (KEY_CONVERTER) failed on topic 't': KeyError: 'surprise'"
    assert isinstance(errors[0].__cause__, KeyError)
