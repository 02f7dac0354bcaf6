"""Keys nobody reads, and deprecated keys: found from the plugins' declarations.

A pipeline file is read by many plugins, each taking the keys under its
prefix.  A key that none of them declares changes nothing, silently: a typo
(``transforms.mask.feilds``), a key of another tool, a transform alias that
``transforms=`` does not list.  :func:`review_pipeline_keys` walks the file
the way the pipeline is built and returns a :class:`ConfigNotice` for every
such key, with the nearest declared name as a suggestion, and for every
deprecated key in use, naming its replacement.  The pipeline refuses a file
with an unknown key (a typo such as ``errors.tolerence=all`` changes what
happens); the keys of an alias the list does not name (a stage taken out of
``transforms=``) and a converter's keys that it does not read (as Kafka
Connect, which logs them) are warnings, and keys under a prefix that goes to another
system (``spark.*``, ``source.kafka.*``) are that system's to judge and never
reported.

What a plugin reads is its ``config_def``: its keys, its deprecated names and
the prefixes it owns (:meth:`smt.config.ConfigDef.define_prefix`).  A prefix
that configures a nested plugin (the top level's ``source.``, a wasm
transform's ``key.converter.``) is reviewed against that plugin's own
declaration, found in the registry by the value of its type key.
"""

from __future__ import annotations

import dataclasses
import difflib
from typing import Any, Iterable, Mapping

from smt._chain_builder import PREDICATE_STAGE_CONFIG, STAGE_CONFIG, configs_by_alias
from smt.config import ConfigDef, ConfigType, parse_value

__all__ = ["IGNORED", "ConfigNotice", "review_plugin_keys", "review_chain_keys", "review_pipeline_keys"]

#: The kind of a converter's key that no converter reads.  Kafka Connect hands a
#: converter every ``*.converter.*`` key and only logs the ones it does not know
#: ("was supplied but isn't a known config"); real connector files carry such keys
#: (``value.converter.schemas.enable`` next to an Avro converter), so they warn,
#: and are errors only with ``--strict``.
IGNORED = "ignored"

#: Keys under ``transforms.<alias>.`` / ``predicates.<alias>.`` that the chain reads itself.
_CHAIN_KEYS = {
    list_key: tuple(key.name for key in stage_config.keys)
    for list_key, stage_config in (("transforms", STAGE_CONFIG), ("predicates", PREDICATE_STAGE_CONFIG))
}


@dataclasses.dataclass(frozen=True)
class ConfigNotice:
    """A key that is read by nothing (``unknown``; ``unlisted``: of an alias that ``transforms=`` or
    ``predicates=`` does not list, a stage switched off; ``ignored``: a converter's key that the
    converter does not read) or under a deprecated name (``deprecated``)."""

    key: str
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.key}: {self.message}"


def review_plugin_keys(
    config_def: ConfigDef,
    configs: Mapping[str, Any],
    prefix: str = "",
    plugins: Any = None,
    converter: str | None = None,
) -> list[ConfigNotice]:
    """Notices for the keys of one plugin (``configs`` has ``prefix`` stripped).

    ``plugins`` (the registry) lets nested plugins' keys be reviewed; without
    it, keys under a nested plugin's prefix are taken as they are.  A key the
    plugin does not read is ``unknown``; when the plugin is a ``converter``
    (its name), ``ignored`` (see :data:`IGNORED`).
    """
    declared = {key.name for key in config_def.keys}
    deprecated = {old.name: old for old in config_def.deprecated}
    prefixes = sorted(config_def.prefixes, key=lambda p: -len(p.prefix))
    notices: list[ConfigNotice] = []
    nested: dict[str, dict[str, Any]] = {}
    for name in configs:
        if name in declared:
            continue
        if name in deprecated:
            notices.append(_deprecated_notice(deprecated[name], configs, prefix))
            continue
        owner = next((p for p in prefixes if name.startswith(p.prefix)), None)
        if owner is None:
            candidates = [*declared, *(p.prefix + "*" for p in prefixes)]
            if converter is not None:
                readers = _converters_reading(plugins, name)
                notices.append(_ignored_notice(prefix, name, candidates, converter, readers))
            else:
                notices.append(_unknown_notice(prefix, name, candidates))
        elif owner.plugin_kind is not None:
            nested.setdefault(owner.prefix, {})[name[len(owner.prefix) :]] = configs[name]
    for owner in (p for p in config_def.prefixes if p.prefix in nested):
        cls = _nested_class(config_def, owner, configs, plugins)
        if cls is not None:
            name = getattr(cls, "name", cls.__name__) if owner.plugin_kind == "converter" else None
            notices += review_plugin_keys(cls.config_def, nested[owner.prefix], prefix + owner.prefix, plugins, name)
    return notices


