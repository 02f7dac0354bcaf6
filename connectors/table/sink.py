"""Writes records into a table with typed columns (``sink=table``).

The columns come from the record value's Connect schema (see
:mod:`connectors.table.types` for the mapping), or from ``value.schema`` for
values without one.  Each write:

1. learns the columns: the declared ones; the table's own when it exists and
   may not grow (each distinct schema is then checked against them as the
   rows are built); else the distinct types of the values (one pass over the
   cached batch, :class:`~connectors.table.typed.ObservedTypes`) united with
   the table's columns, a field the table lacks being added with
   ``schema.evolution=add_columns`` and refused otherwise;
2. turns the records into table rows batch by batch on the executors
   (:class:`~connectors.table.typed.TypedRows`);
3. writes them with Spark's writer for the format (:mod:`connectors.table.writer`),
   each streaming micro-batch exactly once; with ``write.mode=upsert`` merges them
   by key instead, a tombstone deleting its row (:mod:`connectors.table.upsert`).

With a declared schema the sink also checks every record before the write
(:meth:`TableSink.record_errors`): a value that does not fit fails alone at
TASK_PUT, to the dead-letter queue, naming the field.
"""

from __future__ import annotations

import json

from pyspark import StorageLevel
from pyspark.sql import functions as F
from pyspark.sql import types as T

from connectors.table.columns import ColumnLayout
from connectors.table.config import OPTION_PREFIX, TABLE_SINK_CONFIG, check_where, metadata_column
from connectors.table.ddl import parse_columns
from connectors.table.jars import format_spark_conf
from connectors.table.typed import SCHEMALESS, ObservedTypes, TypedRows, decode_values
from connectors.table.types import TypeConflict, merged_type
from connectors.table.upsert import Upsert
from connectors.table.writer import TableTarget, TableWriteError
from smt.config import ConfigProblem
from smt.connector import Sink, SinkRecordError
from smt.errors import ConfigError

__all__ = ["TableSink"]


