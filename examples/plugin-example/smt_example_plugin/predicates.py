"""ValueContains: a predicate on the record value."""

from __future__ import annotations

from smt import ConfigDef, ConfigType, Importance, Predicate, Record
from smt.config import REQUIRED, non_empty_string


class ValueContains(Predicate):
    """Matches records whose value (string, or UTF-8 bytes) contains ``substring``."""

    name = "value-contains"
    aliases = ("com.example.ValueContains",)
    config_def = ConfigDef().define(
        "substring",
        ConfigType.STRING,
        REQUIRED,
        non_empty_string,
        Importance.HIGH,
        "The text to look for in the value.",
    )

    def test(self, record: Record) -> bool:
        value = record.value
        substring = self.config["substring"]
        if isinstance(value, str):
            return substring in value
        if isinstance(value, (bytes, bytearray)):
            return substring.encode("utf-8") in value
        return False
