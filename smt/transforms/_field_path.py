"""Field paths: which (possibly nested) field a transform reads or writes.

``field.syntax.version=V1`` (Kafka's default) treats the whole text as one
top-level field name.  ``V2`` splits it on dots into steps; a step wrapped in
backticks may contain dots, and a backslash before a backtick inside such a
step keeps it from closing the step (Kafka's KIP-821 rules, including its
quirks: ``foo..`` has empty steps, a backtick inside a step that is not
followed by a dot is part of the name).  Kafka ships V2 for ExtractField only;
every field-taking transform here accepts it.
"""

from __future__ import annotations

from typing import Any

from smt.config import ConfigDef, ConfigType, Importance
from smt.errors import ConfigError
from smt.transforms._requirements import require_map_or_none, require_struct_or_none

__all__ = ["FieldPath", "FIELD_SYNTAX_VERSION", "with_field_syntax", "parse_path", "parse_paths"]

FIELD_SYNTAX_VERSION = "field.syntax.version"
_BACKTICK, _DOT, _BACKSLASH = "`", ".", "\\"

_SYNTAX_DOC = (
    "Syntax of field paths. V1: the text is one top-level field name. V2: dotted paths to "
    "nested fields; wrap a name containing dots in backticks (`foo.bar`.baz), and put a "
    "backslash before a backtick that is part of such a name."
)


def _syntax_version(value: str) -> None:
    if value.upper() not in ("V1", "V2"):
        raise ValueError("String must be one of (case insensitive): V1, V2")


def with_field_syntax(config_def: ConfigDef) -> ConfigDef:
    """``config_def`` plus the ``field.syntax.version`` key (V1 or V2, any case)."""
    return config_def.define(
        FIELD_SYNTAX_VERSION,
        ConfigType.STRING,
        "V1",
        _syntax_version,
        Importance.HIGH,
        _SYNTAX_DOC,
    )


class FieldPath:
    """A parsed path: ``steps`` from the outermost field to the target."""

    __slots__ = ("text", "steps", "nested")

    def __init__(self, text: str, steps: tuple[str, ...]) -> None:
        self.text = text
        self.steps = steps
        self.nested = len(steps) > 1

    @property
    def last(self) -> str:
        return self.steps[-1]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FieldPath) and other.steps == self.steps

    def __hash__(self) -> int:
        return hash(self.steps)

    def __repr__(self) -> str:
        return f"FieldPath({'.'.join(self.steps)!r})"

    # --- maps ---------------------------------------------------------------

    def get_from_map(self, value: dict | None) -> Any:
        """The value at this path, or None when any step is missing."""
        current = value
        for step in self.steps[:-1]:
            if current is None:
                return None
            current = require_map_or_none(current.get(step), "nested field access")
        return None if current is None else current.get(self.steps[-1])

    def update_map(self, value: dict, change) -> dict:
        """A copy of ``value`` where the parent map of the target is ``change(parent)``.

        Maps along the path are copied, never mutated; a missing or null parent
        leaves ``value`` unchanged.
        """
        return _update(value, self.steps[:-1], change)

    # --- schemas and structs -------------------------------------------------

    def field_from(self, schema: Any) -> Any:
        """The schema field at this path, or None."""
        current = schema
        for step in self.steps[:-1]:
            field = current.field(step) if current is not None else None
            if field is None:
                return None
            current = field.schema
        return current.field(self.steps[-1]) if current is not None else None

    def get_from_struct(self, struct: Any, with_default: bool = True) -> Any:
        current = struct
        for step in self.steps[:-1]:
            if current is None or current.schema.field(step) is None:
                return None
            current = require_struct_or_none(current.get(step), "nested field access")
        if current is None or current.schema.field(self.steps[-1]) is None:
            return None
        if with_default:
            return current.get(self.steps[-1])
        return current.get_without_default(self.steps[-1])


def _update(value: dict, parents: tuple[str, ...], change) -> dict:
    if not parents:
        return change(value)
    child = value.get(parents[0])
    if not isinstance(child, dict):
        return value
    copy = dict(value)
    copy[parents[0]] = _update(child, parents[1:], change)
    return copy


def parse_path(text: str, version: str = "V1", key: str = "") -> FieldPath:
    """Parse ``text`` with syntax ``version``; a bad V2 path raises ConfigError on ``key``."""
    if version.upper() == "V1":
        return FieldPath(text, (text,))
    try:
        return FieldPath(text, tuple(_steps_v2(text)))
    except ValueError as exc:
        raise ConfigError.for_key(key, str(exc), text) if key else ConfigError(str(exc)) from None


def parse_paths(texts: list[str], version: str = "V1", key: str = "") -> list[FieldPath]:
    return [parse_path(text, version, key) for text in texts]


def _steps_v2(path: str) -> list[str]:
    steps: list[str] = []
    index, length = 0, len(path)
    while index < length:
        if path[index] != _BACKTICK:
            dot = path.find(_DOT, index)
            if dot < 0:
                steps.append(path[index:])
                index = length
            else:
                steps.append(path[index:dot])
                index = dot + 1
            continue
        index = _quoted_step(path, index, steps)
    if path.endswith(_DOT):
        steps.append("")
    return steps


def _quoted_step(path: str, opening: int, steps: list[str]) -> int:
    """Read the backtick-quoted step starting at ``opening``; returns the next index."""
    index = start = opening + 1
    name: list[str] = []
    while True:
        index = path.find(_BACKTICK, index)
        if index < 0:
            _incomplete(path, opening)
        escaped = path[index - 1] == _BACKSLASH
        if index >= len(path) - 1:
            if escaped:
                _incomplete(path, opening)
            name.append(path[start:index])
            steps.append("".join(name))
            return index + 1
        if path[index + 1] != _DOT:
            index += 1
            continue
        if escaped:
            name.append(path[start : index - 1] + _BACKTICK)
            index += 1
            start = index
            continue
        name.append(path[start:index])
        steps.append("".join(name))
        return index + 2


def _incomplete(path: str, opening: int) -> None:
    raise ValueError(
        f"Incomplete backtick pair in path: [{path}], consider adding a backslash before "
        f"backtick at position {opening} to escape it"
    )
