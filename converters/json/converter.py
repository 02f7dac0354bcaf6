"""JsonConverter: Kafka Connect's JSON format, with or without the schema envelope."""

from __future__ import annotations

import decimal
import json
from itertools import repeat
from typing import Any, Mapping, Sequence

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from converters._binary import binary_column, with_nulls
from converters.json._codec import CodecOptions, json_type_name, needs_exact_numbers
from converters.json._deep import dumps_deep
from converters.json._reader import compile_reader
from converters.json._schema_json import from_json_schema, to_json_schema
from converters.json._validation import load_validator
from converters.json._writer import compile_writer, has_non_finite_float
from converters.json.compiled import EnvelopeReader
from converters.json.compiled_schemaless import SchemalessCodec
from smt.compiled import NotCompilable
from smt.config import ConfigDef, ConfigType, Importance, at_least, one_of
from smt.converter import Converter, ConverterError, HeaderConverter, OnError, raise_error
from smt.data import Schema
from smt.data.nesting import MAX_NESTING_DEPTH, NestingTooDeep, allow_deep_recursion, nesting_depth
from smt.errors import DataError
from smt.plugin import PluginContext

_ENVELOPE_ERROR = (
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not '
    "contain additional fields. If you are trying to deserialize plain JSON data, set "
    "schemas.enable=false in your converter configuration."
)
_DUMPS_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS


