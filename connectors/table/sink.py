"""Writes records into a table with typed columns (``sink=table``).

The columns come from the record value's Connect schema (see
:mod:`connectors.table.types` for the mapping), or from ``value.schema`` for
values without one.

Values with a schema never go through the value converter's bytes: the sink
takes them as the chain left them (:meth:`TableSink.encode_values`) and
carries them to the write as typed JSON lines (their Spark type, then the
value; :mod:`connectors.table.typed_json`).  Each write then, in the JVM,
learns the columns from the distinct types (united with the table's, a
field the table lacks being added with ``schema.evolution=add_columns`` and
refused otherwise), reads the values with ``from_json``, and writes them
with Spark's writer for the format (:mod:`connectors.table.writer`), each
streaming micro-batch exactly once.  Values without a schema keep the value
converter's bytes, which the write decodes on the executors into the
declared columns (:class:`~connectors.table.typed.TypedRows`).

A batch run may also hand the sink records that never entered Python: the
pipeline's compiled path (:mod:`smt.pipeline.compiled_plan`) decodes and
transforms them as Spark columns, and the runner gives them to ``write``
beside the typed JSON rows, in the same DataFrame, as struct columns of
:meth:`TableSink.compiled_type` (:class:`smt.connector_roles.CompiledInput`,
:mod:`connectors.table.compiled`): one write, one commit.

With ``write.mode=upsert`` the values travel as typed JSON lines too, and
the records keep the key converter's bytes (a tombstone's row is its key):
the write merges the rows by key instead of appending them, a tombstone
deleting its row (:mod:`connectors.table.upsert`).

Records that cannot be written fail alone at TASK_PUT, to the dead-letter
queue, naming the table and field, before the write: with a declared schema,
a value that does not fit it (:meth:`TableSink.record_errors`); else a
tombstone (unless upserting: it deletes), a value without a schema or one
that is not a struct, and a value whose schema conflicts with its table's
columns or adds one that may not be added (:meth:`TableSink.value_errors`,
the rules of :mod:`connectors.table.fit`).  Its table is the sink's, or with
``${topic}`` its topic's; the columns are those the table had before the
batch: looked up as the job starts, then as each write left them, so that a
streaming micro-batch judges its records against the tables the previous
ones created or widened (:class:`connectors.table.fit.TableFits`).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging

import pyarrow as pa
from pyspark import StorageLevel
from pyspark.sql import functions as F
from pyspark.sql import types as T

from connectors.table.cdc import ChangeRules, placeholder_bytes
from connectors.table.columns import ColumnLayout
from connectors.table.compiled import python_records, type_lines, with_compiled
from connectors.table.config import OPTION_PREFIX, TABLE_SINK_CONFIG, check_where, metadata_column
from connectors.table.ddl import parse_columns
from connectors.table.fit import TableFits
from connectors.table.jars import check_format_runs, format_spark_conf
from connectors.table.typed import TypedRows, decode_values
from connectors.table.typed_json import TypedJsonEncoder, TypeLines, payloads, table_rows, type_line
from connectors.table.types import TypeConflict, merged_type, spark_type
from connectors.table.upsert import Upsert
from connectors.table.upsert_jdbc import claim_topic_table, jdbc_columns, jdbc_tables, with_jdbc_driver
from connectors.table.writer import TableTarget, TableWriteError
from smt.compiled import TYPE_KNOWN_COLUMN, compiled_value_columns
from smt.config import ConfigProblem
from smt.connector import Sink, SinkContext, SinkRecordError
from smt.connector_roles import CompiledInput, RecordChecks, ValueEncoding
from smt.errors import ConfigError

__all__ = ["TableSink"]

log = logging.getLogger(__name__)


class TableSink(Sink, RecordChecks, ValueEncoding, CompiledInput):
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
        if config["format.jars"] != "none":
            check_format_runs(config["format"], prefix)
        options = {k[len(OPTION_PREFIX) :]: str(v) for k, v in self.raw_config.items() if k.startswith(OPTION_PREFIX)}
        if config["format"] == "jdbc":
            options = with_jdbc_driver(options)
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
        #: What each record's value schema must fit: a struct, and its table's columns before the
        #: batch (see open); None with a declared schema (record_errors checks it).
        evolution_key = f"{prefix}schema.evolution"
        may_add = config["schema.evolution"] == "add_columns"
        self.fits = TableFits(evolution_key, may_add, self.target.is_jdbc) if declared is None else None
        #: Values with schemas travel to the write as typed JSON lines (see connectors.table.typed_json);
        #: declared columns read the converter's bytes.
        self.encoder = TypedJsonEncoder() if declared is None else None
        #: Whether the records handed to write() are cached (the pipeline's write_with_dead_letters does).
        self._input_cached = False
        #: Each table's columns as open looked them up, for the first write to it (not looked up again).
        self._columns_at_bind: dict[str, T.StructType | None] = {}
        if declared is not None:
            clash = [n for n in declared.names if n in {metadata_column(m) for m in self.metadata}]
            if clash:
                raise ConfigError(
                    [ConfigProblem(f"{prefix}columns.metadata", f"column '{clash[0]}' is also a value field")]
                )

    def _upsert(self, options: dict[str, str]) -> Upsert | None:
        prefix, config = self.context.prefix, self.config
        if config["write.mode"] != "upsert":
            for key in ("key.columns", "delete.field"):
                if config[key]:
                    raise ConfigError([ConfigProblem(f"{prefix}{key}", f"is read only with {prefix}write.mode=upsert")])
            return None
        problem = Upsert.problem(self.target, options, prefix)
        if problem is not None:
            raise ConfigError([ConfigProblem(f"{prefix}write.mode", problem, "upsert")])
        placeholder = config["unavailable.value.placeholder"]
        rules = ChangeRules(config["delete.field"], placeholder_bytes(placeholder) if placeholder else None)
        return Upsert(config["key.columns"], prefix, config["schema.evolution"] == "add_columns", rules)

    def open(self, context: SinkContext) -> None:
        """Keeps the converters; with a streaming query's checkpoint, writes with its own writer id and
        commits (see connectors.table.writer); with the session, looks up the tables' columns."""
        if context.value_converter is not None:
            self.value_converter = context.value_converter
            if self.upsert is not None:
                self.upsert.bind(context.key_converter, context.value_converter)
        if context.checkpoint is not None:
            self.target = dataclasses.replace(self.target, checkpoint=context.checkpoint)
        if context.session is not None:
            self._look_up_tables(context.session)

    def output_fields(self) -> frozenset[str]:
        # The value, what names a record in messages and routes it, and the metadata columns;
        # an upsert's key columns may come from the key.
        upsert = ("key",) if self.upsert is not None else ()
        return frozenset({"topic", "partition", "offset", "value", *upsert, *self.metadata})

    def output_paths(self):
        return {f"{self.context.prefix}path": self.config["path"]} if self.config["path"] else {}

    def spark_conf(self) -> dict[str, str]:
        if self.config["format.jars"] == "none":
            return {}
        return format_spark_conf(self.config["format"], self.context.prefix)

    def _look_up_tables(self, spark) -> None:
        """Looks up the table's columns (with ``${topic}``: of each table it names that exists), so that
        a record that cannot go into them fails alone."""
        if self.fits is None:
            return  # a declared schema: record_errors checks each value against it
        self._columns_at_bind = {}
        if not self.target.routes:
            self._learn(spark, self.target, at_bind=True)
        else:
            tables = functools.partial(jdbc_tables, spark, self.target) if self._looks_up_jdbc else None
            for target in self.target.routes_found(spark, tables):
                try:
                    self._learn(spark, target, at_bind=True)
                except Exception as exc:  # noqa: BLE001 - a folder beside the tables that is none
                    # Not judged before its batches then: the write checks what goes into it.
                    log.info(
                        "%s: not read as a table (%s)",
                        target.where,
                        (str(exc).strip() or type(exc).__name__).splitlines()[0],
                    )
        self.fits.start()

    def _learn(self, spark, target: TableTarget, existing: T.StructType | None = None, at_bind: bool = False) -> None:
        """Note the columns ``target``'s table has now (``existing`` when they are known: no lookup)."""
        if self.fits is None:
            return
        if existing is None:
            existing = self._table_columns(spark, target)
            if at_bind and not target.is_jdbc:
                self._columns_at_bind[target.where] = existing
        self.fits.learn(target.where, self._value_columns(existing) if existing is not None else None)

    def _table_columns(self, spark, target: TableTarget) -> T.StructType | None:
        if target.is_jdbc:
            return jdbc_columns(spark, target) if self._looks_up_jdbc else None
        return target.columns(spark)

    def _table_columns_now(self, spark, target: TableTarget, batch_id: int | None) -> T.StructType | None:
        """The columns of ``target``'s table before a write: in a batch run, as open found them
        moments before (a micro-batch may come much later: it looks again)."""
        found = self._columns_at_bind.pop(target.where, _NOT_LOOKED_UP)
        return target.columns(spark) if found is _NOT_LOOKED_UP or batch_id is not None else found

    @property
    def _looks_up_jdbc(self) -> bool:
        # Only an upsert speaks to the database itself (PostgreSQL): see connectors.table.upsert_jdbc.
        return self.target.is_jdbc and self.upsert is not None

    def _value_columns(self, existing: T.StructType) -> T.StructType:
        return T.StructType([f for f in existing.fields if not _is_metadata(f.name, self.metadata)])

    @classmethod
    def compiled_form(cls) -> str:
        """What the compiled path writes (:class:`smt.compiled.CompiledStage`)."""
        return "write.mode append, overwrite, error or upsert; no value.schema, columns.metadata or table per topic"

    def compiled_problem(self, schema, key_schema=None) -> str | None:
        """Why values of ``schema`` (keys of ``key_schema``, None: the keys stay bytes) cannot come as columns
        from the compiled path (see :mod:`smt.compiled`)."""
        prefix = self.context.prefix
        if self.upsert is not None:
            problem = self.upsert.compiled_problem(schema, key_schema)
            if problem is not None:
                return problem
        if self.encoder is None:
            return f"{prefix}value.schema: values go through the converter's bytes"
        if self.metadata or self.target.routes:
            return f"{prefix}columns.metadata or a table per topic: records need their Kafka fields"
        if self.fits is None or schema is None:
            return None
        return self.fits.problem(self.target.where, schema)

    def compiled_write_aborts_cleanly(self) -> bool:
        """Whether a write that fails leaves the table as it was, so that the compiled path may bet on every
        record (see :class:`smt.pipeline.compiled_plan.CompiledSchemas`): Delta, Iceberg and Spark's file
        commit (an overwritten folder is emptied first, then written again), not JDBC, which commits per task;
        an upsert into PostgreSQL merges from a staging table in one transaction."""
        return not self.target.is_jdbc or self.upsert is not None

    def compiled_may_split(self) -> bool:
        """An upsert takes a write's records all compiled or all from Python: numbered in the order read,
        the changes of one key must not be split between the two halves."""
        return self.upsert is None

    def compiled_type(self, schema) -> T.StructType:
        """The columns of values of the Connect struct ``schema``: what its typed JSON lines carry."""
        return spark_type(schema)

    # --- on the executors ------------------------------------------------------------

    def value_errors(self, topics, schemas, values):
        if self.fits is None:
            return ()  # a declared schema: record_errors checks each value against it
        if schemas is None:
            schemas = [None] * len(values)
        where_of, fit = self._where_of_topic(), self.fits.batch()
        upsert = self.upsert is not None
        errors = []
        for row, (topic, schema, value) in enumerate(zip(topics, schemas, values)):
            unroutable = self.target.routes and self.target.route_problem(topic)
            where = self.target.where if unroutable else where_of(topic)
            if unroutable:
                found = unroutable
            elif value is None:
                if upsert:
                    continue  # a tombstone deletes its row (Upsert.record_errors checks its key)
                found = "the value: a null value (tombstone) has no columns to write"
            elif schema is None:
                found = (
                    f"the value has no schema; declare the columns with {self.context.prefix}value.schema, "
                    "or use a converter that writes schemas"
                )
            else:
                judged = fit(where)
                found = judged.problem(schema) or judged.value_problem(schema, value)
                if found is None:
                    continue
            errors.append((row, SinkRecordError(f"{where}: {found}")))
        return errors

    def _where_of_topic(self):
        """A function from a record's topic to where its table is (``None``: no topic to route by)."""
        if not self.target.routes:
            return lambda topic: self.target.where
        wheres: dict[str, str] = {}

        def where_of(topic):
            if topic is None:
                return None
            if topic not in wheres:
                wheres[topic] = self.target.for_topic(topic).where
            return wheres[topic]

        return where_of

    def encode_values(self, topics, schemas, values):
        if self.encoder is None:
            return None  # a declared schema: the value converter's bytes, decoded by the write
        return pa.array(self.encoder.encode(schemas or [None] * len(values), values), pa.binary())

    def record_errors(self, records):
        unroutable = self._unroutable(records)
        if self.value_converter is None or (self.declared is None and self.upsert is None):
            return unroutable
        if unroutable:  # the rest of the batch is judged without them
            keep = sorted(set(range(records.num_rows)) - {row for row, _ in unroutable})
            kept = self.record_errors(records.take(pa.array(keep, pa.int64())))
            return unroutable + [(keep[row], exc) for row, exc in kept]
        problems, values = [], None
        if self.declared is not None:
            schema_key = f"{self.context.prefix}value.schema"
            _, values, errors = decode_values(self.value_converter, records)
            _, misfits = self.declared.rows(values)
            if self.upsert is not None:  # a tombstone deletes its row
                misfits = [(row, exc) for row, exc in misfits if values[row] is not None or row in dict(errors)]
            problems = [(row, SinkRecordError(f"{schema_key}: {exc}")) for row, exc in errors + misfits]
        if self.upsert is not None:
            if self.encoder is not None:
                values = payloads(records.column("value").to_pylist())
            failed = {row for row, _ in problems}
            problems += [p for p in self.upsert.record_errors(records, values) if p[0] not in failed]
        return problems

    def _unroutable(self, records) -> list[tuple[int, BaseException]]:
        """The records whose topic cannot name a table (see :meth:`TableTarget.route_problem`)."""
        if not self.target.routes:
            return []
        problems = {topic: self.target.route_problem(topic) for topic in set(records.column("topic").to_pylist())}
        return [
            (row, SinkRecordError(f"{self.target.where}: {problems[topic]}"))
            for row, topic in enumerate(records.column("topic").to_pylist())
            if problems[topic] is not None
        ]

    # --- on the driver ---------------------------------------------------------------

    def write_with_dead_letters(self, df, dead_letters, flag, batch_id=None, written=lambda part: None) -> None:
        # The default persists the records for the write and the dead letters; the write's own
        # passes (the records' types, each routed table) read that cache, not one of their own.
        self._input_cached = True
        if self.fits is not None:
            self.fits.ship(df.sparkSession)
        try:
            super().write_with_dead_letters(df, dead_letters, flag, batch_id, written)
        finally:
            self._input_cached = False

    def write(self, df, batch_id=None) -> None:
        if self.value_converter is None:
            raise TableWriteError("the table sink was not bound to the pipeline's value converter")
        if self.fits is not None and not self._input_cached:
            self.fits.ship(df.sparkSession)
        if not self.target.routes:
            self._write_table(df, self.target, batch_id, may_persist=not self._input_cached)
            return
        # Each topic's table is one more pass over the records: compute them once.
        cache = not self._input_cached
        if cache:
            df = df.persist(StorageLevel.MEMORY_AND_DISK)
        try:
            topics = sorted(row["topic"] for row in df.select("topic").distinct().collect())
            shared = self.target.shared_tables([topic for topic in topics if topic is not None])
            if shared is not None:  # before any table is written
                raise TableWriteError(f"{self.target.where}: {shared}")
            for topic in topics:
                problem = self.target.route_problem(topic)  # record_errors failed each such record: never here
                if problem is not None:
                    raise TableWriteError(f"{self.target.where}: {problem}")
                target = self.target.for_topic(topic)
                if target.is_jdbc:
                    claim_topic_table(df.sparkSession, target, topic)  # an earlier run's table of another topic
                self._write_table(df.where(F.col("topic") == topic), target, batch_id)
                if target.is_jdbc:
                    claim_topic_table(df.sparkSession, target, topic)  # marks the table this write made
        finally:
            if cache:
                df.unpersist()

    def _write_table(self, df, target: TableTarget, batch_id: int | None, may_persist: bool = False) -> None:
        """The records of ``df`` into the one table ``target``."""
        if self.upsert is not None:
            self._upsert_table(df, target, batch_id, may_persist)
            return
        if batch_id is not None:
            problem = target.streaming_problem()
            if problem is not None:
                raise TableWriteError(problem)
        existing = self._table_columns_now(df.sparkSession, target, batch_id)
        checked = self._checked_columns(existing, target)
        # Values with schemas are read twice (their distinct types, then the rows): from a cache.
        # Not when every record was checked against the table's columns already: they are the columns.
        # The compiled path's rows (smt.connector_roles.CompiledInput): read twice only if the types of
        # some Python records are to be learned.
        compiled = compiled_value_columns(df.columns)
        learns = not compiled or TYPE_KNOWN_COLUMN in df.columns
        cache = may_persist and self.declared is None and checked is None and learns
        if cache:
            df = df.persist(StorageLevel.MEMORY_AND_DISK)
        try:
            if self.declared is not None:
                columns, grows = self._layout(self.declared.columns, existing, target)
                rows_fn = TypedRows(
                    self.value_converter, ColumnLayout(columns, strict=True), self.metadata, target.where
                )
                rows = df.mapInArrow(rows_fn, rows_fn.output_type())
            else:
                text = F.col("value").cast("string")
                if checked is not None:
                    columns, grows = checked, False
                elif compiled:
                    observed = self._struct_columns(type_lines(df, compiled), target, "type")
                    columns, grows = self._layout(observed, existing, target)
                else:
                    columns, grows = self._layout(self._observed_columns(df, text, target), existing, target)
                metadata = [F.col(name).alias(metadata_column(name)) for name in self.metadata]
                records = python_records(df, compiled) if compiled else df
                rows = records.select(table_rows(text, columns).alias(_ROW), *metadata)
                rows = rows.select(f"{_ROW}.*", *(metadata_column(name) for name in self.metadata))
                if compiled:
                    rows = with_compiled(rows, df, compiled, columns)
            merge = grows and self.config["schema.evolution"] == "add_columns"
            if batch_id is None:
                target.write(rows, self.config["write.mode"], existing is not None, merge)
            else:
                app_id = target.app_id(self.config["txn.app.id"], df.sparkSession)
                target.write_micro_batch(rows, batch_id, app_id, existing is not None, merge)
            # The next micro-batch's records are judged against the table as this write left it.
            self._learn(df.sparkSession, target, existing if existing is not None and not grows else None)
        finally:
            if cache:
                df.unpersist()

    def _upsert_table(self, df, target: TableTarget, batch_id: int | None, may_persist: bool) -> None:
        """Merge the records of ``df`` into ``target`` by key (an upsert is idempotent: each format may stream it).

        The records are read twice (their key columns and value types in one pass, then the rows): from a cache.
        The value types are not learnt when every record was checked against the table's columns already.
        """
        compiled = compiled_value_columns(df.columns)
        persist = may_persist and not compiled  # compiled rows are read once: no pass before the write
        if persist:
            df = df.persist(StorageLevel.MEMORY_AND_DISK)
        try:
            existing = target.columns(df.sparkSession)
            declared = self.declared.columns if self.declared is not None else None
            known = declared if declared is not None else self._checked_columns(existing, target)
            if compiled:
                # Every record is compiled (compiled_may_split): the columns tell the types and keys, no pass.
                shapes = self.upsert.compiled_shapes(df, compiled)
            else:
                types = TypeLines() if known is None else None  # not known: no value.schema, so typed JSON
                shapes = self.upsert.shapes_of(df, types, target)
            key_columns = shapes.key_columns
            if key_columns is None:
                return  # no records
            columns = known if known is not None else self._struct_columns(shapes.value_types, target, "type")
            columns, _ = self._layout(columns, existing, target)
            layout = ColumnLayout(columns, strict=declared is not None)
            rows_fn = TypedRows(self.value_converter, layout, self.metadata, target.where)
            added = [] if existing is None else [f for f in columns.fields if f.name not in existing.names]
            # A streamed table that does not exist yet is created by an append: with the writer's id.
            streamed = batch_id is not None and not target.is_jdbc
            app_id = target.app_id(self.config["txn.app.id"], df.sparkSession) if streamed else ""
            exists, typed_json = existing is not None, self.encoder is not None
            self.upsert.write(
                df,
                target,
                rows_fn,
                key_columns,
                batch_id,
                app_id,
                exists,
                added,
                typed_json=typed_json,
                tombstones=shapes.tombstones,
                compiled=compiled,
            )
            self._learn(df.sparkSession, target, existing if existing is not None and not added else None)
        finally:
            if persist:
                df.unpersist()

    def _checked_columns(self, existing: T.StructType | None, target: TableTarget) -> T.StructType | None:
        """The table's value columns when each record was checked against them at TASK_PUT and none may be
        added (the table as the batch started, still as it was), else None."""
        if self.fits is None or self.fits.may_add or existing is None:
            return None
        checked = self.fits.shipped(target.where)
        return checked if checked is not None and self._value_columns(existing) == checked else None

    def _layout(
        self, columns: T.StructType, existing: T.StructType | None, target: TableTarget
    ) -> tuple[T.StructType, bool]:
        """The columns this write fills (the records' with the table's), and whether they add to the table's.

        Records that do not fit a table known before the batch failed at TASK_PUT already; one
        created or changed since (by this batch's records, or by another writer) is checked here.
        """
        if existing is None:
            return columns, False
        value_columns = self._value_columns(existing)
        try:
            merged = merged_type(value_columns, columns)
        except TypeConflict as exc:
            raise TableWriteError(f"{target.where}: {exc}; the table's type stays") from None
        added = [f.name for f in merged.fields if f.name not in value_columns.names]
        if added and self.config["schema.evolution"] != "add_columns":
            raise TableWriteError(
                f"{target.where}: field '{added[0]}' is not a column of the table; set "
                f"{self.context.prefix}schema.evolution=add_columns to add it"
            )
        return merged, bool(added)

    def _observed_columns(self, df, text, target: TableTarget) -> T.StructType:
        """The columns of the distinct types of the records' values (the first lines of their typed JSON)."""
        lines = sorted(row["t"] for row in df.select(type_line(text).alias("t")).distinct().collect())
        return self._struct_columns(lines, target, "type")

    @staticmethod
    def _struct_columns(types: list[str], target: TableTarget, what: str) -> T.StructType:
        """The union of the struct ``types`` (Spark's JSON of each), refusing any that is not a struct."""
        columns = T.StructType([])
        for line in types:
            parsed = json.loads(line)
            if not isinstance(parsed, dict) or parsed.get("type") != "struct":
                raise TableWriteError(
                    f"{target.where}: a record value's {what} is {line}, not a struct: "
                    "only a struct's fields can be columns"
                )
            try:
                columns = merged_type(columns, T.StructType.fromJson(parsed))
            except TypeConflict as exc:
                raise TableWriteError(f"{target.where}: {exc}") from None
        return columns


#: The struct column of a value's fields, before they become the table's columns.
_ROW = "_smt_row"
#: No columns were looked up for the table when the sink was opened (see TableSink._table_columns_now).
_NOT_LOOKED_UP = object()


def _is_metadata(name: str, metadata: tuple[str, ...]) -> bool:
    return name in {metadata_column(m) for m in metadata}
