"""Configuration definitions in the style of Kafka's ``ConfigDef``.

Every plugin (transform, predicate, converter, connector) declares its keys
once, as data: name, type, default (or required), validator, importance and
doc.  :meth:`ConfigDef.parse` turns raw strings from a properties file into
typed values, once, at build time, and reports every problem with the full
key (``transforms.mask.fields: must be a non-empty list``).  The reference
docs are generated from these declarations (:meth:`ConfigDef.to_markdown`).

Parsing follows Kafka's rules: STRING values are trimmed, LIST values are
trimmed and split on commas, BOOLEAN accepts true/false in any case.

PATH (ours, not Kafka's) is a STRING that names a file or folder: a relative
one resolves against the folder of the pipeline file
(:meth:`ConfigDef.resolve_paths`).  Only keys declared PATH are resolved, so a
value that merely looks like a path (a guest's ``config.location=EU``) is
never rewritten.

Besides its keys, a definition declares the key prefixes a plugin owns
(:meth:`ConfigDef.define_prefix`: ``kafka.*`` pass-through settings, a wasm
guest's ``config.*``, a nested converter's ``key.converter.*``) and the
deprecated names it still accepts (:meth:`ConfigDef.define_deprecated`), so
that :mod:`smt.config_review` can report every key nobody reads.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import re
from typing import Any, Callable, Iterable, Mapping

from smt.errors import ConfigError, ConfigProblem

__all__ = [
    "ConfigDef",
    "ConfigKey",
    "ConfigPrefix",
    "DeprecatedKey",
    "ConfigType",
    "Importance",
    "REQUIRED",
    "Validator",
    "one_of",
    "at_least",
    "non_empty_string",
    "kafka_non_empty_string",
    "non_empty_list",
]


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: Marks a key that has no default: it must be given.
REQUIRED: Any = _Required()


class ConfigType(str, enum.Enum):
    BOOLEAN = "boolean"
    STRING = "string"
    INT = "int"
    LONG = "long"
    DOUBLE = "double"
    LIST = "list"
    CLASS = "class"
    PASSWORD = "password"
    #: A file or folder; a relative one resolves against the pipeline file's folder.
    PATH = "path"


class Importance(str, enum.Enum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


#: A validator raises ``ValueError`` with the reason when a parsed value is bad.
Validator = Callable[[Any], None]


@dataclasses.dataclass(frozen=True)
class ConfigKey:
    name: str
    type: ConfigType
    default: Any = REQUIRED
    validator: Validator | None = None
    importance: Importance = Importance.MEDIUM
    doc: str = ""

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@dataclasses.dataclass(frozen=True)
class ConfigPrefix:
    """Every key under ``prefix`` belongs to the plugin, without being listed one by one.

    With ``plugin_kind`` the keys configure a nested plugin of that kind
    (``converter``, ``source``, ...), named by the value of the key
    ``plugin_key`` of the same definition; its own declaration then says which
    of them it reads.  Without, they are passed through (``kafka.*``).
    """

    prefix: str
    doc: str = ""
    importance: Importance = Importance.MEDIUM
    plugin_kind: str | None = None
    plugin_key: str | None = None


@dataclasses.dataclass(frozen=True)
class DeprecatedKey:
    """An old name still accepted for ``replacement``; ``note`` says since when, or why."""

    name: str
    replacement: str
    note: str = ""


class ConfigDef:
    """An ordered set of :class:`ConfigKey` declarations, owned prefixes and deprecated names."""

    def __init__(
        self,
        keys: Iterable[ConfigKey] = (),
        prefixes: Iterable[ConfigPrefix] = (),
        deprecated: Iterable[DeprecatedKey] = (),
    ) -> None:
        self._keys: dict[str, ConfigKey] = {}
        self._prefixes: dict[str, ConfigPrefix] = {}
        self._deprecated: dict[str, DeprecatedKey] = {}
        for key in keys:
            self._add(key)
        for prefix in prefixes:
            self._prefixes.setdefault(prefix.prefix, prefix)  # two ABIs may both own ``config.``
        for old in deprecated:
            self._deprecated[old.name] = old

    def define(
        self,
        name: str,
        type: ConfigType | str,
        default: Any = REQUIRED,
        validator: Validator | None = None,
        importance: Importance | str = Importance.MEDIUM,
        doc: str = "",
    ) -> "ConfigDef":
        """Declare one key; returns ``self`` so definitions chain."""
        self._add(ConfigKey(name, ConfigType(type), default, validator, Importance(importance), doc))
        return self

    def _add(self, key: ConfigKey) -> None:
        if key.name in self._keys:
            raise ValueError(f"config key {key.name!r} is defined twice")
        if not key.required:
            _check_default(key)
        self._keys[key.name] = key

    def define_prefix(
        self,
        prefix: str,
        doc: str = "",
        importance: Importance | str = Importance.MEDIUM,
        *,
        plugin_kind: str | None = None,
        plugin_key: str | None = None,
    ) -> "ConfigDef":
        """Declare that every key under ``prefix`` is this plugin's (see :class:`ConfigPrefix`)."""
        if not prefix.endswith("."):
            raise ValueError(f"config prefix {prefix!r} must end with '.'")
        if (plugin_kind is None) != (plugin_key is None):
            raise ValueError(f"config prefix {prefix!r}: give plugin_kind and plugin_key together")
        if plugin_key is not None and plugin_key not in self._keys:
            raise ValueError(f"config prefix {prefix!r}: plugin_key {plugin_key!r} is not defined")
        self._prefixes[prefix] = ConfigPrefix(prefix, doc, Importance(importance), plugin_kind, plugin_key)
        return self

    def define_deprecated(self, name: str, replacement: str, note: str = "") -> "ConfigDef":
        """Accept ``name`` as a deprecated name of the defined key ``replacement``.

        :meth:`parse` reads ``name`` as ``replacement`` when only the old name
        is given; when both are, ``replacement`` wins (as Kafka's
        ``ConfigUtils.translateDeprecatedConfigs`` did).
        """
        if replacement not in self._keys:
            raise ValueError(f"deprecated key {name!r}: replacement {replacement!r} is not defined")
        if name in self._keys:
            raise ValueError(f"deprecated key {name!r} is also defined as a key")
        self._deprecated[name] = DeprecatedKey(name, replacement, note)
        return self

    def merge(self, other: "ConfigDef") -> "ConfigDef":
        """A new definition with this one's keys followed by ``other``'s."""
        return ConfigDef(
            list(self._keys.values()) + list(other._keys.values()),
            list(self._prefixes.values()) + list(other._prefixes.values()),
            list(self._deprecated.values()) + list(other._deprecated.values()),
        )

    @property
    def keys(self) -> list[ConfigKey]:
        return list(self._keys.values())

    @property
    def prefixes(self) -> list[ConfigPrefix]:
        return list(self._prefixes.values())

    @property
    def deprecated(self) -> list[DeprecatedKey]:
        return list(self._deprecated.values())

    def __contains__(self, name: str) -> bool:
        return name in self._keys

    def parse(self, props: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
        """Typed values for every declared key, from raw ``props``.

        ``props`` holds the plugin's own keys (prefix already stripped);
        ``prefix`` is only used to name keys in errors.  Undeclared keys are
        ignored (plugins may read them as sub-configs).  Raises
        :class:`ConfigError` listing every problem found.
        """
        props = self._translate_deprecated(props)
        values: dict[str, Any] = {}
        problems: list[ConfigProblem] = []
        for key in self._keys.values():
            full_name = prefix + key.name
            if key.name in props:
                raw = props[key.name]
                try:
                    value = parse_value(key.type, raw)
                    if key.validator is not None and value is not None:
                        key.validator(value)
                except ValueError as exc:
                    problems.append(ConfigProblem(full_name, _reason(exc, raw), raw))
                    continue
                values[key.name] = value
            elif key.required:
                problems.append(ConfigProblem(full_name, "is required and has no default"))
            else:
                # Parsed on every call, as Kafka parses defaults: typed, and a
                # fresh list each time, so no plugin can mutate another's.
                values[key.name] = parse_value(key.type, key.default)
        if problems:
            raise ConfigError(problems)
        return values

    def resolve_paths(self, props: Mapping[str, Any], base_dir: str, prefix: str = "") -> dict[str, Any]:
        """A copy of ``props`` with the relative values of PATH keys made absolute against ``base_dir``.

        ``props`` holds full keys; this definition's keys sit under ``prefix``.
        URIs (``scheme://...``) and empty values are left as they are.
        """
        return {**props, **self.path_updates(props, base_dir, prefix)}

    def path_updates(self, props: Mapping[str, Any], base_dir: str, prefix: str = "") -> dict[str, Any]:
        """Only the keys :meth:`resolve_paths` changes, with their new values (no copy of ``props``)."""
        updates = {}
        for key in self._keys.values():
            if key.type is ConfigType.PATH:
                value = props.get(prefix + key.name)
                if isinstance(value, str):
                    updates[prefix + key.name] = _absolute(value, base_dir)
        return updates

    def _translate_deprecated(self, props: Mapping[str, Any]) -> Mapping[str, Any]:
        """``props`` with each deprecated name read as its replacement (unless that is given too)."""
        used = [old for old in self._deprecated.values() if old.name in props]
        if not used:
            return props
        translated = dict(props)
        for old in used:
            translated.setdefault(old.replacement, props[old.name])
        return translated

    def to_markdown(self, heading_level: int = 3, *, prefix: str = "") -> str:
        """A Markdown table documenting every key, generated from the declarations.

        ``prefix`` is put before every name, so that the table shows the keys
        as a pipeline file spells them (``transforms.<alias>.field``).
        """
        header = ["| key | type | default | importance | description |", "|---|---|---|---|---|"]
        return "\n".join(header + self.markdown_rows(prefix))

    def markdown_rows(self, prefix: str = "") -> list[str]:
        """The rows of :meth:`to_markdown`, without its header (to join several definitions in one table)."""
        lines = []
        for key in self._keys.values():
            default = "(required)" if key.required else f"`{_cell(_show_default(key.default))}`"
            doc = _cell(key.doc)
            lines.append(f"| `{prefix}{key.name}` | {key.type.value} | {default} | {key.importance.value} | {doc} |")
        for owned in self._prefixes.values():
            kind = f"{owned.plugin_kind} settings" if owned.plugin_kind else "prefix"
            lines.append(f"| `{prefix}{owned.prefix}*` | {kind} | | {owned.importance.value} | {_cell(owned.doc)} |")
        for old in self._deprecated.values():
            note = _cell(f" {old.note}" if old.note else "")
            use = f"`{prefix}{old.replacement}`"
            lines.append(f"| `{prefix}{old.name}` | deprecated | | low | Deprecated: use {use}.{note} |")
        return lines


def _absolute(value: str, base_dir: str) -> str:
    text = value.strip()
    if not text or "://" in text or os.path.isabs(text):
        return value
    return os.path.normpath(os.path.join(base_dir, text))


def _check_default(key: ConfigKey) -> None:
    """Kafka parses and validates a default when the key is defined: so do we."""
    try:
        value = parse_value(key.type, key.default)
        if key.validator is not None and value is not None:
            key.validator(value)
    except ValueError as exc:
        raise ValueError(
            f"config key {key.name!r}: invalid default {key.default!r}: {_reason(exc, key.default)}"
        ) from exc


def _show_default(value: Any) -> str:
    if value == "" or (isinstance(value, (list, tuple)) and not value):
        return '""'  # as Kafka's docs show an empty string or list
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def _cell(text: str) -> str:
    """``text`` made safe for one Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _reason(exc: ValueError, raw: Any) -> str:
    reason = str(exc)
    if "{value}" in reason:
        return reason.format(value=raw)
    return reason


def parse_value(type_: ConfigType, raw: Any) -> Any:
    """Parse one raw value (a string from a properties file, or a typed value)."""
    if raw is None:
        return None
    parser = _PARSERS[type_]
    return parser(raw)


def _parse_boolean(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text == "true":
        return True
    if text == "false":
        return False
    raise ValueError(f"expected true or false, got '{raw}'")


def _parse_string(raw: Any) -> str:
    return str(raw).strip()


def _parse_int(raw: Any, bits: int = 32) -> int:
    if isinstance(raw, bool):
        raise ValueError(f"expected an integer, got '{raw}'")
    if isinstance(raw, int):
        value = raw
    else:
        # Java's Integer.parseInt: an optional sign and digits, nothing else
        # (Python's int() would also take '1_000').
        text = str(raw).strip()
        if not _JAVA_INTEGER.fullmatch(text):
            raise ValueError(f"expected an integer, got '{raw}'")
        value = int(text)
    limit = 1 << (bits - 1)
    if not -limit <= value < limit:
        raise ValueError(f"{value} is out of range for a {bits}-bit integer")
    return value


_JAVA_INTEGER = re.compile(r"[+-]?[0-9]+")


def _parse_long(raw: Any) -> int:
    return _parse_int(raw, 64)


def _parse_double(raw: Any) -> float:
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return float(raw)
    text = str(raw).strip()
    try:
        if "_" in text:  # Python's float() takes '1_0.5'; Java's parseDouble does not
            raise ValueError(text)
        return float(text)
    except ValueError:
        raise ValueError(f"expected a number, got '{raw}'") from None


def _parse_class(raw: Any) -> Any:
    # Like Kafka, a CLASS value is a class name or the class itself.
    return raw if isinstance(raw, type) else _parse_string(raw)


def _parse_list(raw: Any) -> list[str]:
    if isinstance(raw, (list, tuple)):
        return [str(item).strip() for item in raw]
    text = str(raw).strip()
    if not text:
        return []
    return [item.strip() for item in text.split(",")]


_PARSERS: dict[ConfigType, Callable[[Any], Any]] = {
    ConfigType.BOOLEAN: _parse_boolean,
    ConfigType.STRING: _parse_string,
    ConfigType.INT: _parse_int,
    ConfigType.LONG: _parse_long,
    ConfigType.DOUBLE: _parse_double,
    ConfigType.LIST: _parse_list,
    ConfigType.CLASS: _parse_class,
    ConfigType.PASSWORD: _parse_string,  # Kafka trims passwords too
    ConfigType.PATH: _parse_string,
}


# --- validators -------------------------------------------------------------


def one_of(*allowed: str, case_sensitive: bool = True) -> Validator:
    """The value must be one of ``allowed``."""

    def validate(value: Any) -> None:
        candidates = allowed if case_sensitive else [a.lower() for a in allowed]
        probe = value if case_sensitive else str(value).lower()
        if probe not in candidates:
            raise ValueError(f"must be one of {', '.join(allowed)}; got '{value}'")

    return validate


def at_least(minimum: float) -> Validator:
    """The value must be a number no less than ``minimum``."""

    def validate(value: Any) -> None:
        if value < minimum:
            raise ValueError(f"must be at least {minimum}; got {value}")

    return validate


def between(minimum: float, maximum: float, why: str = "") -> Validator:
    """The value must be a number from ``minimum`` to ``maximum``; ``why`` says where the maximum comes from."""

    def validate(value: Any) -> None:
        if value < minimum:
            raise ValueError(f"must be at least {minimum}; got {value}")
        if value > maximum:
            raise ValueError(f"must be at most {maximum}{f' ({why})' if why else ''}; got {value}")

    return validate


def non_empty_string(value: Any) -> None:
    """The value must be a non-empty string."""
    if not str(value):
        raise ValueError("must be a non-empty string")


def kafka_non_empty_string(value: Any) -> None:
    """Kafka's ``ConfigDef.NonEmptyString``, worded as Kafka words it (for messages users already know)."""
    if not str(value):
        raise ValueError("String must be non-empty")


def non_empty_list(value: Any) -> None:
    """The value must be a list with at least one non-empty item."""
    if not value or any(not item for item in value):
        raise ValueError("must be a non-empty list")
