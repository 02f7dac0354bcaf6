"""Confluent's ExtractTopic: the record's topic becomes a string taken from its key, value or a header."""

from __future__ import annotations

from typing import Any, ClassVar

from smt.config import ConfigDef, ConfigType, Importance, one_of
from smt.errors import ConfigError, DataError
from smt.reconfigure import Reconfigurable
from smt.record import Record
from smt.transform import Transform
from smt.transforms._requirements import type_name
from smt.transforms._variant import VALUE, Part
from smt.transforms.confluent._json_path import PathNotFound, compile_path, json_document
from smt.transforms.confluent._variants import CONFLUENT_PACKAGE, confluent_variants

FIELD = "field"
FIELD_FORMAT = "field.format"
SKIP_MISSING_OR_NULL = "skip.missing.or.null"
FIELD_FORMATS = ("PLAIN", "JSON_PATH")
_MISSING = object()


class _Missing(LookupError):
    """The source of the topic name is absent or null; ``why`` says which."""


class ExtractTopic(Reconfigurable, Transform):
    """Use a string from the record as its topic: the whole key or value (``field`` blank), one of its fields
    (``field``; with ``field.format=JSON_PATH`` a JsonPath such as ``$["f1"]["f3"]``), or a header (``$Header``).

    Schemaless parts must be maps and schema'd ones structs when a field is named; the extracted value must
    be a non-empty string.  A source that is missing or null (a tombstone included) fails the record unless
    ``skip.missing.or.null=true``, which leaves the topic as it is.
    """

    part: ClassVar[Part] = VALUE
    config_def = (
        ConfigDef()
        .define(
            FIELD,
            ConfigType.STRING,
            "",
            None,
            Importance.MEDIUM,
            "The field name or header key to use as the topic name. Required for ExtractTopic$Header; for "
            "ExtractTopic$Key or ExtractTopic$Value, blank uses the entire key or value (a string) as the topic.",
        )
        .define(
            FIELD_FORMAT,
            ConfigType.STRING,
            "PLAIN",
            one_of(*FIELD_FORMATS),
            Importance.MEDIUM,
            "How field is read: PLAIN, a top-level field name; JSON_PATH, a JsonPath that can reach nested "
            "fields. ExtractTopic$Header takes PLAIN only.",
        )
        .define(
            SKIP_MISSING_OR_NULL,
            ConfigType.BOOLEAN,
            False,
            None,
            Importance.MEDIUM,
            "What to do when the field, header, key or value is missing or null: true leaves the topic as it "
            "is, false fails the record.",
        )
    )

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.field = self.config[FIELD]
        self.skip = self.config[SKIP_MISSING_OR_NULL]
        json_path = self.config[FIELD_FORMAT] == "JSON_PATH"
        self.path = compile_path(self.field, self.context.prefix + FIELD) if json_path and self.field else None

    def input_fields(self) -> frozenset[str]:
        return frozenset({"topic", self.part.name, self.part.schema_name})

    def changed_fields(self) -> frozenset[str]:
        return frozenset({"topic"})

    def apply(self, record: Record) -> Record:
        try:
            topic = self.extract(record)
        except _Missing as missing:
            if self.skip:
                return record
            raise DataError(
                self._describe(
                    record,
                    f"{missing}; set {self.context.prefix}{SKIP_MISSING_OR_NULL}=true to leave the topic as it is",
                )
            ) from None
        if not isinstance(topic, str):
            raise DataError(self._describe(record, f"the topic name must be a string, found: {type_name(topic)}"))
        if not topic:
            if self.skip:
                return record
            raise DataError(self._describe(record, "the topic name is an empty string"))
        return record.replace(topic=topic)

    def extract(self, record: Record) -> Any:
        """The topic name the record carries; raises :class:`_Missing` when it carries none."""
        value = self.part.value(record)
        what = self.part.name
        if value is None:
            raise _Missing(f"the {what} is null")
        if not self.field:
            return value
        document = json_document(value, self.part.schema(record) is not None, "extracting topic from")
        if self.path is not None:
            try:
                found = self.path.read(document)
            except PathNotFound as exc:
                raise _Missing(f"the JsonPath {self.field} finds nothing in the {what} ({exc})") from None
        else:
            found = document.get(self.field, _MISSING)
            if found is _MISSING:
                raise _Missing(f"the {what} has no field '{self.field}'")
        if found is None:
            raise _Missing(f"the field '{self.field}' of the {what} is null")
        return found

    def _describe(self, record: Record, reason: str) -> str:
        return (
            f"ExtractTopic ({self.context.prefix.rstrip('.') or self.name}) cannot take a topic name from record "
            f"(topic {record.topic}, partition {record.partition}, offset {record.offset}): {reason}"
        )


class ExtractTopicHeader(ExtractTopic):
    """The topic becomes the (string) value of the last header named ``field``; ``field`` is required and
    ``field.format`` must be PLAIN.  A tombstone is routed like any record: only the header is read."""

    name = "ExtractTopic$Header"
    aliases = (CONFLUENT_PACKAGE + "ExtractTopic$Header",)

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        if not self.field:
            raise ConfigError.for_key(self.context.prefix + FIELD, "ExtractTopic$Header needs a header key", "")
        if self.config[FIELD_FORMAT] != "PLAIN":
            raise ConfigError.for_key(
                self.context.prefix + FIELD_FORMAT,
                "ExtractTopic$Header reads a header's whole value: only PLAIN is supported",
                self.config[FIELD_FORMAT],
            )

    def input_fields(self) -> frozenset[str]:
        return frozenset({"topic", "headers"})

    def extract(self, record: Record) -> Any:
        found = record.header(self.field, _MISSING)
        if found is _MISSING:
            raise _Missing(f"the record has no header '{self.field}'")
        if found is None:
            raise _Missing(f"the header '{self.field}' is null")
        return found


ExtractTopicKey, ExtractTopicValue = confluent_variants(ExtractTopic, "ExtractTopic", "ExtractTopic", __name__)
