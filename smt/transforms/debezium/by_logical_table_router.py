"""ByLogicalTableRouter: route the change events of many physical tables into one logical table's topic."""

from __future__ import annotations

import logging

from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, one_of
from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import ConfigError, DataError
from smt.java_regex import compile_java_regex, java_replacement
from smt.record import Record
from smt.transform import Transform
from smt.transforms._requirements import require_struct
from smt.transforms._schema_cache import SchemaCache
from smt.transforms.debezium._envelope import ENVELOPE_SUFFIX
from smt.transforms.debezium._schema_names import MODES, schema_name_adjuster
from smt.transforms.debezium.extract_new_record_state import DEBEZIUM_PACKAGE

_LOG = logging.getLogger(__name__)
_PURPOSE = "Updating schema"
_STATES = ("before", "after")


def _required(value: str) -> None:
    # Debezium's Field.isRequired: a blank value is as good as none.
    if not value.strip():
        raise ValueError("A value is required")


def _required_regex(value: str) -> None:
    _required(value)
    _regex(value)


def _regex(value: str) -> None:
    try:
        compile_java_regex(value)
    except ValueError as exc:
        raise ValueError(f"A valid regular expressions is expected, but {exc}") from None


class ByLogicalTableRouter(Transform):
    """When the whole topic matches ``topic.regex``, route the record to ``topic.replacement``
    (``$1`` = group 1) and rename its key and envelope schemas after the new topic.

    The key struct gains ``key.field.name`` (a string: the old topic, or ``key.field.regex``
    applied to it with ``key.field.replacement``) unless ``key.enforce.uniqueness=false``; its
    schema is named ``<new topic>.Key``. A Debezium envelope's schema becomes
    ``<new topic>.Envelope`` and its ``before``/``after`` schema ``<new topic>.Value``, adjusted by
    ``schema.name.adjustment.mode``. Tombstones and values that are not envelopes (schemaless,
    heartbeats, schema changes) keep their value and are routed with the new key. As in Debezium
    a non-null key must be a struct: a schemaless map key fails. A topic that does not match, or a
    replacement that yields an empty topic (logged), leaves the record unchanged.
    """

    name = "ByLogicalTableRouter"
    aliases = (DEBEZIUM_PACKAGE + "ByLogicalTableRouter",)
    config_def = (
        ConfigDef()
        .define(
            "topic.regex",
            ConfigType.STRING,
            REQUIRED,
            _required_regex,
            Importance.LOW,
            "The regex used for extracting the name of the logical table from the original topic name.",
        )
        .define(
            "topic.replacement",
            ConfigType.STRING,
            REQUIRED,
            _required,
            Importance.LOW,
            "The replacement string used in conjunction with topic.regex. "
            "This will be used to create the new topic name.",
        )
        .define(
            "key.enforce.uniqueness",
            ConfigType.BOOLEAN,
            True,
            None,
            Importance.LOW,
            "Augment each record's key with a field denoting the source topic, so that records of different "
            "physical tables with the same key stay distinct. false: the key keeps its fields.",
        )
        .define(
            "key.field.regex",
            ConfigType.STRING,
            None,
            _regex,
            Importance.LOW,
            "The regex used for extracting the physical table identifier from the original topic name. "
            "null or blank: the identifier is the original topic.",
        )
        .define(
            "key.field.name",
            ConfigType.STRING,
            "__dbz__physicalTableIdentifier",
            None,
            Importance.LOW,
            "The key field that holds the physical table identifier; choose a name no key schema has.",
        )
        .define(
            "key.field.replacement",
            ConfigType.STRING,
            None,
            None,
            Importance.LOW,
            "The replacement string used in conjunction with key.field.regex to create the physical table "
            "identifier in the record's key; required when key.field.regex is set.",
        )
        .define(
            "schema.name.adjustment.mode",
            ConfigType.STRING,
            "none",
            one_of(*MODES, case_sensitive=False),
            Importance.LOW,
            "How the key and envelope schema names derived from the new topic are adjusted: 'avro' replaces "
            "characters Avro names cannot use with underscores, 'avro_unicode' with _uXXXX, 'none' does not "
            "adjust them.",
        )
        .define(
            "logical.table.cache.size",
            ConfigType.INT,
            16,
            None,
            Importance.LOW,
            "Entries kept in each LRU cache: derived key and envelope schemas, new topics and key identifiers.",
        )
    )

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        config = self.config
        self.topic_regex = compile_java_regex(config["topic.regex"])
        self.topic_replacement = java_replacement(config["topic.replacement"])
        key_regex = (config["key.field.regex"] or "").strip()
        key_replacement = (config["key.field.replacement"] or "").strip()
        if key_regex and not key_replacement:
            raise ConfigError.for_key(
                self.context.prefix + "key.field.replacement",
                "key.field.replacement must be non-empty if key.field.regex is set.",
                config["key.field.replacement"],
            )
        self.key_regex = compile_java_regex(config["key.field.regex"]) if key_regex else None
        self.key_replacement = java_replacement(config["key.field.replacement"]) if key_regex else None
        self.key_field = config["key.field.name"]
        self.enforce_uniqueness = config["key.enforce.uniqueness"]
        self.adjust = schema_name_adjuster(config["schema.name.adjustment.mode"])
        size = config["logical.table.cache.size"]
        self.topic_cache = SchemaCache(size)
        self.identifier_cache = SchemaCache(size)
        self.key_schema_cache = SchemaCache(size)
        self.envelope_schema_cache = SchemaCache(size)

    def apply(self, record: Record) -> Record:
        old_topic = record.topic
        new_topic = self.topic_cache.get(old_topic, self._new_topic)
        if new_topic is None:
            return record
        if not new_topic:
            _LOG.warning("Routing regex returned an empty topic name, propagating original record")
            return record
        key_schema, key = None, None
        if record.key is not None:  # a table without a primary key has none
            old_key = require_struct(record.key, _PURPOSE)
            key_schema = self.key_schema_cache.get((old_key.schema, new_topic), self._key_schema)
            key = self._key(key_schema, old_key, old_topic)
        routed = record.replace(topic=new_topic, key=key, key_schema=key_schema)
        schema = record.value_schema
        if record.value is None or schema is None or schema.name is None or not schema.name.endswith(ENVELOPE_SUFFIX):
            return routed
        envelope = require_struct(record.value, _PURPOSE)
        envelope_schema = self.envelope_schema_cache.get((envelope.schema, new_topic), self._envelope_schema)
        return routed.replace(value=self._envelope(envelope_schema, envelope), value_schema=envelope_schema)

    def _new_topic(self, topic: str) -> str | None:
        # Debezium checks matches() (the whole topic) and then replaceFirst() (the first match found).
        if not self.topic_regex.fullmatch(topic):
            return None
        return self.topic_regex.sub(self.topic_replacement, topic, count=1)

    def _identifier(self, topic: str) -> str:
        if self.key_regex is None or not self.key_regex.fullmatch(topic):
            return topic
        return self.key_regex.sub(self.key_replacement, topic, count=1)

    def _key_schema(self, key: tuple[Schema, str]) -> Schema:
        old_schema, new_topic = key
        builder = _copy_excluding_name(old_schema).name(self.adjust(new_topic + ".Key"))
        if self.enforce_uniqueness:
            builder.field(self.key_field, Schema.STRING_SCHEMA)
        return builder.build()

    def _key(self, schema: Schema, old_key: Struct, old_topic: str) -> Struct:
        key = Struct(schema)
        for field in old_key.schema.fields:
            key.put(field.name, old_key.get_without_default(field))
        if self.enforce_uniqueness:
            key.put(self.key_field, self.identifier_cache.get(old_topic, self._identifier))
        return key

    def _envelope_schema(self, key: tuple[Schema, str]) -> Schema:
        old_schema, new_topic = key
        before = old_schema.field("before")
        if before is None:
            raise DataError(f"Envelope schema {old_schema.name} has no before field, so it cannot be re-routed")
        row_schema = _copy_excluding_name(before.schema).name(self.adjust(new_topic + ".Value")).build()
        builder = _copy_excluding_name(old_schema, with_fields=False)
        for field in old_schema.fields:
            builder.field(field.name, row_schema if field.name in _STATES else field.schema)
        return builder.name(self.adjust(new_topic + ENVELOPE_SUFFIX)).build()

    @staticmethod
    def _envelope(schema: Schema, old: Struct) -> Struct:
        envelope = Struct(schema)
        row_schema = schema.field("before").schema
        for field in old.schema.fields:
            value = old.get(field)  # as Debezium: with the field's default
            if field.name in _STATES and value is not None:
                state = require_struct(value, _PURPOSE)
                value = Struct(row_schema)
                for row_field in state.schema.fields:
                    value.put(row_field.name, state.get_without_default(row_field))
            envelope.put(field.name, value)
        return envelope


def _copy_excluding_name(source: Schema, with_fields: bool = True) -> SchemaBuilder:
    """Debezium's copy: version, doc, parameters, optional and (for structs) fields; no name, no default."""
    builder = SchemaBuilder.struct().version(source.version).doc(source.doc)
    if source.parameters:
        builder.parameters(source.parameters)
    if source.optional:
        builder.optional()
    if with_fields:
        for field in source.fields:
            builder.field(field.name, field.schema)
    return builder


__all__ = ["ByLogicalTableRouter"]