class JsonConverter(Converter, HeaderConverter):
    """Kafka Connect's JsonConverter: JSON text, optionally in a schema envelope.

    With ``schemas.enable=true`` (the default) each message is
    ``{"schema": ..., "payload": ...}``; without it the message is the bare
    payload and reads are schemaless (integers int64, decimals float64,
    objects maps).  ``json.schema`` or ``json.schema.file`` validate every
    payload against a JSON Schema.
    """

    name = "json"
    null_is_null = True  # null bytes <-> None, as in Kafka
    aliases = ("org.apache.kafka.connect.json.JsonConverter", "JsonConverter")
    config_def = (
        ConfigDef()
        .define(
            "schemas.enable",
            ConfigType.BOOLEAN,
            True,
            None,
            Importance.HIGH,
            "Include schemas within each of the serialized values and keys.",
        )
        .define(
            "schemas.cache.size",
            ConfigType.INT,
            1000,
            at_least(0),
            Importance.HIGH,
            "The maximum number of schemas that can be cached in this converter instance.",
        )
        .define(
            "decimal.format",
            ConfigType.STRING,
            "BASE64",
            one_of("BASE64", "NUMERIC", case_sensitive=False),
            Importance.LOW,
            "How to write Decimal values: BASE64 (base64 of the unscaled bytes) or NUMERIC (a JSON number).",
        )
        .define(
            "replace.null.with.default",
            ConfigType.BOOLEAN,
            True,
            None,
            Importance.LOW,
            "Whether a null field with a default value is written and read as that default.",
        )
        .define(
            "json.schema",
            ConfigType.STRING,
            None,
            None,
            Importance.MEDIUM,
            "An inline JSON Schema every payload must match; a record that does not is a converter error.",
        )
        .define(
            "json.schema.file",
            ConfigType.PATH,
            None,
            None,
            Importance.MEDIUM,
            "A file holding a JSON Schema every payload must match.",
        )
    )

    def configure(self, configs: Mapping[str, Any], is_key: bool = False, context: PluginContext | None = None) -> None:
        super().configure(configs, is_key, context)
        allow_deep_recursion()  # values up to the nesting limit, wherever the converter is used
        self.schemas_enabled: bool = self.config["schemas.enable"]
        # Schemaless reads are one orjson.loads per row: every value is new.
        # (With schemas, a reader may hand out a schema's default object.)
        self.fresh_values = not self.schemas_enabled
        self.options = CodecOptions(
            decimal_numeric=self.config["decimal.format"].upper() == "NUMERIC",
            replace_null_with_default=self.config["replace.null.with.default"],
        )
        self._cache_size = self.config["schemas.cache.size"]
        # Schema -> (schema JSON bytes, writer); schema JSON text -> (schema, reader, exact numbers).
        self._writers: dict[Schema, tuple[bytes, Any]] = {}
        self._readers: dict[bytes, tuple[Schema | None, Any, bool]] = {}
        self._prefixes: list[tuple[bytes, tuple]] = []  # see _read_known_schema
        self._last_written: tuple[Any, tuple[bytes, Any]] | None = None
        self._validator = load_validator(
            self.config["json.schema"], self.config["json.schema.file"], self.context.prefix
        )

    # ------------------------------------------------------------ writing --
    def from_connect_data(self, topic: str, schema: Any, value: Any) -> bytes | None:
        if schema is None and value is None:
            return None
        try:
            return self._write(schema, value)
        except ConverterError:
            raise
        except DataError as exc:
            raise self.error(topic, f"cannot write value as JSON: {exc}") from exc

    def from_connect_batch(
        self,
        topics: Sequence[str],
        schemas: Sequence[Any] | None,
        values: Sequence[Any],
        on_error: OnError = raise_error,
    ) -> list[bytes | None]:
        out = self.from_connect_column(topics, schemas, values, on_error)
        return out.to_pylist() if isinstance(out, pa.Array) else out

    def from_connect_column(
        self,
        topics: Sequence[str],
        schemas: Sequence[Any] | None,
        values: Sequence[Any],
        on_error: OnError = raise_error,
    ) -> pa.Array | list[bytes | None]:
        schemaless = schemas is None or not schemas or (schemas[0] is None and schemas.count(None) == len(schemas))
        if schemaless and not self.schemas_enabled and self._validator is None:
            return self._write_schemaless_batch(topics, values, on_error)
        return super().from_connect_batch(topics, schemas, values, on_error)

    def _write_schemaless_batch(self, topics, values, on_error) -> pa.Array | list[bytes | None]:
        dumps = orjson.dumps
        try:
            # One C call per record into one Arrow buffer (None writes as null,
            # set right below); any value orjson will not write as Kafka does
            # (bytes, non-string map keys, structs, datetimes) raises TypeError
            # and sends the batch the careful way.
            written = binary_column(map(dumps, values, repeat(None), repeat(_DUMPS_OPTIONS)), len(values))
        except TypeError:
            pass
        else:
            # orjson writes None, NaN and infinities as null: look closer only where a null was written.
            candidates = _rows_with_null(written)
            if not any(values[row] is not None and has_non_finite_float(values[row]) for row in candidates):
                return with_nulls(written, [row for row in candidates if values[row] is None])
        out = []
        for row, value in enumerate(values):
            if value is None:
                out.append(None)
                continue
            try:
                if has_non_finite_float(value):
                    raise TypeError("NaN or infinity")
                out.append(dumps(value, None, _DUMPS_OPTIONS))
            except (TypeError, RecursionError):
                # bytes, non-string map keys, structs...: the general writer knows Kafka's rules.
                try:
                    out.append(self._write(None, value))
                except DataError as exc:
                    on_error(row, self.error(topics[row], f"cannot write value as JSON: {exc}"))
                    out.append(None)
        return out

    def _write(self, schema: Schema | None, value: Any) -> bytes:
        schema_bytes, writer = self._writer_for(schema)
        try:
            payload = writer(value)
        except RecursionError as exc:  # deeper than any walk goes (see smt.data.nesting)
            raise NestingTooDeep() from exc
        if self._validator is not None:
            self._validator.validate(_plain_json(payload))
        try:
            payload_bytes = orjson.dumps(payload)
        except TypeError as exc:
            if str(exc) == _ORJSON_TOO_DEEP:
                return self._enveloped(schema_bytes, dumps_deep(payload))
            raise DataError(
                f"Converting Kafka Connect data to byte[] failed due to serialization error: {exc}"
            ) from exc
        return self._enveloped(schema_bytes, payload_bytes)

    def _enveloped(self, schema_bytes: bytes, payload_bytes: bytes) -> bytes:
        if not self.schemas_enabled:
            return payload_bytes
        return b'{"schema":' + schema_bytes + b',"payload":' + payload_bytes + b"}"

    def _writer_for(self, schema: Schema | None) -> tuple[bytes, Any]:
        last = self._last_written
        if last is not None and last[0] is schema:
            return last[1]  # the common case: one schema object for a run of records
        if schema is None:
            cached = (b"null", compile_writer(None, self.options))
        else:
            cached = self._writers.get(schema)
            if cached is None:
                cached = (orjson.dumps(to_json_schema(schema, self.options)), compile_writer(schema, self.options))
                self._remember(self._writers, schema, cached)
        self._last_written = (schema, cached)
        return cached

    def _remember(self, cache: dict, key: Any, value: Any) -> None:
        if self._cache_size <= 0:
            return
        if len(cache) >= self._cache_size:
            cache.pop(next(iter(cache)))
        cache[key] = value

    # ------------------------------------------------------------ reading --
    def to_connect_data(self, topic: str, data: bytes | None) -> tuple[Any, Any]:
        if data is None:
            return None, None
        return self._read(topic, data)

    def to_connect_batch(
        self,
        topics: Sequence[str],
        data: Sequence[bytes | None],
        on_error: OnError = raise_error,
    ) -> tuple[list[Any] | None, list[Any]]:
        if not self.schemas_enabled:
            return None, self._read_schemaless_batch(topics, data, on_error)
        schemas: list[Any] = []
        values: list[Any] = []
        for row, item in enumerate(data):
            schema = value = None
            if item is not None:
                try:
                    schema, value = self._read(topics[row], item)
                except Exception as exc:
                    on_error(row, self._as_converter_error(topics[row], exc))
            schemas.append(schema)
            values.append(value)
        if all(s is None for s in schemas):
            return None, values
        return schemas, values

    def _read_schemaless_batch(self, topics, data, on_error) -> list[Any]:
        loads = orjson.loads
        validator = self._validator
        if validator is None:
            try:
                values = [None if d is None else loads(d) for d in data]
            except orjson.JSONDecodeError:
                pass  # find and report the bad rows one by one
            else:
                if not _any_may_nest_too_deep(data):
                    return values
        values: list[Any] = []
        for row, item in enumerate(data):
            if item is None or _is_blank(item):
                values.append(None)
                continue
            try:
                value = _loads(item)
            except orjson.JSONDecodeError as exc:
                value = None
                on_error(row, self._malformed(topics[row], item, exc))
            except NestingTooDeep as exc:
                value = None
                on_error(row, self.error(topics[row], f"cannot read JSON: {exc}"))
            else:
                if validator is not None:
                    try:
                        validator.validate(value)
                    except DataError as exc:
                        on_error(row, self.error(topics[row], str(exc)))
                        value = None
            values.append(value)
        return values

    def _read(self, topic: str, data: bytes) -> tuple[Any, Any]:
        if self.schemas_enabled:
            fast = self._read_known_schema(data)
            if fast is not None:
                entry, payload = fast
                return self._read_payload(topic, data, entry, payload)
        if _is_blank(data):
            if not self.schemas_enabled:
                return None, None
            raise self.error(topic, f"{_ENVELOPE_ERROR} Found: no JSON document")
        try:
            document = _loads(data)
        except orjson.JSONDecodeError as exc:
            raise self._malformed(topic, data, exc) from exc
        except NestingTooDeep as exc:
            raise self.error(topic, f"cannot read JSON: {exc}") from exc
        if not self.schemas_enabled:
            self._validate_payload(topic, document)
            return None, document
        if not (isinstance(document, dict) and len(document) == 2 and "schema" in document and "payload" in document):
            raise self.error(topic, f"{_ENVELOPE_ERROR} Found: {_describe(document)}")
        schema_node = document["schema"]
        try:
            entry = self._reader_for(schema_node)
        except DataError as exc:
            raise self.error(topic, f"cannot read JSON schema: {exc}") from exc
        self._learn_prefix(data, schema_node, entry)
        return self._read_payload(topic, data, entry, document["payload"])

    def _read_payload(self, topic: str, data: bytes, entry: tuple, payload: Any) -> tuple[Any, Any]:
        schema, reader, exact = entry
        try:
            if exact:
                # Decimals must keep every digit: read the numbers again without floats.
                payload = json.loads(data, parse_float=decimal.Decimal)["payload"]
            self._validate_payload(topic, payload)
            return schema, reader(payload)
        except ConverterError:
            raise
        except DataError as exc:
            raise self.error(topic, f"cannot read JSON payload: {exc}") from exc

    # Most messages on a topic repeat the same schema text.  Once a message's
    # bytes are known to start with '{"schema":<S>,"payload":' for a schema S
    # already parsed, the next message with that exact prefix needs only its
    # payload parsed: a whole-document parse is several times more work.
    def _read_known_schema(self, data: bytes) -> tuple[tuple, Any] | None:
        for prefix, entry in self._prefixes:
            if data.startswith(prefix):
                rest = data[len(prefix) :].rstrip()
                if not rest.endswith(b"}"):
                    return None
                try:
                    return entry, orjson.loads(rest[:-1])
                except orjson.JSONDecodeError:
                    return None  # let the full parse report (or accept) it
        return None

    def _learn_prefix(self, data: bytes, schema_node: Any, entry: tuple) -> None:
        head = b'{"schema":'
        marker = b',"payload":'
        if not data.startswith(head):
            return
        position = data.find(marker, len(head))
        while position != -1:
            try:
                if orjson.loads(data[len(head) : position]) == schema_node:
                    prefix = data[: position + len(marker)]
                    self._prefixes = [(prefix, entry)] + [p for p in self._prefixes if p[0] != prefix][:3]
                    return
            except orjson.JSONDecodeError:
                pass
            position = data.find(marker, position + 1)

    def _reader_for(self, schema_node: Any) -> tuple[Schema | None, Any, bool]:
        if schema_node is None:
            return None, compile_reader(None, self.options), False
        key = orjson.dumps(schema_node, option=orjson.OPT_SORT_KEYS)
        cached = self._readers.get(key)
        if cached is None:
            schema = from_json_schema(schema_node, self.options)
            cached = (schema, compile_reader(schema, self.options), needs_exact_numbers(schema))
            self._remember(self._readers, key, cached)
        return cached

    def _validate_payload(self, topic: str, payload: Any) -> None:
        if self._validator is not None:
            try:
                self._validator.validate(payload)
            except DataError as exc:
                raise self.error(topic, str(exc)) from exc

    def _malformed(self, topic: str, data: bytes, exc: Exception) -> DataError:
        if str(exc).startswith("depth limit exceeded"):  # orjson stops reading at 1024 levels
            return self.error(topic, f"cannot read JSON: {NestingTooDeep()}")
        return self.error(
            topic,
            f"Converting byte[] to Kafka Connect data failed due to serialization error: "
            f"malformed JSON ({exc}) in {_preview(data)}",
        )

    # ------------------------------------------------------------ headers --
    def from_connect_header(self, topic, header_key, schema, value):
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic, header_key, data):
        return self.to_connect_data(topic, data)

    # ----------------------------------------------------------- compiled --
    @classmethod
    def compiled_form(cls) -> str:
        """What the compiled path reads (:class:`smt.compiled.CompiledStage`)."""
        return "values with schemas (structs of primitives and of flat structs), schemas.enable=true"

    def compiled_record_codec(self, functions: Any) -> SchemalessCodec:
        """Spark's reading and writing of schemaless records, for the JVM streaming path (see
        :mod:`converters.json.compiled_schemaless`); raises :class:`NotCompilable` saying why not."""
        return SchemalessCodec.of(self, self._validator, functions)

    def compiled_reader(self, functions: Any) -> EnvelopeReader:
        """Spark's reading of envelope records, for the compiled path (see :mod:`converters.json.compiled`).

        ``functions`` is ``pyspark.sql.functions``.  Raises :class:`NotCompilable` saying why not.
        """
        if not self.schemas_enabled:
            raise NotCompilable(f"{self.context.prefix}schemas.enable=false: values have no schema")
        if self._validator is not None:
            raise NotCompilable("payloads are validated against a JSON Schema")
        return EnvelopeReader(self.options, functions)


