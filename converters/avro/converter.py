"""AvroConverter: Avro binary, plain against a configured schema or in Confluent's wire format."""

from __future__ import annotations

import io
import json
from typing import Any, Mapping, Sequence

import fastavro
import fastavro.validation
from fastavro.validation import ValidationError

from converters._registry_credentials import CREDENTIALS_CONFIG, registry_credentials
from converters._schema_setting import load_schema_setting
from converters.avro._mapping import (
    compile_avro_reader,
    compile_avro_writer,
    to_avro_schema,
    to_connect_schema,
)
from converters.schema_registry import SchemaRegistryClient, SchemaRegistryError, subject_name
from smt.config import ConfigDef, ConfigType, Importance
from smt.converter import Converter, ConverterError, OnError, raise_error
from smt.data import Schema, Struct
from smt.data.schema import SchemaMatch
from smt.errors import ConfigError, DataError
from smt.plugin import PluginContext

MAGIC_BYTE = 0
_HEADER_SIZE = 5


class _AvroSchema:
    """One Avro schema, parsed once: fastavro's form, its Connect schema and value converters."""

    __slots__ = ("text", "parsed", "connect", "read", "write", "match")

    def __init__(self, avro: Any, connect: Schema | None = None) -> None:
        self.text = json.dumps(avro, separators=(",", ":"))
        self.parsed = fastavro.parse_schema(avro)
        self.connect = connect if connect is not None else to_connect_schema(avro)
        self.read = compile_avro_reader(self.connect)
        self.write = compile_avro_writer(self.connect)
        self.match = SchemaMatch(self.connect)


