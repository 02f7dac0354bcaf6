"""The Markdown reference of every key a pipeline file may set, generated from the declarations.

Like Kafka's configuration docs, it is built from what the code declares (the
pipeline's top-level keys, the chain's keys, and for each registered plugin
its name, aliases, docstring overview and ``config_def``), so it cannot drift
from the code.  Every key is shown as a pipeline file spells it, prefix
included (``transforms.<alias>.spec``).  ``smt plugins --docs`` prints it;
``docs/reference.md`` is its built-in part, checked by a test.
"""

from __future__ import annotations

import difflib
from typing import Any, NamedTuple, Sequence

from smt._chain_builder import CHAIN_LISTS_CONFIG, PREDICATE_STAGE_CONFIG, STAGE_CONFIG
from smt.config import ConfigDef
from smt.error_handling import ERRORS_CONFIG
from smt.errors import SmtError
from smt.pipeline.compiled_plan import compile_config
from smt.pipeline.spec import PIPELINE_CONFIG
from smt.pipeline.streaming import STREAMING_CONFIG
from smt.plugins import Plugins, default_plugins

__all__ = ["plugin_reference", "reference_markdown"]

_HEADER = """# Configuration reference

Every key of a pipeline file, generated from the configuration declarations in the code
(`smt plugins --docs` prints it, with the plugins installed next to spark-smt;
`smt plugins --docs NAME` one plugin's)."""

#: For the file in the repository only: users reading `smt plugins --docs` edit nothing.
_CONTRIBUTOR_NOTE = """Do not edit `docs/reference.md` by hand: regenerate it with
`smt plugins --docs --builtin-only > docs/reference.md`."""

_TABLE_HEADER = ["| key | type | default | importance | description |", "|---|---|---|---|---|"]


class _Kind(NamedTuple):
    """A kind of plugin as the reference shows it: where its keys go in a pipeline file."""

    kind: str
    title: str
    prefix: str
    where: str


#: Kinds in the order they appear.  Connectors are registered through one
#: hook but looked up as sources or sinks.
_KINDS = (
    _Kind("transform", "Transforms", "transforms.<alias>.",
          "Keys go under `transforms.<alias>.`, `<alias>` being a name listed in `transforms`."),
    _Kind("predicate", "Predicates", "predicates.<alias>.",
          "Keys go under `predicates.<alias>.`, `<alias>` being a name listed in `predicates`."),
    _Kind("converter", "Converters", "<side>.converter.",
          "Keys go under `key.converter.`, `value.converter.` or `header.converter.` (written "
          "`<side>.converter.` below), as the converter serves; a wasm transform's own converters' "
          "keys under `transforms.<alias>.<side>.converter.`."),
    _Kind("source", "Source connectors", "source.",
          "Keys go under `source.`; the top-level key `source` names the connector."),
    _Kind("sink", "Sink connectors", "sink.",
          "Keys go under `sink.`; the top-level key `sink` names the connector."),
    _Kind("config_provider", "Config providers", "config.providers.<name>.param.",
          "Keys go under `config.providers.<name>.param.`, `<name>` being a name listed in "
          "`config.providers`."),
)  # fmt: skip

_KEY_VALUE_SUFFIXES = ("$Key", "$Value")


def reference_markdown(plugins: Plugins | None = None, published: bool = False) -> str:
    """The reference for the pipeline keys and every plugin in ``plugins`` (default: all installed).

    ``published``: as ``docs/reference.md`` holds it, with a note for contributors.
    """
    plugins = plugins or default_plugins()
    header = f"{_HEADER}\n{_CONTRIBUTOR_NOTE}" if published else _HEADER
    parts = [header, _pipeline_section(plugins)]
    for kind in _KINDS:
        parts.append(f"## {kind.title}\n\n{kind.where}")
        registrations = sorted(plugins.registrations(kind.kind), key=lambda r: r.name)
        if not registrations:
            parts.append(f"_No {kind.title.lower()} registered._")
        parts.extend(_plugin_section(group, kind.prefix) for group in _key_value_pairs(registrations))
    return "\n\n".join(parts) + "\n"


