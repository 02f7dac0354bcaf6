"""Rewriting the fields at some (possibly nested) paths of a struct, schema and value.

MaskField, Cast and TimestampConverter change the fields their paths name
and copy everything else; InsertField adds fields to the structs its paths
end in.  With V2 paths those fields may sit inside nested
structs, so the structs along each path are rebuilt (schema and value) and
the rest is shared.  Paths that name no field are ignored, as Kafka ignores
unknown top-level fields.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from smt.transforms._structs import copy_basics, field_value

__all__ = ["StructRewriter"]

SchemaChange = Callable[[tuple[str, ...], Any], Any]
ValueChange = Callable[[tuple[str, ...], Any, Any], Any]


class StructRewriter:
    """Rebuilds struct schemas and values, changing the fields at ``paths``.

    ``change_schema(steps, field_schema)`` gives a target field's new schema,
    ``change_value(steps, field_schema, value)`` its new value (``field_schema``
    is the old one).  The top-level schema keeps only Kafka's "basics" (name,
    version, doc, parameters) unless ``keep_optional``; nested structs keep
    their optionality.
    """

    def __init__(
        self,
        paths: Iterable[tuple[str, ...]],
        change_schema: SchemaChange,
        change_value: ValueChange,
        replace_null_with_default: bool = True,
        keep_optional: bool = False,
        additions: dict[tuple[str, ...], list[tuple[str, Any]]] | None = None,
    ) -> None:
        self.targets = frozenset(tuple(p) for p in paths)
        self.additions = additions or {}
        self.prefixes = frozenset(
            [p[:i] for p in self.targets for i in range(1, len(p))]
            + [p[:i] for p in self.additions for i in range(1, len(p) + 1)]
        )
        self.change_schema = change_schema
        self.change_value = change_value
        self.replace_null_with_default = replace_null_with_default
        self.keep_optional = keep_optional

    def schema(self, schema: Any) -> Any:
        """The rewritten schema (callers cache it per input schema)."""
        return self._schema(schema, (), self.keep_optional)

    def _schema(self, schema: Any, prefix: tuple[str, ...], keep_optional: bool) -> Any:
        from smt.data import Type

        builder = copy_basics(schema)
        if keep_optional and schema.optional:
            builder.optional()
        for field in schema.fields:
            steps = prefix + (field.name,)
            field_schema = field.schema
            if steps in self.targets:
                field_schema = self.change_schema(steps, field_schema)
            elif steps in self.prefixes and field_schema.type is Type.STRUCT:
                field_schema = self._schema(field_schema, steps, True)
            builder.field(field.name, field_schema)
        for name, added_schema in self.additions.get(prefix, ()):
            builder.field(name, added_schema)
        return builder.build()

    def value(self, struct: Any, new_schema: Any, added: dict | None = None) -> Any:
        """``struct`` rebuilt on ``new_schema`` (the result of :meth:`schema` for its schema).

        ``added`` gives the values of the added fields: parent steps -> [(name, value)].
        """
        return self._value(struct, new_schema, (), added or {})

    def _value(self, struct: Any, new_schema: Any, prefix: tuple[str, ...], added: dict) -> Any:
        from smt.data import Struct, Type

        updated = Struct(new_schema)
        for field in struct.schema.fields:
            steps = prefix + (field.name,)
            item = field_value(struct, field, self.replace_null_with_default)
            if steps in self.targets:
                item = self.change_value(steps, field.schema, item)
            elif steps in self.prefixes and field.schema.type is Type.STRUCT and item is not None:
                item = self._value(item, new_schema.field(field.name).schema, steps, added)
            else:
                target = new_schema.field(field.name)
                if item is not None and target.schema is field.schema:
                    updated.put_valid(target, item)  # copied as it was, under the same schema
                    continue
            updated.put(field.name, item)
        for name, item in added.get(prefix, ()):
            updated.put(name, item)
        return updated
