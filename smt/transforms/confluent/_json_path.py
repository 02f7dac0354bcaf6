"""JsonPath as Confluent's transforms read it: jsonpath-ng's parser, Jayway JsonPath's rules for what matches.

Confluent's Filter and ExtractTopic evaluate paths with Jayway JsonPath (``com.jayway.jsonpath``).
Two of Jayway's rules differ from jsonpath-ng's (and RFC 9535's), and real configurations lean on both:

- A filter (``[?(...)]``) applied to an object tests *the object itself*; applied to an array, each
  element.  ``$[?(@.shop == 'us')]`` therefore matches a record whose ``shop`` is ``us``.  jsonpath-ng
  tests the object's member values instead, so the filter nodes of the parsed path are swapped for
  :class:`_ObjectTestingFilter`.
- A *definite* step that finds nothing is an error (``PathNotFoundException``), not an empty result:
  every step of a path with no filter, wildcard, slice, union or deep scan, and the leading definite
  steps of any path (``$.key`` in ``$.key[?(...)]``).  Past the first indefinite step, a missing
  member is simply no match.  :meth:`JsonPath.read` raises :class:`PathNotFound` in those cases.
"""

from __future__ import annotations

from typing import Any

from jsonpath_ng import Child, DatumInContext, Descendants, Fields, Index, Root, This
from jsonpath_ng.exceptions import JSONPathError
from jsonpath_ng.ext import parse
from jsonpath_ng.ext.filter import Filter

from smt.errors import ConfigError
from smt.transforms._requirements import require_map, require_struct

__all__ = ["JsonPath", "PathNotFound", "compile_path", "json_document"]


def json_document(value: Any, with_schema: bool, purpose: str) -> Any:
    """The key or value as the JSON document a path reads: a map as it is, a struct as the map of its
    fields; anything else fails naming ``purpose`` (``filtering``)."""
    if not with_schema:
        return require_map(value, f"{purpose} record without schema")
    return require_struct(value, f"{purpose} record with schema").to_dict()


class PathNotFound(LookupError):
    """A definite step of the path found nothing (Jayway's ``PathNotFoundException``)."""


class _ObjectTestingFilter(Filter):
    """A filter that, as Jayway's, tests an object itself and each element of an array."""

    def find(self, datum):
        datum = DatumInContext.wrap(datum)
        if isinstance(datum.value, dict):
            return [datum] if all(expression.find(datum) for expression in self.expressions) else []
        return super().find(datum)


def _steps(node: Any) -> list:
    """The path as a flat list of steps (``Child`` nodes unrolled)."""
    if isinstance(node, Child):
        return _steps(node.left) + _steps(node.right)
    return [node]


def _definite(step: Any) -> bool:
    if isinstance(step, (Root, This)):
        return True
    if isinstance(step, Fields):
        return len(step.fields) == 1 and step.fields[0] != "*"
    if isinstance(step, Index):
        return len(step.indices) == 1
    return False


def _with_object_filters(node: Any) -> Any:
    if isinstance(node, (Child, Descendants)):
        return type(node)(_with_object_filters(node.left), _with_object_filters(node.right))
    if isinstance(node, Filter) and not isinstance(node, _ObjectTestingFilter):
        return _ObjectTestingFilter(node.expressions)
    return node


class JsonPath:
    """A compiled path: ``read`` gives the matches, or raises :class:`PathNotFound`."""

    def __init__(self, text: str, node: Any) -> None:
        self.text = text
        steps = _steps(node)
        split = next((i for i, step in enumerate(steps) if not _definite(step)), len(steps))
        self._definite_steps = steps[:split]
        self._rest = None if split == len(steps) else _with_object_filters(node)

    @property
    def definite(self) -> bool:
        """True when the path names one place (Jayway's ``isDefinite``): its result is a value, not a list."""
        return self._rest is None

    def read(self, document: Any) -> Any:
        """The value at a definite path, or the list of matches of an indefinite one.

        Raises :class:`PathNotFound` when a definite step finds no member, no element or no object.
        """
        current = document
        for step in self._definite_steps:
            current = self._step(current, step)
        if self._rest is None:
            return current
        # The whole path from the document, so that a ``$`` inside a filter is the document's root.
        return [match.value for match in self._rest.find(document)]

    def _step(self, current: Any, step: Any) -> Any:
        if isinstance(step, (Root, This)):
            return current
        if isinstance(step, Fields):
            name = step.fields[0]
            if not isinstance(current, dict) or name not in current:
                raise PathNotFound(f"No results for path: {self.text} (no member '{name}')")
            return current[name]
        index = step.indices[0]
        if not isinstance(current, list) or not -len(current) <= index < len(current):
            raise PathNotFound(f"No results for path: {self.text} (no element [{index}])")
        return current[index]


def compile_path(text: str, key: str) -> JsonPath:
    """``text`` compiled; a path jsonpath-ng cannot parse is a ConfigError naming ``key``."""
    try:
        node = parse(text)
    except (JSONPathError, ValueError, TypeError) as exc:  # the parser raises its own and Python's errors
        raise ConfigError.for_key(
            key, f"Invalid json path defined ({exc}); see https://github.com/json-path/JsonPath", text
        ) from None
    return JsonPath(text, node)
