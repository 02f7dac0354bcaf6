"""Change events into a table as Debezium writes them: soft deletes and unavailable (toasted) values.

Two rules an upsert (:mod:`connectors.table.upsert`) applies to the rows of a batch:

- **Soft deletes.**  Debezium's ExtractNewRecordState with
  ``delete.tombstone.handling.mode=rewrite`` turns a delete into the row's last
  state with ``__deleted`` set to the string ``"true"``.  With
  ``delete.field=__deleted`` such a row deletes the row with its key, as a
  tombstone does; without it the row is kept (the field a column).
- **Unavailable values.**  PostgreSQL does not send an unchanged TOASTed
  column of an UPDATE; Debezium writes a placeholder in its place
  (``unavailable.value.placeholder``, ``__debezium_unavailable_value`` unless
  set; ``hex:`` followed by hex digits gives its bytes).  By the column's type
  the placeholder is the string, its bytes, a one-element array of either, the
  array of its bytes as integers, the map ``{string: string}``, or a
  one-element array of the UUID Java's ``UUID.nameUUIDFromBytes`` makes of its
  bytes.  Such a value is nulled in the row and the column's name is listed in
  :data:`UNAVAILABLE_COLUMN`; :func:`carried_unavailable` fills it from an earlier
  change of the key in the same batch, and the merge keeps the stored value for
  the columns still listed (a new row gets null).
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from typing import Any, Sequence

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

__all__ = [
    "DEFAULT_PLACEHOLDER",
    "NO_RULES",
    "UNAVAILABLE_COLUMN",
    "ChangeRules",
    "carried_unavailable",
    "fill_unavailable",
    "placeholder_bytes",
]

#: The placeholder Debezium's PostgreSQL connector writes unless ``unavailable.value.placeholder`` is set.
DEFAULT_PLACEHOLDER = "__debezium_unavailable_value"
#: The column that lists, per row, the columns whose value was unavailable (never written to the table).
UNAVAILABLE_COLUMN = "_smt_unavailable"
_INTEGERS = (pa.int8(), pa.int16(), pa.int32(), pa.int64())


def placeholder_bytes(text: str) -> bytes:
    """The placeholder's bytes as Debezium reads ``unavailable.value.placeholder`` (``hex:`` + hex digits)."""
    return bytes.fromhex(text[4:]) if text.startswith("hex:") else text.encode()


def _java_name_uuid(data: bytes) -> str:
    """Java's ``UUID.nameUUIDFromBytes``: an MD5 (version 3) UUID of ``data``."""
    return str(uuid.UUID(bytes=hashlib.md5(data).digest(), version=3))


