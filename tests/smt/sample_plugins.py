"""Small transforms and predicates used by the core tests, registered through a real pluggy plugin."""

from __future__ import annotations

from smt import DataError, Predicate, Record, Transform
from smt.config import REQUIRED, ConfigDef, ConfigType, non_empty_string
from smt.plugins import hookimpl, load_plugins


class AppendSuffix(Transform):
    """Appends ``suffix`` to a string value."""

    name = "AppendSuffix"
    aliases = ("com.example.AppendSuffix",)
    config_def = ConfigDef().define("suffix", ConfigType.STRING, REQUIRED, non_empty_string)

    def apply(self, record: Record) -> Record:
        if record.value == "boom":
            raise DataError("cannot append to boom")
        return record.replace(value=f"{record.value}{self.config['suffix']}")


class DropValue(Transform):
    """Drops records whose value equals ``value``."""

    name = "DropValue"
    config_def = ConfigDef().define("value", ConfigType.STRING, REQUIRED)

    def apply(self, record: Record) -> Record | None:
        return None if record.value == self.config["value"] else record


class Split(Transform):
    """Fans a value ``a|b|c`` out into one record per part."""

    name = "Split"

    def apply(self, record: Record) -> list[Record]:
        return [record.replace(value=part) for part in str(record.value).split("|")]


class ValueStartsWith(Predicate):
    """True when the value starts with ``prefix``."""

    name = "ValueStartsWith"
    config_def = ConfigDef().define("prefix", ConfigType.STRING, REQUIRED)

    def test(self, record: Record) -> bool:
        return str(record.value).startswith(self.config["prefix"])


class SamplePlugin:
    @hookimpl
    def smt_transforms(self):
        return [AppendSuffix, DropValue, Split]

    @hookimpl
    def smt_predicates(self):
        return [ValueStartsWith]


def sample_plugins():
    return load_plugins(entry_points=False, extra_plugins=[SamplePlugin()])
