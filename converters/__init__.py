"""Converters: bytes at the boundary to and from the data transforms work on.

Built in (names, then Kafka class aliases): ``bytearray``, ``string``,
``json`` (JsonConverter), ``avro`` (Confluent's AvroConverter, with a schema
registry client in :mod:`converters.schema_registry`) and ``simple``
(SimpleHeaderConverter).  :func:`load` gives a configured one by name, alias
or class; a failed record is a :class:`ConverterError` naming the converter,
its stage and the topic.
"""

from __future__ import annotations

from typing import Any, Mapping

from converters.base import Converter, ConverterError, HeaderConverter, OnError, RetriableConverterError
from smt.plugin import PluginContext

__all__ = ["Converter", "ConverterError", "HeaderConverter", "OnError", "RetriableConverterError", "load"]


def load(
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
