"""ExtractNewRecordState's compiled form: a Debezium envelope's row state as Spark SQL columns.

The compiled path (:mod:`smt.compiled`) hands the transform the envelope as
columns (``before``, ``after`` and ``source`` as struct columns).  The form
covers what is a plain column rewrite, with the Python path's rules:

- a create, read or update (``after`` not null) becomes ``after``, plus
  ``__deleted="false"`` in the rewrite modes;
- in the rewrite modes, a delete (``after`` null, ``before`` not) becomes
  ``before`` plus ``__deleted="true"``, when ``before`` has ``after``'s schema;
- ``add.fields`` of primitive envelope, ``source`` or ``transaction`` fields
  (renamed or not) are added as the Python path adds them.

Every other record is not exact (:attr:`CompiledValue.exact`) and takes the
Python path: a truncate event, a delete the mode drops or turns into a
tombstone, a delete whose ``before`` has another schema.  The compiled
reader never vouches for a null value, so the connector's tombstones take it
too.  Keys whose effect is not a column rewrite (``add.headers``,
``route.by.field``, ``drop.fields.header.name``) refuse the form.
"""

from __future__ import annotations

from typing import Any

from smt.compiled import CompiledValue, NotCompilable
from smt.data import Type

__all__ = ["compile_unwrap"]

_REWRITES = frozenset({"rewrite", "rewrite-with-tombstone"})
_NOT_PRIMITIVE = frozenset({Type.STRUCT, Type.ARRAY, Type.MAP})


def compile_unwrap(transform: Any, value: CompiledValue, F: Any) -> CompiledValue:
    """``transform`` (a configured ExtractNewRecordState) on ``value``, as columns; raises NotCompilable."""
    _check_keys(transform)
    envelope = value.schema
    if envelope.name is None or not envelope.name.endswith(".Envelope"):
        raise NotCompilable(f"the value schema ({envelope.name or 'unnamed'}) is not a Debezium *.Envelope")
    after_schema, before_schema = _part(envelope, "after"), _part(envelope, "before")
    after, before = value.columns["after"], value.columns["before"]
    rewrites = transform.mode in _REWRITES
    if rewrites and before_schema == after_schema:
        row_schema, row, exact = after_schema, F.when(after.isNotNull(), after).otherwise(before), after.isNotNull()
        exact = exact | before.isNotNull()
    else:  # deletes and truncates take the Python path
        row_schema, row, exact = after_schema, after, after.isNotNull()
    columns = {field.name: row[field.name] for field in row_schema.fields}
    if rewrites:
        row_schema = transform.schema_cache.get(("deleted", row_schema), transform._with_deleted)
        columns["__deleted"] = F.when(after.isNotNull(), F.lit("false")).otherwise(F.lit("true"))
    schema = _with_fields(transform, row_schema, envelope)
    for reference in transform.fields:
        if reference.schema(envelope) is not None:
            columns[reference.new_name] = _referenced(reference, value, F)
    return CompiledValue(schema, {field.name: columns[field.name] for field in schema.fields}, exact)


def _check_keys(transform: Any) -> None:
    prefix = transform.context.prefix
    for key, set_ in (
        ("add.headers", bool(transform.headers)),
        ("route.by.field", bool(transform.route_by)),
        ("drop.fields.header.name", bool(transform.drop_header)),
    ):
        if set_:
            raise NotCompilable(f"{prefix}{key} is set: it changes more than the value's columns")


def _part(envelope: Any, name: str) -> Any:
    field = envelope.field(name)
    if field is None or field.schema.type is not Type.STRUCT:
        raise NotCompilable(f"the envelope has no struct field '{name}'")
    if field.schema.default is not None:
        raise NotCompilable(f"the envelope's field '{name}' has a default")
    return field.schema


def _with_fields(transform: Any, row_schema: Any, envelope: Any) -> Any:
    """The row's schema with the ``add.fields`` the envelope has, as the Python path derives it."""
    names = {field.name for field in row_schema.fields}
    for reference in transform.fields:
        block = envelope.field(reference.struct) if reference.struct is not None else None
        if block is not None and block.schema.type is not Type.STRUCT:
            raise NotCompilable(f"add.fields: the envelope's field '{reference.struct}' is not a struct")
        field_schema = reference.schema(envelope)
        if field_schema is None:
            continue
        if field_schema.type in _NOT_PRIMITIVE:
            raise NotCompilable(f"add.fields: {reference.struct or ''}.{reference.field} is not a primitive")
        if reference.new_name in names:
            raise NotCompilable(f"add.fields: the row already has a field '{reference.new_name}'")
        names.add(reference.new_name)
    return transform.schema_cache.get(("fields", row_schema, envelope), transform._derive)


def _referenced(reference: Any, value: CompiledValue, F: Any) -> Any:
    """The column of an added field (:meth:`FieldReference.value`: null where its block is null)."""
    envelope = value.schema
    if reference.struct is None:
        return value.columns[reference.field]
    block = value.columns[reference.struct]
    if envelope.field(reference.struct).schema.field(reference.field) is not None:
        return block[reference.field]
    return F.when(block.isNotNull(), value.columns[reference.field])
