"""Upsert and delete by key (``write.mode=upsert``): the change-data-capture path into a table.

A record replaces the table's row with the same key columns, or adds one; a
tombstone (a record with a key and a null value) deletes the row.  The key
columns are ``key.columns`` (value fields) or, when it is empty, the fields
of the record key's struct.  A row's key comes from its value, a tombstone's
from its key (a struct key's fields, or a primitive key as the one column).

Each write:

1. :meth:`Upsert.record_errors` fails, alone and at TASK_PUT, a record whose
   key cannot be told (no key, a key column missing or null), naming the field;
2. the records become table rows, each with a delete flag and its place in
   the order read: values with a schema, which reach the write as typed JSON
   lines, in the JVM (:func:`typed_upsert_rows`), a tombstone as its key
   columns in Python (:class:`UpsertRows`), as are values read against
   ``value.schema`` (the converter's bytes).  A change event's soft delete
   and unavailable (toasted) values follow :mod:`connectors.table.cdc`'s
   rules.
3. :func:`latest_per_key` keeps, of several rows with one key, the last read
   (MERGE refuses a row matched by two source rows), so a tombstone followed
   by a record with its key re-inserts the row;
4. the rows are merged into the table: Delta and Iceberg with ``MERGE INTO``
   (:func:`merge_into`), PostgreSQL over JDBC with an ``INSERT ... ON
   CONFLICT`` (:mod:`connectors.table.upsert_jdbc`).  A table that does not
   exist yet is created by the append path with the rows that are not deletes.

Merging the same rows twice leaves the table as merging them once, so a
streaming micro-batch replayed after a crash is written exactly once.
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any, Iterator, Sequence

import pyarrow as pa
import pyarrow.compute as pc
from pyspark import TaskContext
from pyspark.sql import Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from connectors.table.cdc import (
    NO_RULES,
    UNAVAILABLE_COLUMN,
    ChangeRules,
    carried_unavailable,
    fill_unavailable,
    kept_if_unavailable_sql,
)
from connectors.table.columns import ColumnLayout, arrow_type
from connectors.table.compiled import compiled_rows, type_lines
from connectors.table.config import metadata_column
from connectors.table.typed import TypedRows, record_name
from connectors.table.typed_json import TypeLines, table_rows
from connectors.table.upsert_jdbc import jdbc_columns, upsert_jdbc, upsert_jdbc_problem
from connectors.table.writer import TableTarget, TableWriteError
from smt.compiled import COMPILED_KEY_COLUMN
from smt.connector import SinkRecordError
from smt.data import Struct
from smt.python_worker import prepare_worker

__all__ = ["DELETE_COLUMN", "Upsert", "UpsertRows", "WriteShapes", "latest_per_key", "merge_into", "quote"]
__all__ += ["typed_upsert_rows"]

#: The column that marks a row as a tombstone's delete (never written to the table).
DELETE_COLUMN = "_smt_delete"
#: The row's place in the order read: the last of a key wins.
_ORDER_COLUMN = "_smt_order"
#: Spark partitions times rows: bits of the order left for the row within its partition.
_ROW_BITS = 40


def quote(name: str) -> str:
    """``name`` as a Spark SQL identifier."""
    return "`" + name.replace("`", "``") + "`"


class Upsert:
    """What ``write.mode=upsert`` adds to a table sink: the key columns, their checks, the merge."""

    def __init__(
        self, key_columns: Sequence[str], prefix: str, may_add: bool = False, rules: ChangeRules = NO_RULES
    ) -> None:
        #: ``key.columns``; empty: the record key's struct fields.
        self.key_columns = tuple(key_columns)
        self.prefix = prefix
        #: Whether ``schema.evolution=add_columns`` lets a write add columns to the table.
        self.may_add = may_add
        #: Soft deletes and unavailable values (``delete.field``, ``unavailable.value.placeholder``).
        self.rules = rules
        self.key_converter: Any = None
        self.value_converter: Any = None

    @staticmethod
    def problem(target: TableTarget, options: dict[str, str], prefix: str) -> str | None:
        """Why ``target`` cannot take upserts, or ``None``."""
        if target.fmt == "jdbc":
            return upsert_jdbc_problem(options, prefix)
        if target.fmt == "delta" or (target.fmt == "iceberg" and target.table):
            return None
        return (
            f"{prefix}write.mode=upsert updates and deletes rows: format {target.fmt} cannot; "
            "use format delta, iceberg or jdbc (PostgreSQL)"
        )

    def bind(self, key_converter: Any, value_converter: Any) -> None:
        self.key_converter = key_converter
        self.value_converter = value_converter

    # --- on the executors ------------------------------------------------------------

    def record_errors(self, records: pa.RecordBatch, values: list | None) -> list[tuple[int, SinkRecordError]]:
        """The records whose key cannot be told, each with the field that is missing.

        ``values`` are the records' decoded values when the caller has them, else ``None``.
        """
        topics = records.column("topic").to_pylist()
        raw_values = records.column("value")
        if values is None:
            values = self.value_converter.to_connect_batch(topics, raw_values.to_pylist(), lambda row, exc: None)[1]
        key_failures: dict[int, BaseException] = {}
        _, keys = self.key_converter.to_connect_batch(
            topics, records.column("key").to_pylist(), lambda row, exc: key_failures.setdefault(row, exc)
        )
        tombstones = raw_values.is_null().to_pylist()
        errors = []
        for row, (key, value, tombstone) in enumerate(zip(keys, values, tombstones)):
            if row in key_failures:
                reason = f"the record key cannot be read by the key converter: {key_failures[row]}"
            elif tombstone:
                reason = self._tombstone_key_problem(key)
            elif value is None:
                continue  # a value the converter could not read fails with the sink's own check
            else:
                reason = self._value_key_problem(key, value)
            if reason is not None:
                errors.append((row, SinkRecordError(f"{self.prefix}write.mode=upsert: {reason}")))
        return errors

    def _tombstone_key_problem(self, key: Any) -> str | None:
        if key is None:
            return "a tombstone (null value) without a key names no row to delete"
        if not self.key_columns:
            return _struct_key_problem(key, self.prefix)
        if isinstance(key, (Struct, dict)):
            for name in self.key_columns:
                if _field(key, name) is None:
                    return f"key column '{name}' is missing or null in the tombstone's key"
            return None
        if len(self.key_columns) > 1:
            return (
                f"the tombstone's key is {_kind(key)}, not a struct with the key columns {', '.join(self.key_columns)}"
            )
        return None

    def _value_key_problem(self, key: Any, value: Any) -> str | None:
        names = self.key_columns
        if not names:
            problem = _struct_key_problem(key, self.prefix)
            if problem is not None:
                return problem
            names = _field_names(key)
        if not isinstance(value, (Struct, dict)):
            return None  # not a struct: the sink's own check names it
        for name in names:
            if _field(value, name) is None:
                return f"key column '{name}' is missing or null in the value"
        return None

    # --- on the driver ---------------------------------------------------------------

    def compiled_problem(self, schema: Any, key_schema: Any) -> str | None:
        """Why records with values of the Connect ``schema`` and keys of ``key_schema`` (None: keys left as
        bytes) cannot be upserted from the compiled path's columns: :meth:`record_errors`'s checks, made
        once for the schemas (``schema`` None: for the sink as configured)."""
        if schema is None:
            return None
        names = self.key_columns
        if not names and key_schema is None:
            return (
                f"{self.prefix}write.mode=upsert: the key columns are the record keys' fields, which "
                f"key.converter bytearray does not read; or name them with {self.prefix}key.columns"
            )
        for name in names or [field.name for field in key_schema.fields]:
            field = schema.field(name)
            if field is None or field.schema.optional:
                what = "not a field" if field is None else "an optional field"
                return f"{self.prefix}write.mode=upsert: key column '{name}' is {what} of the value"
        return None

    def compiled_shapes(self, df: Any, compiled: list[str]) -> "WriteShapes":
        """The key columns and value types of a write whose every record is compiled (its value of one of
        the ``compiled`` columns, its key of :data:`~smt.compiled.COMPILED_KEY_COLUMN`): no tombstone."""
        key_columns = self.key_columns or tuple(df.schema[COMPILED_KEY_COLUMN].dataType.names)
        return WriteShapes(key_columns, type_lines(df, compiled), tombstones=False)

    def shapes_of(self, df: Any, types: TypeLines | None, target: TableTarget) -> "WriteShapes":
        """The key columns of this write and, with ``types``, the distinct value types it observes and
        whether any record is a tombstone, in one pass over the records.

        The key columns are ``key.columns``, else the fields of the records' struct keys (``None`` when
        there are no records).  Each task reports what it saw, and the driver keeps each once: no shuffle.
        """
        learn_keys = not self.key_columns
        if not learn_keys and types is None:
            return WriteShapes(self.key_columns, [], tombstones=True)
        key_fields = _KeyFields(self.key_converter) if learn_keys else None
        read = ["topic", *(["key"] if learn_keys else []), *(["value"] if types is not None else [])]
        found = df.select(*read).mapInArrow(_Shapes(key_fields, types), _Shapes.DDL).collect()
        observed = sorted({row["text"] for row in found if row["kind"] == _Shapes.TYPE})
        tombstones = types is None or any(row["kind"] == _Shapes.TOMBSTONE for row in found)
        if not learn_keys:
            return WriteShapes(self.key_columns, observed, tombstones)
        field_lists = sorted({row["text"] for row in found if row["kind"] == _Shapes.KEY})
        if not field_lists:
            return WriteShapes(None, observed, tombstones)
        if len(field_lists) > 1:
            shown = " and ".join(f"({names})" for names in field_lists[:2])
            raise TableWriteError(
                f"{target.where}: the records' keys have different fields, {shown}; name the key columns "
                f"with {self.prefix}key.columns"
            )
        return WriteShapes(tuple(field_lists[0].split(",")), observed, tombstones)

    def write(
        self,
        df: Any,
        target: TableTarget,
        rows_fn: TypedRows,
        key_columns: tuple[str, ...],
        batch_id: int | None,
        app_id: str,
        exists: bool,
        added: list[T.StructField],
        typed_json: bool = False,
        tombstones: bool = True,
        compiled: Sequence[str] = (),
    ) -> None:
        """Merge the records of ``df`` into ``target`` by ``key_columns``; ``added`` are columns this write
        adds to an existing table (``schema.evolution=add_columns``).  With ``typed_json`` the values are
        typed JSON lines, read in the JVM (:func:`typed_upsert_rows`), and only the tombstones go through
        Python (none at all when ``tombstones`` is False: the write has none); else ``rows_fn`` decodes
        the converter's bytes.  With ``compiled`` columns every record is a compiled row (see
        :mod:`connectors.table.compiled`): no Python at all."""
        columns = rows_fn.layout.columns
        if not columns.fields:
            # Only tombstones: no value told the columns.  Nothing to delete from a table that is
            # not there; a database table's key columns are the database's.
            key_type = jdbc_columns(df.sparkSession, target, key_columns) if target.is_jdbc else None
            if key_type is None:
                return
            rows_fn = TypedRows(rows_fn.converter, ColumnLayout(key_type, strict=False), (), rows_fn.where)
            columns = key_type
        missing = [name for name in key_columns if name not in columns.names]
        if missing:
            raise TableWriteError(
                f"{target.where}: key column '{missing[0]}' is not a column of the table"
                + ("" if self.key_columns else " (the key's fields must be value fields too)")
            )
        unavailable = self.rules.placeholder_columns(columns, key_columns)
        upsert_rows = UpsertRows(rows_fn, self.key_converter, key_columns, self.rules, unavailable)
        if compiled or typed_json:
            # Numbered as read before the records part: a typed write's tombstones' rows come from Python.
            ordered = df.withColumn(_ORDER_COLUMN, F.monotonically_increasing_id())
        if compiled:
            rows = compiled_rows(ordered, compiled, columns, carry=[_ORDER_COLUMN])
            rows = with_change_flags(rows, columns, self.rules, unavailable)
        elif typed_json:
            live = ordered.where(F.col("value").isNotNull())
            rows = typed_upsert_rows(live, rows_fn, self.rules, unavailable)
            if tombstones:
                dead = ordered.where(F.col("value").isNull())
                rows = rows.unionByName(dead.mapInArrow(upsert_rows, upsert_rows.output_type()))
        else:
            rows = df.mapInArrow(upsert_rows, upsert_rows.output_type())
        latest = latest_per_key(rows, key_columns, unavailable)
        if target.is_jdbc:
            evolution = (f"{self.prefix}schema.evolution", self.may_add)
            upsert_jdbc(latest, target, key_columns, DELETE_COLUMN, evolution, unavailable)
            return
        if not exists:
            inserts = latest.where(~F.col(DELETE_COLUMN)).drop(DELETE_COLUMN, UNAVAILABLE_COLUMN)
            if batch_id is None:
                target.write(inserts, "append", False, False)
            else:
                target.write_micro_batch(inserts, batch_id, app_id, False, False)
            return
        if (typed_json or compiled) and target.fmt == "iceberg":
            # Iceberg merges only a deterministic source: the rows numbered as read are kept, not numbered again.
            latest = latest.localCheckpoint()
        merge_into(latest, target, key_columns, added, unavailable)


class _KeyFields:
    """The distinct field lists (comma-joined) of the struct keys of batches."""

    def __init__(self, converter: Any) -> None:
        self.converter = converter

    def observe(self, batch: pa.RecordBatch, seen: set[str]) -> None:
        _, keys = self.converter.to_connect_batch(
            batch.column("topic").to_pylist(), batch.column("key").to_pylist(), lambda row, exc: None
        )
        seen.update(",".join(_field_names(key)) for key in keys if isinstance(key, (Struct, dict)))


@dataclasses.dataclass(frozen=True)
class WriteShapes:
    """What :meth:`Upsert.shapes_of` found in a write's records."""

    #: the key columns; None when there are no records
    key_columns: tuple[str, ...] | None
    #: the distinct value types (typed JSON type lines)
    value_types: list[str]
    #: whether any record is a tombstone (True when the pass did not read the values)
    tombstones: bool