#: orjson's refusal to write past its 254 levels (JSONEncodeError, a TypeError).
_ORJSON_TOO_DEEP = "Recursion limit reached"


def _may_nest_too_deep(data: bytes | None) -> bool:
    # A document nested N levels deep opens N brackets: documents with fewer need no walk.
    return (
        data is not None
        and len(data) > 2 * MAX_NESTING_DEPTH
        and data.count(b"[") + data.count(b"{") > MAX_NESTING_DEPTH
    )


def _any_may_nest_too_deep(data: list) -> bool:
    # Per batch: one length scan in C first, since a document too deep is longer than 2 × the limit.
    if max(map(len, filter(None, data)), default=0) <= 2 * MAX_NESTING_DEPTH:
        return False
    return any(map(_may_nest_too_deep, data))


def _loads(data: bytes) -> Any:
    """``orjson.loads``, refusing (like Jackson) what nests deeper than the limit; orjson reads up to 1024."""
    value = orjson.loads(data)
    if _may_nest_too_deep(data) and nesting_depth(value) > MAX_NESTING_DEPTH:
        raise NestingTooDeep()
    return value


def _is_blank(data: bytes) -> bool:
    """No JSON document, only whitespace: Jackson reads it as a missing node, which is a null value."""
    return not bytes(data).strip(b" \t\r\n")