def review_chain_keys(props: Mapping[str, Any], plugins: Any) -> list[ConfigNotice]:
    """Notices for the ``transforms.*`` and ``predicates.*`` keys of ``props``."""
    notices: list[ConfigNotice] = []
    for list_key, stage_keys in _CHAIN_KEYS.items():
        kind = list_key[:-1]
        aliases = _listed_aliases(props.get(list_key))
        own, strays = configs_by_alias(props, list_key, aliases)
        for key in strays:
            notices.append(_stray_alias_notice(key, list_key, key[len(list_key) + 1 :], aliases))
        for alias, configs in own.items():
            cls = _lookup(plugins, kind, configs.get("type"))
            if cls is None:
                continue  # an unknown or missing type is an error the build reports
            plugin_keys = {k: v for k, v in configs.items() if k not in stage_keys}
            notices += review_plugin_keys(cls.config_def, plugin_keys, f"{list_key}.{alias}.", plugins)
    return notices


def review_pipeline_keys(top_level: ConfigDef, props: Mapping[str, Any], plugins: Any) -> list[ConfigNotice]:
    """Notices for every key of a pipeline file, ``top_level`` declaring the keys outside the chain."""
    chain = {k: v for k, v in props.items() if _is_chain_key(k)}
    rest = {k: v for k, v in props.items() if k not in chain}
    notices = review_plugin_keys(top_level, rest, "", plugins) + review_chain_keys(chain, plugins)
    order = {key: index for index, key in enumerate(props)}
    return sorted(notices, key=lambda notice: order.get(notice.key, len(order)))


def _is_chain_key(key: str) -> bool:
    return any(key == name or key.startswith(name + ".") for name in _CHAIN_KEYS)


def _listed_aliases(raw: Any) -> list[str]:
    try:
        return [alias for alias in parse_value(ConfigType.LIST, raw) or [] if alias]
    except ValueError:
        return []


def _nested_class(config_def: ConfigDef, owner: Any, configs: Mapping[str, Any], plugins: Any) -> Any:
    type_key = next(key for key in config_def.keys if key.name == owner.plugin_key)
    type_name = configs.get(owner.plugin_key, type_key.default)
    return _lookup(plugins, owner.plugin_kind, type_name)


def _lookup(plugins: Any, kind: str, type_name: Any) -> Any:
    if isinstance(type_name, type):
        return type_name
    if plugins is None or not type_name or not str(type_name).strip():
        return None
    try:
        return plugins.get(kind, str(type_name).strip())
    except KeyError:
        return None


def _unknown_notice(prefix: str, name: str, candidates: Iterable[str]) -> ConfigNotice:
    message = "unknown key: no plugin reads it, so it has no effect"
    suggestion = _closest(name, candidates)
    if suggestion is not None:
        message += f"; did you mean '{prefix}{suggestion}'?"
    return ConfigNotice(prefix + name, "unknown", message)


def _ignored_notice(
    prefix: str, name: str, candidates: Iterable[str], converter: str, readers: list[str]
) -> ConfigNotice:
    message = f"was supplied but isn't a known config of the {converter} converter, so it has no effect"
    if readers:  # a real converter key, of another converter: no near name to suggest
        message += f" (the {', '.join(readers)} converter{'s' if len(readers) > 1 else ''} read{'' if len(readers) > 1 else 's'} it)"
    elif (suggestion := _closest(name, candidates)) is not None:
        message += f"; did you mean '{prefix}{suggestion}'?"
    return ConfigNotice(prefix + name, IGNORED, message)


def _converters_reading(plugins: Any, name: str) -> list[str]:
    if plugins is None:
        return []
    return sorted({r.name for r in plugins.registrations("converter") if name in r.cls.config_def})


def _stray_alias_notice(key: str, list_key: str, rest: str, aliases: list[str]) -> ConfigNotice:
    alias = rest.split(".", 1)[0]
    listed = ", ".join(aliases) if aliases else "none"
    message = f"unknown key: '{alias}' is not listed in '{list_key}' (it lists: {listed}), so this key has no effect"
    suggestion = _closest(alias, aliases)
    if suggestion is not None:
        message += f"; did you mean '{list_key}.{suggestion}.{rest[len(alias) + 1 :]}'?"
    return ConfigNotice(key, "unlisted", message)


def _deprecated_notice(old: Any, configs: Mapping[str, Any], prefix: str) -> ConfigNotice:
    note = f" ({old.note})" if old.note else ""
    if old.replacement in configs:
        message = f"is deprecated{note} and ignored, because '{prefix}{old.replacement}' is also set; remove it"
    else:
        message = f"is deprecated{note}; use '{prefix}{old.replacement}' instead"
    return ConfigNotice(prefix + old.name, "deprecated", message)


def _closest(name: str, candidates: Iterable[str]) -> str | None:
    matches = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None