@dataclass(frozen=True)
class ChangeRules:
    """The change-event rules of one upsert: ``delete_field`` (empty: none) and the placeholder's bytes
    (``None``: none)."""

    delete_field: str = ""
    placeholder: bytes | None = None

    # --- soft deletes ----------------------------------------------------------------

    def soft_deletes(self, rows: pa.Table) -> pa.Array:
        """Which of ``rows`` delete their row: ``delete_field`` is true or the string ``"true"`` (any case)."""
        if not self.delete_field or self.delete_field not in rows.column_names:
            return pa.array([False] * rows.num_rows, pa.bool_())
        flag = rows.column(self.delete_field).combine_chunks()
        if pa.types.is_boolean(flag.type):
            marked = flag
        elif pa.types.is_string(flag.type) or pa.types.is_large_string(flag.type):
            marked = pc.equal(pc.utf8_lower(flag), "true")
        else:
            return pa.array([False] * rows.num_rows, pa.bool_())
        return pc.fill_null(marked, False)

    # --- unavailable values ----------------------------------------------------------

    def placeholder_columns(self, columns: T.StructType, key_columns: Sequence[str]) -> list[str]:
        """The non-key columns whose type can carry a placeholder."""
        if self.placeholder is None:
            return []
        return [f.name for f in columns.fields if f.name not in key_columns and _spark_kind(f.dataType) is not None]

    def mark_unavailable(self, rows: pa.Table, names: Sequence[str]) -> pa.Table:
        """``rows`` with each placeholder of the columns ``names`` nulled, and :data:`UNAVAILABLE_COLUMN`
        (the names of a row's nulled columns; null when none)."""
        listed: list[list[str] | None] = [None] * rows.num_rows
        for name in names:
            column = rows.column(name).combine_chunks()
            hits = self._placeholder_rows(column)
            if not hits:
                continue
            for row in hits:
                listed[row] = [*(listed[row] or []), name]
            nulled = pc.if_else(_row_mask(hits, rows.num_rows), pa.nulls(rows.num_rows, column.type), column)
            rows = rows.set_column(rows.column_names.index(name), name, nulled)
        return rows.append_column(UNAVAILABLE_COLUMN, pa.array(listed, pa.list_(pa.string())))

    def _placeholder_rows(self, column: pa.Array) -> list[int]:
        forms = _forms_of_arrow(column.type, self.placeholder)
        if not forms:
            return []
        if isinstance(forms[0], (str, bytes)):
            equal = pc.fill_null(pc.equal(column, pa.scalar(forms[0], column.type)), False)
            return pc.indices_nonzero(equal).to_pylist()
        # Arrays and maps: only the rows of a placeholder's length are compared, one by one.
        offsets = column.offsets  # a map's too (list_value_length takes no map)
        lengths = pc.subtract(offsets[1:], offsets[:-1])
        candidates = pc.indices_nonzero(pc.is_in(lengths, pa.array({len(f) for f in forms}, lengths.type)))
        candidates = candidates.to_pylist()
        values = column.take(pa.array(candidates, pa.int64())).to_pylist() if candidates else []
        return [row for row, value in zip(candidates, values) if value in forms]

    # --- the same rules in Spark SQL ---------------------------------------------------

    def soft_delete_column(self, columns: T.StructType) -> Any:
        """Spark SQL of :meth:`soft_deletes` over rows of ``columns`` (a column each)."""
        field = next((f for f in columns.fields if f.name == self.delete_field), None) if self.delete_field else None
        if field is None or not isinstance(field.dataType, (T.BooleanType, T.StringType)):
            return F.lit(False)
        flag = F.col(_quote(field.name))
        marked = flag if isinstance(field.dataType, T.BooleanType) else F.lower(flag) == F.lit("true")
        return F.coalesce(marked, F.lit(False))

    def unavailable_columns(self, columns: T.StructType, names: Sequence[str]) -> dict[str, Any]:
        """Spark SQL of :meth:`mark_unavailable` over rows of ``columns``: each of ``names`` with its
        placeholder nulled, and :data:`UNAVAILABLE_COLUMN`."""
        hits = {name: self._placeholder_sql(F.col(_quote(name)), columns[name].dataType) for name in names}
        out = {name: F.when(~hit, F.col(_quote(name))) for name, hit in hits.items()}
        listed = F.array_compact(F.array(*(F.when(hit, F.lit(name)) for name, hit in hits.items()), F.lit(None)))
        out[UNAVAILABLE_COLUMN] = F.when(F.size(listed) > 0, listed).cast(T.ArrayType(T.StringType()))
        return out

    def _placeholder_sql(self, column: Any, data_type: T.DataType) -> Any:
        """Whether ``column`` (of ``data_type``) holds one of the placeholder's forms (never null)."""
        forms = _spark_forms(data_type, self.placeholder)
        if not forms:
            return F.lit(False)
        if isinstance(data_type, T.MapType):  # maps have no equality: their entries do
            column = F.map_entries(column)
        hit = F.lit(False)
        for form in forms:
            hit = hit | F.coalesce(column == form, F.lit(False))
        return hit


#: No soft deletes, no placeholder.
NO_RULES = ChangeRules()


def _spark_forms(data_type: T.DataType, placeholder: bytes | None) -> list:
    """The placeholder's forms (:func:`_forms`) in a Spark column of ``data_type``, as literals (a map's as
    its entries)."""
    kind = _spark_kind(data_type)
    if kind is None or placeholder is None:
        return []
    if kind == "map":
        entries = [
            [F.struct(F.lit(k).alias("key"), F.lit(v).alias("value")) for k, v in f] for f in _forms(kind, placeholder)
        ]
        return [F.array(*form) for form in entries]
    if kind.endswith(" array"):
        item = data_type.elementType
        return [F.array(*(F.lit(v).cast(item) for v in form)) for form in _forms(kind, placeholder)]
    return [F.lit(form) for form in _forms(kind, placeholder)]


def _spark_kind(data_type: T.DataType) -> str | None:
    """Which of :func:`_forms`' kinds a Spark column type is, or ``None`` (no placeholder fits it)."""
    if isinstance(data_type, T.StringType):
        return "string"
    if isinstance(data_type, T.BinaryType):
        return "binary"
    if isinstance(data_type, T.MapType):
        strings = isinstance(data_type.keyType, T.StringType) and isinstance(data_type.valueType, T.StringType)
        return "map" if strings else None
    if isinstance(data_type, T.ArrayType):
        item = data_type.elementType
        if isinstance(item, (T.StringType, T.BinaryType)):
            return "string array" if isinstance(item, T.StringType) else "binary array"
        if isinstance(item, (T.ByteType, T.ShortType, T.IntegerType, T.LongType)):
            return "integer array"
    return None


def _row_mask(rows: list[int], size: int) -> pa.Array:
    mask = [False] * size
    for row in rows:
        mask[row] = True
    return pa.array(mask)


def _forms_of_arrow(arrow: pa.DataType, placeholder: bytes | None) -> list:
    """The placeholder's forms (:func:`_forms`) in an Arrow column of type ``arrow`` (as ``to_pylist``
    gives them)."""
    kind = _arrow_kind(arrow)
    return [] if kind is None or placeholder is None else _forms(kind, placeholder)