class _Shapes:
    """``mapInArrow`` function: the distinct key field lists (:class:`_KeyFields`) and value types
    (:class:`~connectors.table.typed_json.TypeLines`) of a task's batches, a row each, and a row when
    they hold a tombstone, told apart by ``kind``."""

    DDL = "kind string, text string"
    KEY = "key"
    TYPE = "type"
    TOMBSTONE = "tombstone"

    def __init__(self, key_fields: _KeyFields | None, types: TypeLines | None) -> None:
        self.key_fields = key_fields
        self.types = types

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        prepare_worker()
        key_lists: set[str] = set()
        types: dict[Any, str] = {}
        tombstone = False
        for batch in batches:
            tombstone = tombstone or ("value" in batch.schema.names and batch.column("value").null_count > 0)
            if self.key_fields is not None:
                self.key_fields.observe(batch, key_lists)
            if self.types is not None:
                self.types.observe(batch, types)
        type_texts = sorted(set(types.values()))
        kinds = [self.KEY] * len(key_lists) + [self.TYPE] * len(type_texts) + [self.TOMBSTONE] * tombstone
        texts = sorted(key_lists) + type_texts + [""] * tombstone
        yield pa.RecordBatch.from_arrays([pa.array(kinds, pa.string()), pa.array(texts, pa.string())], ["kind", "text"])


