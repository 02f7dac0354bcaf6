"""The interface of a config provider (Kafka's ``org.apache.kafka.common.config.provider.ConfigProvider``)."""

from __future__ import annotations

from typing import AbstractSet

from smt.plugin import Plugin

__all__ = ["ConfigProvider"]


class ConfigProvider(Plugin):
    """Looks up the values of ``${name:[path:]key}`` variables.

    ``configure`` receives the ``config.providers.<name>.param.*`` keys with
    that prefix stripped.  ``get`` answers one path's keys at once.
    """

    def get(self, path: str, keys: AbstractSet[str]) -> dict[str, str]:
        """The values of those of ``keys`` that exist at ``path`` ("" when the variable has no path).

        A key it does not know is left out of the answer (the variable then
        stays as written).  Raises :class:`smt.errors.ConfigError` when the
        path is not valid for this provider or cannot be read, as Kafka's
        providers throw ``ConfigException``.
        """
        raise NotImplementedError
