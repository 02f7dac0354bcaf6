"""ReverseValue: a transform small enough to read in one go."""

from __future__ import annotations

from smt import ConfigDef, ConfigType, DataError, Importance, Record, Transform
from smt.config import one_of


class ReverseValue(Transform):
    """Reverses the record value, a string or bytes.

    With ``unit=chars`` a bytes value is read as UTF-8 and its characters are
    reversed, so multi-byte characters survive; ``unit=bytes`` reverses raw
    bytes. A null value passes through.
    """

    name = "reverse-value"
    aliases = ("com.example.ReverseValue",)
    config_def = ConfigDef().define(
        "unit",
        ConfigType.STRING,
        "chars",
        one_of("chars", "bytes"),
        Importance.MEDIUM,
        "What to reverse: 'chars' (UTF-8 characters) or 'bytes'.",
    )

    def apply(self, record: Record) -> Record:
        value = record.value
        if value is None:
            return record
        if isinstance(value, str):
            return record.replace(value=value[::-1])
        if not isinstance(value, (bytes, bytearray)):
            raise DataError(f"ReverseValue needs a string or bytes value, found: {type(value).__name__}")
        if self.config["unit"] == "bytes":
            return record.replace(value=bytes(value[::-1]))
        try:
            text = bytes(value).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataError(f"ReverseValue with unit=chars needs UTF-8 bytes: {exc}") from exc
        return record.replace(value=text[::-1].encode("utf-8"))
