"""ReplaceField's exclude/include/rename rules over nested paths (V2 syntax).

A path that is excluded is dropped with everything under it.  With includes,
a field is kept when an included path is it or one of its ancestors (the
whole subtree is kept), or when it is an ancestor of an included path (then
only the included parts of it are kept).  A rename ``a.b:c`` renames ``b``
inside ``a``.  Excludes win over includes, as at the top level.
"""

from __future__ import annotations

from typing import Any

from smt.transforms._structs import copy_basics, field_value

__all__ = ["NestedReplacer"]

Steps = tuple[str, ...]


class NestedReplacer:
    def __init__(self, exclude: list[Steps], include: list[Steps], renames: dict[Steps, str]) -> None:
        self.exclude = frozenset(exclude)
        self.include = frozenset(include)
        self.renames = renames
        every = list(exclude) + list(include) + list(renames)
        self.ancestors = frozenset(p[:i] for p in every for i in range(1, len(p)))
        self.include_ancestors = frozenset(p[:i] for p in include for i in range(1, len(p)))

    def _decide(self, steps: Steps, included: bool) -> tuple[bool, bool]:
        """(keep the field, is it wholly included) for the field at ``steps``."""
        if steps in self.exclude:
            return False, False
        inside = included or not self.include or steps in self.include
        return inside or steps in self.include_ancestors, inside

    # --- maps -----------------------------------------------------------------

    def map(self, value: dict, prefix: Steps = (), included: bool = False) -> dict:
        out = {}
        for key, item in value.items():
            steps = prefix + (key,)
            keep, inside = self._decide(steps, included)
            if not keep:
                continue
            if steps in self.ancestors and isinstance(item, dict):
                item = self.map(item, steps, inside)
            elif not inside:
                continue  # an ancestor of an included path that holds no map: nothing of it is included
            out[self.renames.get(steps, key)] = item
        return out

    # --- structs --------------------------------------------------------------

    def schema(self, schema: Any, prefix: Steps = (), included: bool = False) -> Any:
        from smt.data import Type

        builder = copy_basics(schema)
        if prefix and schema.optional:
            builder.optional()
        for field in schema.fields:
            steps = prefix + (field.name,)
            keep, inside = self._decide(steps, included)
            if not keep:
                continue
            field_schema = field.schema
            if steps in self.ancestors and field_schema.type is Type.STRUCT:
                field_schema = self.schema(field_schema, steps, inside)
            elif not inside:
                continue
            builder.field(self.renames.get(steps, field.name), field_schema)
        return builder.build()

    def struct(
        self, struct: Any, new_schema: Any, replace_null_with_default: bool, prefix: Steps = (), included: bool = False
    ) -> Any:
        from smt.data import Struct, Type

        updated = Struct(new_schema)
        for field in struct.schema.fields:
            steps = prefix + (field.name,)
            keep, inside = self._decide(steps, included)
            if not keep:
                continue
            name = self.renames.get(steps, field.name)
            target = new_schema.field(name)
            if target is None:
                continue
            item = field_value(struct, field, replace_null_with_default)
            if steps in self.ancestors and field.schema.type is Type.STRUCT and item is not None:
                item = self.struct(item, target.schema, replace_null_with_default, steps, inside)
            updated.put(name, item)
        return updated
