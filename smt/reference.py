"""The Markdown reference of every registered plugin, generated from the registry.

Like Kafka's configuration docs, it is built from what the code declares (each
class's name, aliases, docstring overview and ``config_def``), so it cannot
drift from the code.  ``smt plugins --docs`` prints it.
"""

from __future__ import annotations

from typing import Any

from smt.plugins import Plugins, default_plugins

__all__ = ["plugin_reference_markdown"]

#: Kinds in the order they appear, with their section titles.  Connectors
#: are registered through one hook but looked up as sources or sinks.
_SECTIONS = {
    "transform": "Transforms",
    "predicate": "Predicates",
    "converter": "Converters",
    "source": "Source connectors",
    "sink": "Sink connectors",
    "config_provider": "Config providers",
}


def plugin_reference_markdown(plugins: Plugins | None = None) -> str:
    """The reference for every plugin in ``plugins`` (default: all installed)."""
    plugins = plugins or default_plugins()
    parts = ["# Plugin reference"]
    for kind, title in _SECTIONS.items():
        parts.append(f"## {title}")
        registrations = sorted(plugins.registrations(kind), key=lambda r: r.name)
        if not registrations:
            parts.append(f"_No {title.lower()} registered._")
        parts.extend(_plugin_section(registration) for registration in registrations)
    return "\n\n".join(parts) + "\n"


def _plugin_section(registration: Any) -> str:
    cls = registration.cls
    lines = [f"### `{registration.name}`", ""]
    overview = cls.overview()
    if overview:
        lines += [overview, ""]
    if registration.aliases:
        lines.append("- Aliases: " + ", ".join(f"`{alias}`" for alias in registration.aliases))
    lines.append(f"- Class: `{cls.__module__}.{cls.__qualname__}`")
    lines.append(f"- Provided by: `{registration.origin}`")
    lines.append("")
    if cls.config_def.keys:
        lines.append(cls.config_def.to_markdown())
    else:
        lines.append("_No configuration keys._")
    return "\n".join(lines)