class AvroConverter(Converter):
    """Avro binary data, with a schema registry or a fixed schema.

    With ``schema.registry.url`` each message is Confluent's wire format: a
    ``0x00`` magic byte, the 4-byte big-endian schema id, then the Avro
    binary; writing registers the schema under ``<topic>-key`` /
    ``<topic>-value`` (TopicNameStrategy).  Without a registry,
    ``avro.schema`` or ``avro.schema.file`` gives the schema of plain Avro
    binary.  Records read as structs; logical types as Python decimals,
    dates, times and datetimes.
    """

    name = "avro"
    null_is_null = True  # null bytes <-> None, as in Kafka
    aliases = ("io.confluent.connect.avro.AvroConverter", "AvroConverter")
    config_def = (
        ConfigDef()
        .define(
            "schema.registry.url",
            ConfigType.STRING,
            None,
            None,
            Importance.HIGH,
            "Comma-separated URLs of the Confluent-compatible schema registry. Without it, "
            "messages are plain Avro binary of avro.schema.",
        )
        .define(
            "avro.schema",
            ConfigType.STRING,
            None,
            None,
            Importance.HIGH,
            "An inline Avro schema (JSON): the schema of plain Avro messages, or with a registry "
            "the schema to write with and to read into.",
        )
        .define(
            "avro.schema.file",
            ConfigType.PATH,
            None,
            None,
            Importance.HIGH,
            "A file holding the Avro schema (.avsc); the alternative to avro.schema.",
        )
        .define(
            "auto.register.schemas",
            ConfigType.BOOLEAN,
            True,
            None,
            Importance.MEDIUM,
            "Register the schema of written data under the subject when it is not there yet.",
        )
        .define(
            "use.latest.version",
            ConfigType.BOOLEAN,
            False,
            None,
            Importance.MEDIUM,
            "With auto.register.schemas=false, write with the subject's latest registered schema.",
        )
        .define(
            "schema.registry.request.timeout.ms",
            ConfigType.INT,
            10_000,
            None,
            Importance.LOW,
            "How long to wait for the schema registry to answer.",
        )
        .merge(CREDENTIALS_CONFIG)
    )

    def configure(self, configs: Mapping[str, Any], is_key: bool = False, context: PluginContext | None = None) -> None:
        super().configure(configs, is_key, context)
        prefix = self.context.prefix
        self._fixed = _load_fixed_schema(self.config["avro.schema"], self.config["avro.schema.file"], prefix)
        url = self.config["schema.registry.url"]
        if not url and self._fixed is None:
            raise ConfigError.for_key(
                prefix + "schema.registry.url",
                "AvroConverter needs schema.registry.url, or avro.schema / avro.schema.file for plain Avro",
            )
        self.registry = None
        if url:
            basic_auth, from_url = registry_credentials(self.config, url, prefix)
            self.registry = SchemaRegistryClient(
                url,
                timeout=self.config["schema.registry.request.timeout.ms"] / 1000,
                basic_auth=basic_auth,
                credentials_from_url=from_url,
            )
        self._by_id: dict[int, _AvroSchema] = {}
        self._by_connect: dict[Schema, _AvroSchema] = {}
        self._ids: dict[tuple[str, str], int] = {}

    # ------------------------------------------------------------ reading --
    def to_connect_data(self, topic: str, data: bytes | None) -> tuple[Any, Any]:
        if data is None:
            return None, None
        if self.registry is None:
            return self._decode(topic, data, 0, self._fixed, None)
        schema_id = self._schema_id(topic, data)
        return self._decode(topic, data, _HEADER_SIZE, self._writer_schema(topic, schema_id), schema_id)

    def to_connect_batch(
        self, topics: Sequence[str], data: Sequence[bytes | None], on_error: OnError = raise_error
    ) -> tuple[list[Any] | None, list[Any]]:
        schemas: list[Any] = []
        values: list[Any] = []
        convert = self.to_connect_data
        for row, item in enumerate(data):
            try:
                schema, value = convert(topics[row], item)
            except Exception as exc:
                on_error(row, self._as_converter_error(topics[row], exc))
                schema = value = None
            schemas.append(schema)
            values.append(value)
        if all(s is None for s in schemas):
            return None, values
        return schemas, values

    def _schema_id(self, topic: str, data: bytes) -> int:
        if len(data) < _HEADER_SIZE:
            raise self.error(
                topic, f"message of {len(data)} bytes is too short for the Confluent wire format (needs 5+)"
            )
        if data[0] != MAGIC_BYTE:
            raise self.error(topic, f"Unknown magic byte! Expected 0x00, found 0x{data[0]:02x}")
        return int.from_bytes(data[1:_HEADER_SIZE], "big")

    def _writer_schema(self, topic: str, schema_id: int) -> _AvroSchema:
        cached = self._by_id.get(schema_id)
        if cached is not None:
            return cached
        try:
            text = self.registry.schema_by_id(schema_id)
        except SchemaRegistryError as exc:
            if exc.error_code == 40403 or exc.status == 404:
                raise self.error(topic, f"schema id {schema_id} is unknown to the schema registry: {exc}") from exc
            raise self.error(topic, f"cannot fetch schema id {schema_id}: {exc}", exc.retriable) from exc
        try:
            cached = _AvroSchema(json.loads(text))
        except (ValueError, DataError, fastavro.schema.SchemaParseException) as exc:
            raise self.error(topic, f"schema id {schema_id} is not a usable Avro schema: {exc}") from exc
        self._by_id[schema_id] = cached
        return cached

    def _decode(self, topic: str, data: bytes, offset: int, writer: _AvroSchema, schema_id: int | None):
        buffer = io.BytesIO(data)
        buffer.seek(offset)
        reader = self._fixed if self._fixed is not None else writer
        try:
            raw = fastavro.schemaless_reader(
                buffer,
                writer.parsed,
                reader.parsed if reader is not writer else None,
                # Unions with several named branches come back as (name, value): see _unions.
                return_named_type=True,
                return_named_type_override=True,
            )
        except Exception as exc:  # fastavro raises EOFError, ValueError, IndexError, ... on bad bytes
            raise self.error(topic, _mismatch(writer, schema_id, f"{type(exc).__name__}: {exc}")) from exc
        left = len(data) - buffer.tell()
        if left:
            raise self.error(topic, _mismatch(writer, schema_id, f"{left} bytes left over after the record"))
        try:
            return reader.connect, reader.read(raw)
        except DataError as exc:
            raise self.error(topic, _mismatch(writer, schema_id, str(exc))) from exc

    # ------------------------------------------------------------ writing --
    def from_connect_data(self, topic: str, schema: Any, value: Any) -> bytes | None:
        if value is None:
            return None
        avro = self._schema_for_writing(topic, schema)
        try:
            record = avro.write(value)
            if not (isinstance(value, Struct) and avro.match(value.schema)):
                # A Struct was checked field by field as it was built; plain data was not,
                # and fastavro would write an out-of-range int without a word.
                fastavro.validation.validate(record, avro.parsed, raise_errors=True)
            buffer = io.BytesIO()
            if self.registry is not None:
                buffer.write(bytes([MAGIC_BYTE]))
                buffer.write(self._registered_id(topic, avro).to_bytes(4, "big"))
            fastavro.schemaless_writer(buffer, avro.parsed, record)
        except ConverterError:
            raise
        except DataError as exc:
            raise self.error(topic, f"cannot write value as Avro: {exc}") from exc
        except (ValueError, TypeError, AttributeError, KeyError, OverflowError, ValidationError) as exc:
            detail = (
                "; ".join(map(str, exc.errors)) if isinstance(exc, ValidationError) else f"{type(exc).__name__}: {exc}"
            )
            raise self.error(topic, f"value does not match Avro schema {_schema_label(avro)}: {detail}") from exc
        return buffer.getvalue()

    def _schema_for_writing(self, topic: str, schema: Schema | None) -> _AvroSchema:
        if self._fixed is not None:
            return self._fixed
        if self.registry is not None and not self.config["auto.register.schemas"] and self.config["use.latest.version"]:
            return self._latest(topic)
        if schema is None:
            raise self.error(
                topic, "cannot write a value without a schema: set avro.schema or give the record a schema"
            )
        cached = self._by_connect.get(schema)
        if cached is None:
            try:
                cached = _AvroSchema(to_avro_schema(schema), connect=schema)
            except (DataError, fastavro.schema.SchemaParseException) as exc:
                raise self.error(topic, f"cannot derive an Avro schema from {schema!r}: {exc}") from exc
            self._by_connect[schema] = cached
        return cached

    def _latest(self, topic: str) -> _AvroSchema:
        subject = subject_name(topic, self.is_key)
        try:
            latest = self.registry.latest(subject)
        except SchemaRegistryError as exc:
            raise self.error(topic, f"no latest schema for subject '{subject}': {exc}", exc.retriable) from exc
        self._ids[(subject, latest.schema)] = latest.id
        cached = self._by_id.get(latest.id)
        if cached is None:
            cached = self._by_id[latest.id] = _AvroSchema(json.loads(latest.schema))
        cached_text_key = (subject, cached.text)
        self._ids[cached_text_key] = latest.id
        return cached

    def _registered_id(self, topic: str, avro: _AvroSchema) -> int:
        subject = subject_name(topic, self.is_key)
        key = (subject, avro.text)
        schema_id = self._ids.get(key)
        if schema_id is not None:
            return schema_id
        try:
            if self.config["auto.register.schemas"]:
                schema_id = self.registry.register(subject, avro.text)
            else:
                schema_id = self.registry.lookup(subject, avro.text).id
        except SchemaRegistryError as exc:
            raise self.error(topic, f"cannot get a schema id under subject '{subject}': {exc}", exc.retriable) from exc
        self._ids[key] = schema_id
        return schema_id


def _load_fixed_schema(inline: str | None, file: str | None, prefix: str) -> _AvroSchema | None:
    loaded = load_schema_setting(inline, file, prefix + "avro.schema", "Avro schema")
    if loaded is None:
        return None
    key, schema = loaded
    try:
        return _AvroSchema(schema)
    except (DataError, fastavro.schema.SchemaParseException, KeyError, TypeError) as exc:
        raise ConfigError.for_key(key, f"is not a usable Avro schema: {exc}") from exc


def _schema_label(avro: _AvroSchema) -> str:
    return repr(avro.connect.name or avro.connect.type.value)


def _mismatch(writer: _AvroSchema, schema_id: int | None, detail: str) -> str:
    where = f" (schema id {schema_id})" if schema_id is not None else ""
    return f"Avro bytes do not match schema {_schema_label(writer)}{where}: {detail}"