class UpsertRows:
    """``mapInArrow`` function: table rows (:class:`TypedRows`), a tombstone as its key columns, each
    row with the delete flag (a tombstone, or a soft delete) and its place in the order read; with
    ``unavailable`` columns, their placeholders nulled and listed in :data:`UNAVAILABLE_COLUMN`.

    The columns are all nullable: a tombstone's row has only its key.
    """

    def __init__(
        self,
        rows_fn: TypedRows,
        key_converter: Any,
        key_columns: tuple[str, ...],
        rules: ChangeRules = NO_RULES,
        unavailable: Sequence[str] = (),
    ) -> None:
        self.rows_fn = rows_fn
        self.rules = rules
        self.unavailable = tuple(unavailable)
        self.key_converter = key_converter
        self.key_columns = key_columns
        key_type = T.StructType([rows_fn.layout.columns[name] for name in key_columns])
        self.key_layout = ColumnLayout(key_type, strict=False)

    def output_type(self) -> T.StructType:
        fields = [T.StructField(f.name, f.dataType, True) for f in self.rows_fn.output_type().fields]
        if self.unavailable:
            fields.append(T.StructField(UNAVAILABLE_COLUMN, T.ArrayType(T.StringType())))
        return T.StructType(
            [*fields, T.StructField(DELETE_COLUMN, T.BooleanType(), False), T.StructField(_ORDER_COLUMN, T.LongType())]
        )

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        prepare_worker()
        context = TaskContext.get()
        first = (context.partitionId() if context is not None else 0) << _ROW_BITS
        schema = _nullable_schema(self.rows_fn.output_type())
        for batch in batches:
            tombstone = batch.column("value").is_null()
            live = pc.indices_nonzero(pc.invert(tombstone))
            dead = pc.indices_nonzero(tombstone)
            parts = []
            if len(live):
                parts.append(self.rows_fn.rows(batch.take(live)).cast(schema))
            if len(dead):
                parts.append(self._deletes(batch.take(dead), schema))
            order = pa.concat_arrays([live, dead]).cast(pa.int64())
            if _ORDER_COLUMN in batch.schema.names:  # numbered before the records parted (Upsert.write)
                order = batch.column(_ORDER_COLUMN).take(order)
            else:
                order = pc.add(order, first)
            table = pa.Table.from_batches(parts, schema)
            tombstones = pa.array([False] * len(live) + [True] * len(dead))
            deletes = pc.or_(tombstones, self.rules.soft_deletes(table))
            if self.unavailable:
                table = self.rules.mark_unavailable(table, self.unavailable)
            table = table.append_column(DELETE_COLUMN, deletes)
            table = table.append_column(_ORDER_COLUMN, order)
            first += batch.num_rows
            yield from table.combine_chunks().to_batches()

    def _deletes(self, batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
        """The rows of ``batch``'s tombstones: their key columns from the record key, nulls elsewhere."""
        _, keys = self.key_converter.to_connect_batch(
            batch.column("topic").to_pylist(), batch.column("key").to_pylist()
        )
        named = [key if isinstance(key, (Struct, dict)) else {self.key_columns[0]: key} for key in keys]
        rows, misfits = self.key_layout.rows(named)
        if misfits:
            row, exc = misfits[0]
            raise SinkRecordError(
                f"{self.rows_fn.where}: tombstone {record_name(batch, row)}: its key does not fit the key "
                f"columns: {exc}"
            )
        keys_array = self.key_layout.arrow(rows)
        columns = [
            keys_array.field(field.name).cast(field.type)
            if field.name in self.key_columns
            else pa.nulls(batch.num_rows, field.type)
            for field in schema
        ]
        return pa.RecordBatch.from_arrays(columns, schema=schema)


def typed_upsert_rows(records: Any, rows_fn: TypedRows, rules: ChangeRules, unavailable: Sequence[str]) -> Any:
    """The rows :class:`UpsertRows` makes of ``records`` (with their values as typed JSON lines, none null,
    and numbered in :data:`_ORDER_COLUMN`), made in the JVM: ``from_json``, and the rules in Spark SQL."""
    columns = rows_fn.layout.columns
    row = "_smt_row"
    metadata = [metadata_column(name) for name in rows_fn.metadata]
    rows = records.select(
        table_rows(F.col("value").cast("string"), columns).alias(row),
        *(F.col(name).alias(metadata_column(name)) for name in rows_fn.metadata),
        _ORDER_COLUMN,
    ).select(f"{row}.*", *metadata, _ORDER_COLUMN)
    return with_change_flags(rows, columns, rules, unavailable)


def with_change_flags(rows: Any, columns: T.StructType, rules: ChangeRules, unavailable: Sequence[str]) -> Any:
    """``rows`` (table rows of ``columns``) with their delete flags and, with ``unavailable`` columns, their
    placeholders nulled and listed, by the change ``rules``, in Spark SQL."""
    if unavailable:
        rows = rows.withColumns(rules.unavailable_columns(columns, unavailable))
    return rows.withColumn(DELETE_COLUMN, rules.soft_delete_column(columns))


def latest_per_key(rows: Any, key_columns: Sequence[str], unavailable: Sequence[str] = ()) -> Any:
    """Of the rows with one key, the last read (with its delete flag), without the order column; its
    ``unavailable`` values taken from the key's earlier rows (:func:`~connectors.table.cdc.carried_unavailable`).

    Without ``unavailable`` columns only a key's last row counts, so Spark keeps each task's last row
    of a key before the shuffle.  With them, both look at a key's rows in the order read, in one window:
    one sort of the rows."""
    key = Window.partitionBy(*(F.col(quote(name)) for name in key_columns))
    if not unavailable:
        rank = "_smt_rank"
        latest = rows.withColumn(rank, F.row_number().over(key.orderBy(F.col(_ORDER_COLUMN).desc())))
        return latest.where(F.col(rank) == 1).drop(rank, _ORDER_COLUMN)
    in_order, last = key.orderBy(F.col(_ORDER_COLUMN)), "_smt_last"
    rows = rows.withColumns(
        {last: F.lead(F.lit(1)).over(in_order).isNull(), **carried_unavailable(unavailable, in_order, DELETE_COLUMN)}
    )
    return fill_unavailable(rows.where(F.col(last)), unavailable).drop(last, _ORDER_COLUMN)


def merge_into(
    latest: Any,
    target: TableTarget,
    key_columns: Sequence[str],
    added: list[T.StructField],
    unavailable: Sequence[str] = (),
) -> None:
    """``MERGE INTO`` the existing Delta or Iceberg table of ``target`` the rows of ``latest``; a column of
    ``unavailable`` that a row lists keeps its stored value."""
    spark = latest.sparkSession
    table = target.table or f"delta.{quote(target.path)}"
    if added:
        spark.sql(f"ALTER TABLE {table} ADD COLUMNS ({', '.join(_column_ddl(f) for f in added)})")
    view = f"smt_upsert_{uuid.uuid4().hex}"
    latest.createOrReplaceTempView(view)
    columns = [name for name in latest.columns if name not in (DELETE_COLUMN, UNAVAILABLE_COLUMN)]
    on = " AND ".join(f"t.{quote(name)} = s.{quote(name)}" for name in key_columns)
    updated = [
        f"t.{quote(n)} = " + (kept_if_unavailable_sql(n, "t", "s") if n in unavailable else f"s.{quote(n)}")
        for n in columns
        if n not in key_columns
    ]
    update = f"WHEN MATCHED THEN UPDATE SET {', '.join(updated)} " if updated else ""
    insert_columns = ", ".join(quote(n) for n in columns)
    insert_values = ", ".join(f"s.{quote(n)}" for n in columns)
    try:
        spark.sql(
            f"MERGE INTO {table} AS t USING {view} AS s ON {on} "
            f"WHEN MATCHED AND s.{DELETE_COLUMN} THEN DELETE {update}"
            f"WHEN NOT MATCHED AND NOT s.{DELETE_COLUMN} THEN INSERT ({insert_columns}) VALUES ({insert_values})"
        )
    finally:
        spark.catalog.dropTempView(view)


def _column_ddl(field: T.StructField) -> str:
    return f"{quote(field.name)} {field.dataType.simpleString()}"


def _nullable_schema(columns: T.StructType) -> pa.Schema:
    return pa.schema([pa.field(f.name, arrow_type(f.dataType), True) for f in columns.fields])


def _struct_key_problem(key: Any, prefix: str) -> str | None:
    if key is None:
        return f"the record has no key; the key columns are its key's fields unless {prefix}key.columns names them"
    if not isinstance(key, (Struct, dict)):
        return (
            f"the record key is {_kind(key)}, not a struct whose fields are the key columns; "
            f"name the key columns with {prefix}key.columns"
        )
    for name in _field_names(key):
        if _field(key, name) is None:
            return f"key column '{name}' is null in the record key"
    return None


def _field_names(key: Any) -> list[str]:
    return [f.name for f in key.schema.fields] if isinstance(key, Struct) else list(key)


def _field(value: Any, name: str) -> Any:
    """The value of field ``name`` of a struct or map, ``None`` when it has none."""
    if isinstance(value, Struct):
        return value.get(name) if value.schema.field(name) is not None else None
    return value.get(name)


def _kind(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"[:60]
