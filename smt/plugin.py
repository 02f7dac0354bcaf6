"""The base every configurable plugin (transform, predicate, converter, connector) shares."""

from __future__ import annotations

import inspect
import logging
from typing import Any, ClassVar, Mapping

from smt.config import ConfigDef

__all__ = ["Plugin", "PluginContext"]


class PluginContext:
    """What a plugin learns about where it is configured.

    ``prefix`` is the full key prefix of its configuration (for example
    ``transforms.mask.``), used to name keys in errors; ``alias`` the name the
    user gave it; ``plugins`` the :class:`smt.plugins.Plugins` registry, to
    load nested plugins such as a transform's own converters; ``pipeline`` the
    pipeline's ``name`` (empty outside a pipeline), which Kafka Connect names a
    connector's consumer group after.
    """

    def __init__(self, alias: str = "", prefix: str = "", plugins: Any = None, pipeline: str = "") -> None:
        self.alias = alias
        self.prefix = prefix
        self._plugins = plugins
        self.pipeline = pipeline

    @property
    def plugins(self) -> Any:
        if self._plugins is None:
            from smt.plugins import default_plugins

            self._plugins = default_plugins()
        return self._plugins

    def logger(self, kind: str) -> logging.Logger:
        return logging.getLogger(f"smt.{kind}.{self.alias}" if self.alias else f"smt.{kind}")

    def __getstate__(self) -> dict[str, Any]:
        # The registry serves configure(), on the driver.  Pickled with each plugin to the
        # executors, it would make every Python worker import every installed plugin (wasmtime,
        # Avro, Kafka: about a second a worker) for a pipeline that uses none of them; an
        # executor that asks for it loads its own.
        return {**self.__dict__, "_plugins": None}


class Plugin:
    """A configurable plugin.

    Subclasses set ``name`` (the short name users type), optionally
    ``aliases`` (for example Kafka Connect class names), and ``config_def``;
    the class docstring's first paragraph is its overview in the generated
    reference.  ``configure`` receives the plugin's own keys with the prefix
    stripped, as Kafka Connect hands them over.
    """

    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    config_def: ClassVar[ConfigDef] = ConfigDef()

    def configure(self, configs: Mapping[str, Any], context: PluginContext | None = None) -> None:
        """Parse and validate ``configs`` against ``config_def``.

        Raises :class:`smt.errors.ConfigError` naming each bad key in full.
        Subclasses that override it call ``super().configure(...)`` first and
        read ``self.config``.
        """
        self.context = context or PluginContext()
        self.raw_config = dict(configs)
        self.config = self.config_def.parse(configs, prefix=self.context.prefix)

    def close(self) -> None:
        """Release what the plugin holds. Called once, when the chain closes."""

    @classmethod
    def overview(cls) -> str:
        """The first paragraph of the class docstring, on one line (indentation and line breaks folded)."""
        doc = inspect.cleandoc(cls.__doc__ or "")
        return " ".join(doc.split("\n\n", 1)[0].split())

    @classmethod
    def class_name(cls) -> str:
        return f"{cls.__module__}.{cls.__qualname__}"