class TableSink(Sink):
    """Writes each record as a table row: the value's fields become typed columns.

    Formats: parquet, orc, delta, iceberg, jdbc or any Spark data source, by
    path or catalog table; batch (append, overwrite, error) and streaming
    (exactly once for delta, iceberg tables and parquet/orc paths); upsert by key
    (delta, iceberg, PostgreSQL over jdbc; batch and streaming).  Delta's and Iceberg's
    jars are fetched from Maven Central and their session settings set.
    """

    name = "table"
    config_def = TABLE_SINK_CONFIG

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        prefix = self.context.prefix
        config = self.config
        check_where(config, prefix, "written")
        options = {k[len(OPTION_PREFIX) :]: str(v) for k, v in self.raw_config.items() if k.startswith(OPTION_PREFIX)}
        self.target = TableTarget(
            config["format"],
            config["path"],
            config["table"],
            options,
            list(config["partition.by"]),
            config["table.auto.create"],
            prefix,
        )
        self.upsert = self._upsert(options)
        self.metadata = tuple(config["columns.metadata"])
        declared = parse_columns(config["value.schema"]) if config["value.schema"] else None
        #: The declared columns, checked record by record before the write.
        self.declared = ColumnLayout(declared, strict=True) if declared is not None else None
        self.value_converter = None
        if declared is not None:
            clash = [n for n in declared.names if n in {metadata_column(m) for m in self.metadata}]
            if clash:
                raise ConfigError(
                    [ConfigProblem(f"{prefix}columns.metadata", f"column '{clash[0]}' is also a value field")]
                )

    def _upsert(self, options: dict[str, str]) -> Upsert | None:
        prefix, config = self.context.prefix, self.config
        if config["write.mode"] != "upsert":
            if config["key.columns"]:
                raise ConfigError(
                    [ConfigProblem(f"{prefix}key.columns", f"is read only with {prefix}write.mode=upsert")]
                )
            return None
        problem = Upsert.problem(self.target, options, prefix)
        if problem is not None:
            raise ConfigError([ConfigProblem(f"{prefix}write.mode", problem, "upsert")])
        return Upsert(config["key.columns"], prefix)

    def bind_converters(self, key_converter, value_converter) -> None:
        self.value_converter = value_converter
        if self.upsert is not None:
            self.upsert.bind(key_converter, value_converter)

    def output_paths(self):
        return {f"{self.context.prefix}path": self.config["path"]} if self.config["path"] else {}

    def spark_conf(self) -> dict[str, str]:
        if self.config["format.jars"] == "none":
            return {}
        return format_spark_conf(self.config["format"], self.context.prefix)

    # --- on the executors ------------------------------------------------------------

    def record_errors(self, records):
        if self.value_converter is None or (self.declared is None and self.upsert is None):
            return ()
        problems, values = [], None
        if self.declared is not None:
            schema_key = f"{self.context.prefix}value.schema"
            _, values, errors = decode_values(self.value_converter, records)
            _, misfits = self.declared.rows(values)
            if self.upsert is not None:  # a tombstone deletes its row
                misfits = [(row, exc) for row, exc in misfits if values[row] is not None or row in dict(errors)]
            problems = [(row, SinkRecordError(f"{schema_key}: {exc}")) for row, exc in errors + misfits]
        if self.upsert is not None:
            failed = {row for row, _ in problems}
            problems += [p for p in self.upsert.record_errors(records, values) if p[0] not in failed]
        return problems

    # --- on the driver ---------------------------------------------------------------

    def write(self, df, batch_id=None) -> None:
        if self.value_converter is None:
            raise TableWriteError("the table sink was not bound to the pipeline's value converter")
        if not self.target.routes:
            self._write_table(df, self.target, batch_id, may_persist=True)
            return
        # Each topic's table is one more pass over the records: compute them once.
        df = df.persist(StorageLevel.MEMORY_AND_DISK)
        try:
            topics = sorted(row["topic"] for row in df.select("topic").distinct().collect())
            for topic in topics:
                if topic is None:
                    raise TableWriteError(f"{self.target.where}: a record has no topic to name its table")
                self._write_table(df.where(F.col("topic") == topic), self.target.for_topic(topic), batch_id)
        finally:
            df.unpersist()

    def _write_table(self, df, target: TableTarget, batch_id: int | None, may_persist: bool = False) -> None:
        """The records of ``df`` into the one table ``target``."""
        if batch_id is not None and self.upsert is None:  # an upsert is idempotent: each format may take it
            problem = target.streaming_problem()
            if problem is not None:
                raise TableWriteError(problem)
        existing = target.columns(df.sparkSession)
        # The records' own types are learnt in a pass of their own (then the records are
        # cached for the write) unless the columns are declared, or are the table's and may not grow.
        # An upsert learns its key columns in a pass too.
        fixed = self._fixed_columns(existing)
        observe = may_persist and ((fixed is None and self.declared is None) or self.upsert is not None)
        if observe:
            df = df.persist(StorageLevel.MEMORY_AND_DISK)
        try:
            if fixed is not None:
                layout, grows = ColumnLayout(fixed, strict=True), False
            else:
                layout, grows = self._layout(df, existing, target)
            evolution_key = f"{self.context.prefix}schema.evolution"
            rows_fn = TypedRows(self.value_converter, layout, self.metadata, target.where, fixed, evolution_key)
            rows = df.mapInArrow(rows_fn, rows_fn.output_type())
            merge = grows and self.config["schema.evolution"] == "add_columns"
            if self.upsert is not None:
                self._upsert_table(df, target, rows_fn, batch_id, existing)
            elif batch_id is None:
                target.write(rows, self.config["write.mode"], existing is not None, merge)
            else:
                app_id = target.app_id(self.config["txn.app.id"])
                target.write_micro_batch(rows, batch_id, app_id, existing is not None, merge)
        finally:
            if observe:
                df.unpersist()

    def _upsert_table(self, df, target: TableTarget, rows_fn: TypedRows, batch_id, existing) -> None:
        key_columns = self.upsert.key_columns_of(df, target)
        if key_columns is None:
            return  # no records
        value_columns = [] if existing is None else existing.names
        added = [f for f in rows_fn.layout.columns.fields if existing is not None and f.name not in value_columns]
        app_id = target.app_id(self.config["txn.app.id"])
        self.upsert.write(df, target, rows_fn, key_columns, batch_id, app_id, existing is not None, added)

    def _fixed_columns(self, existing: T.StructType | None) -> T.StructType | None:
        """The table's value columns when they are all a write may fill (no declared schema, no evolution)."""
        if existing is None or self.declared is not None or self.config["schema.evolution"] != "none":
            return None
        return T.StructType([f for f in existing.fields if not _is_metadata(f.name, self.metadata)])

    def _layout(self, df, existing: T.StructType | None, target: TableTarget) -> tuple[ColumnLayout, bool]:
        """The columns this write fills, and whether they add to the table's."""
        prefix = self.context.prefix
        if self.declared is not None:
            columns = self.declared.columns
        else:
            columns = self._observed_columns(df, target)
        if existing is None:
            return ColumnLayout(columns, strict=self.declared is not None), False
        value_columns = T.StructType([f for f in existing.fields if not _is_metadata(f.name, self.metadata)])
        try:
            merged = merged_type(value_columns, columns)
        except TypeConflict as exc:
            raise TableWriteError(f"{target.where}: {exc}; the table's type stays") from None
        added = [f.name for f in merged.fields if f.name not in value_columns.names]
        if added and self.config["schema.evolution"] != "add_columns":
            raise TableWriteError(
                f"{target.where}: field '{added[0]}' is not a column of the table; set "
                f"{prefix}schema.evolution=add_columns to add it"
            )
        return ColumnLayout(merged, strict=self.declared is not None), bool(added)

    def _observed_columns(self, df, target: TableTarget) -> T.StructType:
        types = df.mapInArrow(ObservedTypes(self.value_converter), ObservedTypes.DDL).distinct()
        observed = [row["type"] for row in types.collect()]
        if SCHEMALESS in observed:
            raise TableWriteError(
                f"{target.where}: records have values without a schema; declare the columns with "
                f"{self.context.prefix}value.schema, or use a converter that writes schemas"
            )
        columns = T.StructType([])
        for text in sorted(observed):
            parsed = json.loads(text)
            if not isinstance(parsed, dict) or parsed.get("type") != "struct":
                raise TableWriteError(
                    f"{target.where}: a record value's schema is {text}, not a struct: only a struct's "
                    "fields can be columns"
                )
            data_type = T.StructType.fromJson(parsed)
            try:
                columns = merged_type(columns, data_type)
            except TypeConflict as exc:
                raise TableWriteError(f"{target.where}: {exc}") from None
        return columns


def _is_metadata(name: str, metadata: tuple[str, ...]) -> bool:
    return name in {metadata_column(m) for m in metadata}
