"""Kafka's three config providers, with Kafka's semantics (``org.apache.kafka.common.config.provider``).

- :class:`EnvVarConfigProvider`: ``${env:NAME}``, the environment variable
  ``NAME`` (no path allowed); ``allowlist.pattern`` limits which variables it
  serves (the whole name must match).
- :class:`FileConfigProvider`: ``${file:PATH:KEY}``, the value of ``KEY`` in
  the properties file ``PATH`` (UTF-8).
- :class:`DirectoryConfigProvider`: ``${dir:PATH:FILE}``, the whole content of
  the regular file ``FILE`` in the folder ``PATH`` (UTF-8, trailing line break
  kept, as in Kafka: Kubernetes secrets are written without one).

Both file providers take ``allowed.paths``: a comma-separated list of absolute
paths that must exist; a path outside them is refused with a warning and its
variables stay as written.  Relative paths are relative to the current
directory, as in Kafka (not to the pipeline file).
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import PurePath
from typing import AbstractSet, Any, Mapping

from smt.config import ConfigDef, ConfigType, Importance
from smt.config_providers._provider import ConfigProvider
from smt.errors import ConfigError
from smt.plugin import PluginContext

__all__ = ["DirectoryConfigProvider", "EnvVarConfigProvider", "FileConfigProvider"]

log = logging.getLogger("smt.config_providers")

_KAFKA_PACKAGE = "org.apache.kafka.common.config.provider"
_ALLOWED_PATHS_DOC = ("A comma separated list of paths that this config provider is allowed to access. "
                      "If not set, all paths are allowed.")  # fmt: skip


def _regex(value: Any) -> None:
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"is not a valid regular expression: {exc}") from None


class EnvVarConfigProvider(ConfigProvider):
    """Environment variables: ``${env:NAME}``; a path is an error."""

    name = "EnvVarConfigProvider"
    aliases = (f"{_KAFKA_PACKAGE}.EnvVarConfigProvider",)
    config_def = ConfigDef().define(
        "allowlist.pattern", ConfigType.STRING, ".*", _regex, Importance.MEDIUM,
        "A pattern / regular expression that needs to match for environment variables to be used "
        "by this config provider (the whole name must match).",
    )  # fmt: skip

    def configure(self, configs: Mapping[str, Any], context: PluginContext | None = None) -> None:
        super().configure(configs, context)
        pattern = re.compile(self.config["allowlist.pattern"])
        self._variables = {name: value for name, value in os.environ.items() if pattern.fullmatch(name)}

    def get(self, path: str, keys: AbstractSet[str]) -> dict[str, str]:
        if path:
            raise ConfigError(f"Path is not supported for EnvVarConfigProvider, invalid value '{path}'")
        return {key: self._variables[key] for key in keys if key in self._variables}


class _AllowedPaths:
    """Kafka's ``AllowedPaths``: absolute, existing paths; a path is allowed if it lies under one."""

    def __init__(self, value: str, key: str) -> None:
        self._paths: list[PurePath] | None = None
        if value:
            self._paths = []
            for item in value.split(","):
                path = os.path.normpath(item)
                if not os.path.isabs(path):
                    raise ConfigError.for_key(key, f"Path {path} is not absolute", value)
                if not os.path.exists(path):
                    raise ConfigError.for_key(key, f"Path {path} does not exist", value)
                self._paths.append(PurePath(path))

    def parse_untrusted(self, path: str) -> str | None:
        """``path`` (normalised when limited) if it may be read, else None."""
        if self._paths is None:
            return path
        normalised = PurePath(os.path.normpath(path))
        # Path.startsWith in Java compares whole elements: /data is not under /dat.
        if any(normalised.parts[: len(allowed.parts)] == allowed.parts for allowed in self._paths):
            return str(normalised)
        return None


class _PathProvider(ConfigProvider):
    """A provider that reads files, limited by ``allowed.paths``."""

    def configure(self, configs: Mapping[str, Any], context: PluginContext | None = None) -> None:
        super().configure(configs, context)
        key = f"{self.context.prefix}allowed.paths"
        self._allowed = _AllowedPaths(self.config["allowed.paths"], key)

    def _allowed_path(self, path: str) -> str | None:
        allowed = self._allowed.parse_untrusted(path)
        if allowed is None:
            log.warning("The path %s is not allowed to be accessed", path)
        return allowed


class FileConfigProvider(_PathProvider):
    """Properties files: ``${file:PATH:KEY}`` is ``KEY``'s value in the file ``PATH``."""

    name = "FileConfigProvider"
    aliases = (f"{_KAFKA_PACKAGE}.FileConfigProvider",)
    config_def = ConfigDef().define("allowed.paths", ConfigType.STRING, "", None, Importance.MEDIUM, _ALLOWED_PATHS_DOC)

    def get(self, path: str, keys: AbstractSet[str]) -> dict[str, str]:
        from smt.properties import PropertiesError, load_properties

        if not path or (allowed := self._allowed_path(path)) is None:
            return {}
        try:
            properties = load_properties(allowed)
        except PropertiesError as exc:
            raise ConfigError(f"Could not read properties from file {path}: {exc.problems[0].reason}") from exc
        return {key: properties[key] for key in keys if key in properties}


class DirectoryConfigProvider(_PathProvider):
    """Folders of files: ``${dir:PATH:NAME}`` is the content of the file ``NAME`` in the folder ``PATH``."""

    name = "DirectoryConfigProvider"
    aliases = (f"{_KAFKA_PACKAGE}.DirectoryConfigProvider",)
    config_def = ConfigDef().define("allowed.paths", ConfigType.STRING, "", None, Importance.MEDIUM, _ALLOWED_PATHS_DOC)

    def get(self, path: str, keys: AbstractSet[str]) -> dict[str, str]:
        if not path or (folder := self._allowed_path(path)) is None:
            return {}
        if not os.path.isdir(folder):
            log.warning("The path %s is not a directory", path)
            return {}
        try:
            names = os.listdir(folder)
        except OSError as exc:
            raise ConfigError(f"Could not list directory {folder}: {exc.strerror or exc}") from exc
        wanted = [n for n in names if n in keys and os.path.isfile(os.path.join(folder, n))]
        return {name: _read_text(os.path.join(folder, name), name) for name in wanted}


def _read_text(path: str, name: str) -> str:
    try:
        with open(path, "rb") as handle:
            # Java's new String(bytes, UTF_8) replaces malformed bytes; so do we.
            return handle.read().decode("utf-8", errors="replace")
    except OSError as exc:
        raise ConfigError(f"Could not read file {path} for property {name}: {exc.strerror or exc}") from exc