def _preview(data: bytes, limit: int = 60) -> str:
    text = bytes(data[:limit]).decode("utf-8", "replace")
    return repr(text + ("..." if len(data) > limit else ""))


def _describe(document: Any) -> str:
    if isinstance(document, dict):
        return "an object with keys " + ", ".join(sorted(map(repr, document))) if document else "an empty object"
    return f"a JSON {json_type_name(document).lower()}"


def _plain_json(payload: Any) -> Any:
    # NUMERIC decimals are orjson Fragments; the JSON Schema validator needs plain numbers.
    return orjson.loads(orjson.dumps(payload))


def _rows_with_null(written: pa.Array) -> list[int]:
    """The rows whose JSON contains the text ``null`` (None, or candidates for NaN written as null)."""
    # One vectorised scan of the whole buffer settles the usual case, no null anywhere;
    # Arrow's per-row search costs ten times more and runs only when there is one.
    if not _has_null_text(written.buffers()[2]):
        return []
    hits = pc.match_substring(written, "null")
    return np.flatnonzero(hits.to_numpy(zero_copy_only=False)).tolist()


_NULL_WORD = int.from_bytes(b"null", "little")


def _has_null_text(data: pa.Buffer | None) -> bool:
    """True when ``data`` contains ``null``: its 4-byte words compared at each of the 4 alignments."""
    if data is None:
        return False
    view = memoryview(data)
    return any(
        bool((np.frombuffer(view, np.uint32, count=(len(view) - start) // 4, offset=start) == _NULL_WORD).any())
        for start in range(min(4, len(view)))
    )