def plugin_reference(plugins: Plugins, name: str) -> str:
    """The reference of the plugins called ``name`` (a name, an alias, or a ``$Key``/``$Value`` pair's stem).

    Raises :class:`smt.errors.SmtError` naming the closest names when none is.
    """
    parts = []
    for kind in _KINDS:
        registrations = sorted(plugins.registrations(kind.kind), key=lambda r: r.name)
        for group in _key_value_pairs(registrations):
            names = {n for registration in group for n in (registration.name, *registration.aliases)}
            if name in names or name in {_split_key_value(n)[0] for n in names}:
                parts.append(f"## {kind.title}\n\n{kind.where}\n\n{_plugin_section(group, kind.prefix)}")
    if not parts:
        known = {r.name for kind in _KINDS for r in plugins.registrations(kind.kind)}
        close = difflib.get_close_matches(name, sorted(known), n=3)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else "; `smt plugins` lists them"
        raise SmtError(f"no plugin is called '{name}'{hint}")
    return "\n\n".join(parts) + "\n"


def _pipeline_section(plugins: Plugins) -> str:
    # pipeline.compile lists the stages the installed plugins declare compiled forms for.
    general = _with_keys(_without(PIPELINE_CONFIG, STREAMING_CONFIG, ERRORS_CONFIG), compile_config(plugins))
    chain = (
        CHAIN_LISTS_CONFIG.markdown_rows()
        + STAGE_CONFIG.markdown_rows("transforms.<alias>.")
        + PREDICATE_STAGE_CONFIG.markdown_rows("predicates.<alias>.")
    )
    return "\n\n".join([
        "## Pipeline",
        "The top-level keys of a pipeline file.",
        "### General",
        general.to_markdown(),
        "### Transforms and predicates",
        "\n".join(_TABLE_HEADER + chain),
        "### Streaming",
        "Read in streaming mode only (`mode=streaming`).",
        STREAMING_CONFIG.to_markdown(),
        "### Errors and dead letters",
        ERRORS_CONFIG.to_markdown(),
    ])  # fmt: skip


def _without(definition: ConfigDef, *parts: ConfigDef) -> ConfigDef:
    """``definition`` less the keys and prefixes that ``parts`` declare (documented on their own)."""
    keys = {key.name for part in parts for key in part.keys}
    prefixes = {owned.prefix for part in parts for owned in part.prefixes}
    return ConfigDef(
        keys=[key for key in definition.keys if key.name not in keys],
        prefixes=[owned for owned in definition.prefixes if owned.prefix not in prefixes],
        deprecated=[old for old in definition.deprecated if old.replacement not in keys],
    )


def _with_keys(definition: ConfigDef, replacements: ConfigDef) -> ConfigDef:
    """``definition`` with its keys that ``replacements`` declares taken from there, in place."""
    replaced = {key.name: key for key in replacements.keys}
    return ConfigDef(
        keys=[replaced.get(key.name, key) for key in definition.keys],
        prefixes=definition.prefixes,
        deprecated=definition.deprecated,
    )


def _key_value_pairs(registrations: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The registrations, a ``$Key``/``$Value`` pair documented alike grouped as one entry."""
    by_name = {registration.name: registration for registration in registrations}
    groups, grouped = [], set()
    for registration in registrations:
        if registration.name in grouped:
            continue
        base, suffix = _split_key_value(registration.name)
        pair = tuple(by_name.get(base + end) for end in _KEY_VALUE_SUFFIXES)
        if suffix and all(pair) and _documented_alike(*pair):
            grouped.update(member.name for member in pair)
            groups.append(pair)
        else:
            groups.append((registration,))
    return groups


def _split_key_value(name: str) -> tuple[str, str]:
    for suffix in _KEY_VALUE_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)], suffix
    return name, ""


def _documented_alike(first: Any, second: Any) -> bool:
    return (first.origin == second.origin and first.cls.overview() == second.cls.overview()
            and first.cls.config_def.to_markdown() == second.cls.config_def.to_markdown())  # fmt: skip


def _plugin_section(group: tuple[Any, ...], prefix: str) -> str:
    first = group[0]
    cls = first.cls
    lines = ["### " + ", ".join(f"`{registration.name}`" for registration in group), ""]
    # Docstrings quote code the reStructuredText way (````x````); Markdown needs one backtick.
    overview = cls.overview().replace("``", "`")
    if overview:
        lines += [overview, ""]
    aliases = [alias for registration in group for alias in registration.aliases]
    if aliases:
        lines.append("- Aliases: " + ", ".join(f"`{alias}`" for alias in aliases))
    classes = ", ".join(f"`{registration.cls.class_name()}`" for registration in group)
    lines.append(f"- {'Classes' if len(group) > 1 else 'Class'}: {classes}")
    lines.append(f"- Provided by: `{first.origin}`")
    lines.append("")
    definition = cls.config_def
    if definition.keys or definition.prefixes or definition.deprecated:
        lines.append(definition.to_markdown(prefix=prefix))
    else:
        lines.append("_No configuration keys._")
    return "\n".join(lines)
