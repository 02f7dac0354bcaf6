"""Pickling built-in plugins by their configuration.

A configured transform holds compiled state (closures, compiled patterns,
schema caches) that need not travel.  Pickling one records only its class,
its raw configuration and where it was configured; unpickling configures a
fresh instance, so executors rebuild exactly what the driver validated.
"""

from __future__ import annotations

from typing import Any

from smt.plugin import PluginContext

__all__ = ["Reconfigurable"]


class Reconfigurable:
    """Mixin: ``pickle`` a configured plugin as (class, raw config, alias, prefix)."""

    def __reduce__(self):
        context = getattr(self, "context", None)
        if not hasattr(self, "raw_config"):
            return (type(self), ())
        return (
            _rebuild,
            (type(self), self.raw_config, context.alias if context else "", context.prefix if context else ""),
        )


def _rebuild(cls: type, raw_config: dict[str, Any], alias: str, prefix: str) -> Any:
    plugin = cls()
    plugin.configure(raw_config, PluginContext(alias=alias, prefix=prefix))
    return plugin
