"""Plugins: pluggy hook specs, the plugin manager and the registry."""

import pluggy

from smt.plugins._manager import (
    BUILTIN_PLUGIN_MODULES,
    ENTRY_POINT_GROUP,
    Plugins,
    Registration,
    UnknownPluginError,
    create_plugin_manager,
    default_plugins,
    load_plugins,
)

#: Decorator for hook implementations: ``@hookimpl def smt_transforms(): ...``
hookimpl = pluggy.HookimplMarker("smt")

__all__ = [
    "BUILTIN_PLUGIN_MODULES",
    "ENTRY_POINT_GROUP",
    "Plugins",
    "Registration",
    "UnknownPluginError",
    "create_plugin_manager",
    "default_plugins",
    "hookimpl",
    "load_plugins",
]
