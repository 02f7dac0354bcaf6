"""The converter interfaces, mirroring Kafka Connect's in Python naming.

They live in the core with the other plugin interfaces, so that plugins which
convert (the Wasm transform) need only the core; the built-in converters
implement them in :mod:`converters`.

A :class:`Converter` turns the bytes a connector reads into the data a
transform works on (``to_connect_data``) and back (``from_connect_data``).
A :class:`HeaderConverter` does the same for one header value.

Converters sit on the hot path, so each also has batch methods that convert a
whole column at once; the defaults loop over the single-record methods, and
fast converters override them.  A record that fails is reported through
``on_error(row, exc)`` and its slot in the result is ``None``; the pipeline
turns that into a KEY_CONVERTER / VALUE_CONVERTER / HEADER_CONVERTER error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Sequence

from smt.errors import DataError, RetriableError, Stage
from smt.plugin import Plugin, PluginContext

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

__all__ = [
    "Converter",
    "ConverterError",
    "HeaderConverter",
    "OnError",
    "RetriableConverterError",
    "load_converter",
    "raise_error",
]

#: Called with (row index, exception) for a value that could not be converted.
OnError = Callable[[int, BaseException], None]


def raise_error(row: int, exc: BaseException) -> None:
    """The default :data:`OnError`: the first value that cannot be converted raises."""
    raise exc


class ConverterError(DataError):
    """A record a converter could not convert.

    The message names the converter class, the stage (KEY_CONVERTER,
    VALUE_CONVERTER or HEADER_CONVERTER), the topic and what was wrong;
    ``converter``, ``stage``, ``topic`` and ``reason`` hold the parts.
    """

    def __init__(self, converter: str, stage: Stage, topic: str | None, reason: str) -> None:
        self.converter = converter
        self.stage = stage
        self.topic = topic
        self.reason = reason
        super().__init__(f"{converter} ({stage.value}) failed on topic '{topic}': {reason}")

    def __reduce__(self):
        return (ConverterError, (self.converter, self.stage, self.topic, self.reason))


class RetriableConverterError(ConverterError, RetriableError):
    """A converter failure that may pass if retried (a schema registry that is down)."""

    def __reduce__(self):
        return (RetriableConverterError, (self.converter, self.stage, self.topic, self.reason))


class Converter(Plugin):
    """Converts keys or values between bytes and structured data."""

    #: True when the converter leaves bytes exactly as they are (ByteArray):
    #: the pipeline may then keep the column in Arrow form end to end.
    passthrough: ClassVar[bool] = False

    #: True when a null datum always reads as ``(None, None)`` and a null
    #: value without a schema always writes as a null datum.  The pipeline
    #: then passes an all-null column (the usual key column of a file
    #: pipeline) through without a call per row.
    null_is_null: ClassVar[bool] = False

    #: True when ``to_connect_batch`` returns a new top-level value for every
    #: row, shared with nothing (no cache, no row reusing another's object).
    #: The pipeline's batch then owns those values (see :mod:`smt.batch`),
    #: so map transforms update them in place instead of copying them first.
    fresh_values: ClassVar[bool] = False

    is_key: bool = False

    @property
    def stage(self) -> Stage:
        return Stage.KEY_CONVERTER if self.is_key else Stage.VALUE_CONVERTER

    def error(self, topic: str | None, reason: str, retriable: bool = False) -> ConverterError:
        """A :class:`ConverterError` for this converter, its stage and ``topic``."""
        cls = RetriableConverterError if retriable else ConverterError
        return cls(type(self).__name__, self.stage, topic, reason)

    def _as_converter_error(self, topic: str, exc: Exception) -> ConverterError:
        # Name the converter, stage and topic even for an unexpected failure (a bug):
        # the batch goes on, and the record fails with a message that says where.
        if isinstance(exc, ConverterError):
            return exc
        error = self.error(topic, f"{type(exc).__name__}: {exc}", retriable=isinstance(exc, RetriableError))
        error.__cause__ = exc
        return error

    def configure(
        self,
        configs: Mapping[str, Any],
        is_key: bool = False,
        context: PluginContext | None = None,
    ) -> None:
        self.is_key = is_key
        super().configure(configs, context)

    def __reduce__(self):
        # Spark ships converters to executors: send the configuration, not the
        # caches and compiled per-schema functions, and configure afresh there.
        if not hasattr(self, "raw_config"):
            return (type(self), ())
        context = self.context
        return (_reconfigured, (type(self), self.raw_config, self.is_key, context.alias, context.prefix))

    def from_connect_data(self, topic: str, schema: Any, value: Any) -> bytes | None:
        """Serialize ``value`` (described by ``schema``, or None) to bytes."""
        raise NotImplementedError

    def to_connect_data(self, topic: str, data: bytes | None) -> tuple[Any, Any]:
        """Deserialize ``data`` to ``(schema, value)``; schema is None when schemaless."""
        raise NotImplementedError

    def from_connect_batch(
        self,
        topics: Sequence[str],
        schemas: Sequence[Any] | None,
        values: Sequence[Any],
        on_error: OnError = raise_error,
    ) -> list[bytes | None]:
        """``from_connect_data`` for a whole column."""
        out: list[bytes | None] = []
        convert = self.from_connect_data
        schema_list = schemas if schemas is not None else [None] * len(values)
        for row, (topic, schema, value) in enumerate(zip(topics, schema_list, values)):
            try:
                out.append(convert(topic, schema, value))
            except Exception as exc:
                on_error(row, exc)
                out.append(None)
        return out

    def from_connect_column(
        self,
        topics: Sequence[str],
        schemas: Sequence[Any] | None,
        values: Sequence[Any],
        on_error: OnError = raise_error,
    ) -> pa.Array | list[bytes | None]:
        """``from_connect_batch``, as an Arrow ``binary`` array where the converter can build one.

        The pipeline calls this one: a converter that writes straight into an
        Arrow buffer saves an object allocation per record.  The default
        returns ``from_connect_batch``'s list.
        """
        return self.from_connect_batch(topics, schemas, values, on_error)

    def to_connect_batch(
        self,
        topics: Sequence[str],
        data: Sequence[bytes | None],
        on_error: OnError = raise_error,
    ) -> tuple[list[Any] | None, list[Any]]:
        """``to_connect_data`` for a whole column: ``(schemas or None, values)``.

        Returns ``None`` for the schemas when every schema is None.
        """
        schemas: list[Any] = []
        values: list[Any] = []
        convert = self.to_connect_data
        for row, (topic, item) in enumerate(zip(topics, data)):
            try:
                schema, value = convert(topic, item)
            except Exception as exc:
                on_error(row, exc)
                schema, value = None, None
            schemas.append(schema)
            values.append(value)
        if all(s is None for s in schemas):
            return None, values
        return schemas, values


def _reconfigured(cls: type, raw_config: dict, is_key: bool, alias: str, prefix: str) -> "Converter":
    converter = cls()
    converter.configure(raw_config, is_key=is_key, context=PluginContext(alias=alias, prefix=prefix))
    return converter


class HeaderConverter(Plugin):
    """Converts one header value between bytes and structured data."""

    def header_error(self, topic: str | None, header_key: str, reason: str) -> ConverterError:
        """A :class:`ConverterError` at the HEADER_CONVERTER stage naming the header."""
        return ConverterError(type(self).__name__, Stage.HEADER_CONVERTER, topic, f"header '{header_key}': {reason}")

    def configure(self, configs: Mapping[str, Any], context: PluginContext | None = None) -> None:
        super().configure(configs, context)

    def from_connect_header(self, topic: str, header_key: str, schema: Any, value: Any) -> bytes | None:
        raise NotImplementedError

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> tuple[Any, Any]:
        raise NotImplementedError


def load_converter(
    name_or_class: str | type,
    configs: Mapping[str, Any] | None = None,
    is_key: bool = False,
    *,
    context: PluginContext | None = None,
    plugins: Any = None,
) -> Any:
    """A configured converter for a registered name, alias or class.

    Raises ``KeyError`` for an unknown name and :class:`smt.errors.ConfigError`
    for bad ``configs``.
    """
    if isinstance(name_or_class, str):
        if plugins is None:
            from smt.plugins import default_plugins

            plugins = default_plugins()
        cls = plugins.get("converter", name_or_class)
    else:
        cls = name_or_class
    converter = cls()
    configs = dict(configs or {})
    if isinstance(converter, Converter):
        converter.configure(configs, is_key=is_key, context=context)
    else:
        converter.configure(configs, context=context)
    return converter