def _arrow_kind(arrow: pa.DataType) -> str | None:
    """Which of :func:`_forms`' kinds an Arrow column type is, or ``None``."""
    if pa.types.is_string(arrow) or pa.types.is_large_string(arrow):
        return "string"
    if pa.types.is_binary(arrow) or pa.types.is_large_binary(arrow):
        return "binary"
    if pa.types.is_map(arrow):
        return "map"
    if pa.types.is_list(arrow) or pa.types.is_large_list(arrow):
        item = arrow.value_type
        if pa.types.is_string(item):
            return "string array"
        if pa.types.is_binary(item):
            return "binary array"
        if item in _INTEGERS:
            return "integer array"
    return None


def _forms(kind: str, placeholder: bytes) -> list:
    """Debezium's forms of the placeholder in a column of ``kind``, as plain values: the string, its bytes,
    the map ``{string: string}`` (as its entries), a one-element array of the string or of the UUID Java's
    ``UUID.nameUUIDFromBytes`` makes of the bytes (a ``uuid[]`` reads as strings), of the bytes, or the
    bytes as signed integers."""
    text = placeholder.decode(errors="replace")
    return {
        "string": [text],
        "binary": [placeholder],
        "map": [[(text, text)]],
        "string array": [[text], [_java_name_uuid(placeholder)]],
        "binary array": [[placeholder]],
        "integer array": [[b - 256 if b > 127 else b for b in placeholder]],
    }[kind]


def carried_unavailable(names: Sequence[str], in_order: Any, delete: str) -> dict[str, Any]:
    """Window columns over ``in_order`` (a key's rows in the order read; rows with :data:`UNAVAILABLE_COLUMN`
    and the delete flag ``delete``): for each of the columns ``names``, the value the last earlier change
    of the key that had it gave (a struct ``v``; null when none).  :func:`fill_unavailable` uses them."""
    earlier = in_order.rowsBetween(Window.unboundedPreceding, -1)
    return {
        _carried(i): F.last(
            F.when(~_missing(name) & ~F.col(delete), F.struct(F.col(_quote(name)).alias("v"))), True
        ).over(earlier)
        for i, name in enumerate(names)
    }


def fill_unavailable(rows: Any, names: Sequence[str]) -> Any:
    """``rows`` with each unavailable value of the columns ``names`` taken from
    :func:`carried_unavailable`'s columns, which are dropped; the columns no change had stay listed."""
    if not names:
        return rows
    found = {name: F.col(_carried(i)) for i, name in enumerate(names)}
    missing = {name: _missing(name) for name in names}
    filled = {
        name: F.when(missing[name] & found[name].isNotNull(), found[name]["v"]).otherwise(F.col(_quote(name)))
        for name in names
    }
    still = F.array_compact(F.array(*(F.when(missing[n] & found[n].isNull(), F.lit(n)) for n in names)))
    filled[UNAVAILABLE_COLUMN] = F.when(F.col(UNAVAILABLE_COLUMN).isNotNull(), still)
    return rows.withColumns(filled).drop(*(_carried(i) for i in range(len(names))))


def _carried(i: int) -> str:
    return f"_smt_carried_{i}"


def _missing(name: str) -> Any:
    """Whether a row lists column ``name`` unavailable (never null)."""
    return F.coalesce(F.array_contains(F.col(UNAVAILABLE_COLUMN), name), F.lit(False))


def kept_if_unavailable_sql(name: str, target: str, source: str) -> str:
    """Spark SQL: the stored value of column ``name`` when the source row lists it unavailable, else the new one."""
    column = _quote(name)
    return (
        f"CASE WHEN array_contains({source}.{UNAVAILABLE_COLUMN}, {_spark_string(name)}) "
        f"THEN {target}.{column} ELSE {source}.{column} END"
    )


def fill_unavailable_pg(table: str, staging: str, names: Sequence[str], keys: Sequence[str]) -> str:
    """PostgreSQL: fill the staging table's unavailable values of ``names`` from the stored rows, so the
    upsert that follows writes them back unchanged."""
    sets = ", ".join(
        f"{_pg_quote(n)} = CASE WHEN {_pg_string(n)} = ANY(s.{_pg_quote(UNAVAILABLE_COLUMN)}) "
        f"THEN t.{_pg_quote(n)} ELSE s.{_pg_quote(n)} END"
        for n in names
    )
    match = " AND ".join(f"t.{_pg_quote(k)} = s.{_pg_quote(k)}" for k in keys)
    return f"UPDATE {staging} AS s SET {sets} FROM {table} AS t WHERE {match} AND s.{_pg_quote(UNAVAILABLE_COLUMN)} <> '{{}}'"


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _pg_quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _spark_string(text: str) -> str:
    """A Spark SQL string literal (a backslash escapes there)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _pg_string(text: str) -> str:
    """A PostgreSQL string literal (standard-conforming: only quotes doubled)."""
    return "'" + text.replace("'", "''") + "'"
