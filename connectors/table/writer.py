"""Typed rows into a table with Spark's own writers: by path, into a catalog table, or over JDBC.

A :class:`TableTarget` is where one sink writes; it knows the table's current
columns (``None`` when there is no table yet) and writes a DataFrame of table
rows in batch mode (:meth:`TableTarget.write`) or one streaming micro-batch
exactly once (:meth:`TableTarget.write_micro_batch`):

- Delta (path or catalog table): an idempotent write, ``txnAppId`` and
  ``txnVersion`` = the micro-batch id, so Delta skips a batch it committed
  before a crash;
- Iceberg (catalog tables): each snapshot records the writer and the
  micro-batch id in its summary (``snapshot-property.*`` write options), and a
  batch the table's snapshots already hold is skipped;
- other path formats (parquet, orc): the file sink's commit marker per batch
  of the query (:class:`connectors.file.QueryCommits`), so a replayed batch
  replaces what a crashed attempt left;

The writer's id (:meth:`TableTarget.app_id`) is the streaming query's, so two
queries (two checkpoints) writing one table each have theirs: Spark numbers
every query's micro-batches from 0, and a writer id shared by two queries
would make the second skip its batches as committed.  The default is derived
from the id Spark keeps in the query's checkpoint (a restart keeps it; a new
checkpoint, even in the same folder, gets a new one) and the table.
- other catalog tables and JDBC: refused in streaming (no way to tell a
  committed batch), see :meth:`TableTarget.streaming_problem`, unless the sink
  upserts (:mod:`connectors.table.upsert`: merging a batch twice changes nothing).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from typing import Any

from pyspark.sql import functions as F
from pyspark.sql import types as T

from connectors.file import QueryCommits, query_name
from connectors.table.alter import add_columns
from smt.driver_files import driver_files
from smt.errors import SmtError
from smt.topic_names import topic_name_problem

__all__ = ["TOPIC_VARIABLE", "TableTarget", "TableWriteError"]

#: Stands for the record's topic in ``path`` or ``table``: one table per topic.
TOPIC_VARIABLE = "${topic}"
#: PostgreSQL's identifier limit (NAMEDATALEN - 1): a longer table name is cut there, silently.
_POSTGRESQL_NAME_BYTES = 63

#: Iceberg write options that become properties of the snapshot a write commits.
_SNAPSHOT_PROPERTY = "snapshot-property."
#: The snapshot properties that say which micro-batch of which writer a snapshot holds.
_APP_ID, _BATCH_ID = "smt.app-id", "smt.batch-id"

#: Formats whose tables live in folders that Spark reads back with ``format(...).load(path)``.
_FILE_FORMATS = ("parquet", "orc", "json", "csv", "avro", "text")


class TableWriteError(SmtError):
    """The table cannot be written as configured; the message names the key."""


@dataclasses.dataclass
class TableTarget:
    """Where a table sink writes: the format and a path or table name, with the writer's settings."""

    fmt: str
    path: str
    table: str
    options: dict[str, str]
    partition_by: list[str]
    auto_create: bool
    prefix: str = "sink."
    #: The streaming query's ``checkpoint.location`` (see :meth:`app_id`); empty in batch mode.
    checkpoint: str = ""

    @property
    def where(self) -> str:
        """The key and value that name the table, for messages."""
        return f"{self.prefix}path={self.path}" if self.path else f"{self.prefix}table={self.table}"

    @property
    def routes(self) -> bool:
        """Whether the path or table name holds ``${topic}``: each topic's records go to a table of their own."""
        return TOPIC_VARIABLE in self.path or TOPIC_VARIABLE in self.table

    def route_problem(self, topic: str | None) -> str | None:
        """Why the records of ``topic`` cannot go to a table of their own (the sink routes by topic), or None.

        The topic must be a legal Kafka topic name (:mod:`smt.topic_names`): a topic is data, and a
        transform may route a record anywhere, so that no record's topic chooses a folder outside the sink's; over PostgreSQL the table name it makes must fit an
        identifier, which PostgreSQL would cut short, silently, onto another topic's table.
        """
        if topic is None:
            return "a record has no topic to name its table"
        if topic_name_problem(topic) is not None:
            shown = topic if len(topic) <= 80 else topic[:77] + "..."
            return (
                f"the topic {shown!r} cannot name a table: {TOPIC_VARIABLE} takes a legal Kafka topic name "
                "(letters, digits, '.', '_' and '-', 1 to 249 of them, not '.' or '..'), so that no topic "
                "names a place outside the sink's"
            )
        table = self.for_topic(topic).table
        if (
            self.is_jdbc
            and "postgresql" in self.options.get("url", "")
            and len(table.encode()) > _POSTGRESQL_NAME_BYTES
        ):
            return (
                f"the topic {topic!r} makes the table name {table!r}, longer than PostgreSQL's "
                f"{_POSTGRESQL_NAME_BYTES} bytes: PostgreSQL would cut it, onto the table of any topic that "
                "starts the same"
            )
        return None

    def shared_tables(self, topics: "list[str]") -> str | None:
        """Why the records of ``topics`` cannot each go to a table of their own, or None: two topics that make
        one table name (``orders.v1`` and ``orders_v1`` make ``t_orders_v1``; ``Orders`` and ``orders`` one
        name to a database or catalog, which do not tell case apart in unquoted names)."""
        if not self.table or TOPIC_VARIABLE not in self.table:
            return None
        seen: dict[str, str] = {}
        for topic in sorted(topics):
            table = self.for_topic(topic).table
            other = seen.setdefault(table.lower(), topic)
            if other != topic:
                return (
                    f"the topics {other!r} and {topic!r} both name the table {table!r}: their records would be "
                    f"written into one table; route them apart (RegexRouter) or write them to one topic"
                )
        return None

    def for_topic(self, topic: str) -> "TableTarget":
        """This target with ``${topic}`` replaced: the topic as it is in a path, and in a table name
        with every character but letters, digits and ``_`` made ``_`` (``orders.v1`` → ``orders_v1``)."""
        table_part = re.sub(r"[^A-Za-z0-9_]", "_", topic)
        return dataclasses.replace(
            self, path=self.path.replace(TOPIC_VARIABLE, topic), table=self.table.replace(TOPIC_VARIABLE, table_part)
        )

    def routes_found(self, spark: Any, database_tables: Any = None) -> list["TableTarget"]:
        """The tables ``${topic}`` may name that are there now, each as :meth:`for_topic` makes it: the
        entries of the folder whose name holds ``${topic}``, or the tables of the namespace, of the
        catalog or, over JDBC, those ``database_tables(namespace)`` lists (none without it)."""
        if self.path:
            parts = self.path.split("/")
            at = next(i for i, part in enumerate(parts) if TOPIC_VARIABLE in part)
            names = driver_files(spark).list_names("/".join(parts[:at]) or "/")
            pattern = _topic_pattern(parts[at], ".+")
        else:
            namespace, _, name = self.table.rpartition(".")
            if TOPIC_VARIABLE in namespace or (self.is_jdbc and database_tables is None):
                return []
            if self.is_jdbc:
                names = database_tables(namespace)
            elif namespace and not spark.catalog.databaseExists(namespace):
                names = []  # created with the first table
            else:
                names = [t.name for t in spark.catalog.listTables(namespace or None)]
            pattern = _topic_pattern(name, "[A-Za-z0-9_]+")
        return [self.for_topic(found.group(1)) for found in map(pattern.fullmatch, names) if found]

    @property
    def is_jdbc(self) -> bool:
        return self.fmt == "jdbc"

    def streaming_problem(self) -> str | None:
        """Why this target cannot take micro-batches exactly once, or ``None``."""
        if self.fmt == "delta" or (self.fmt == "iceberg" and self.table):
            return None
        if self.path and self.fmt in _FILE_FORMATS and not self.partition_by:
            return None
        if self.path and self.fmt in _FILE_FORMATS:
            return f"{self.prefix}partition.by is not supported in streaming mode for format {self.fmt}"
        return (
            f"streaming into {self.where} (format {self.fmt}) cannot be made exactly-once: "
            f"use format=delta, or a parquet/orc path"
        )

    def app_id(self, explicit: str, spark: Any) -> str:
        """The writer's id that, with the micro-batch id, tells a committed batch (Delta's ``txnAppId``,
        an Iceberg snapshot property): ``explicit``, else one derived from the streaming query's id
        (read from its checkpoint) and the table, so that each query writing the table has its own."""
        if explicit:
            return explicit
        if not self.checkpoint:
            raise TableWriteError(f"{self.where}: a micro-batch came before the streaming query's checkpoint")
        query = query_name(driver_files(spark), self.checkpoint)
        return "smt-" + hashlib.sha256(f"{query}\n{self.where}".encode()).hexdigest()[:16]

    # --- the table as it is ------------------------------------------------------------

    def columns(self, spark: Any) -> T.StructType | None:
        """The table's columns, or ``None`` when it does not exist yet (a JDBC table: always ``None``)."""
        if self.is_jdbc:
            return None
        if self.table:
            return spark.table(self.table).schema if spark.catalog.tableExists(self.table) else None
        if not _exists(spark, self.path, self.fmt):
            return None
        return spark.read.format(self.fmt).load(self.path).schema

    # --- writes ------------------------------------------------------------------------

    def write(self, df: Any, mode: str, exists: bool, merge_schema: bool) -> None:
        """Write ``df`` (table rows) in batch mode with ``write.mode`` ``mode``."""
        options = dict(self.options)
        if merge_schema:
            self._evolve(df, exists, options)
        if self.table and not self.is_jdbc:
            self._write_catalog(df, mode, exists, options)
            return
        if mode == "error" and exists:
            raise self._exists_error()
        writer = df.write.format(self.fmt).options(**options).mode("errorifexists" if mode == "error" else mode)
        if self.partition_by and not self.is_jdbc:
            writer = writer.partitionBy(*self.partition_by)
        if self.is_jdbc:
            writer.option("dbtable", self.table).save()
        else:
            writer.save(self.path)

    def _evolve(self, df: Any, exists: bool, options: dict[str, str]) -> None:
        """Let the table take the new columns of ``df``: an Iceberg catalog table by ``ALTER TABLE``
        (see :mod:`connectors.table.alter`), any other by the writer's ``mergeSchema`` option."""
        if self.fmt == "iceberg" and self.table:
            if exists:
                add_columns(df.sparkSession, self.table, df.schema)
            return
        options.setdefault("mergeSchema", "true")

    def _write_catalog(self, df: Any, mode: str, exists: bool, options: dict[str, str]) -> None:
        writer = df.writeTo(self.table).options(**options)
        if not exists:
            if not self.auto_create:
                raise TableWriteError(
                    f"{self.where} does not exist; create it, or set {self.prefix}table.auto.create=true"
                )
            writer = writer.using(self.fmt)
            if self.partition_by:
                writer = writer.partitionedBy(*(F.col(c) for c in self.partition_by))
            writer.create()
        elif mode == "error":
            raise self._exists_error()
        elif mode == "overwrite":
            writer.overwrite(F.lit(True))
        else:
            writer.append()

    def _exists_error(self) -> TableWriteError:
        return TableWriteError(
            f"{self.where} already exists and {self.prefix}write.mode is error; "
            f"set {self.prefix}write.mode=append or overwrite"
        )

    def write_micro_batch(self, df: Any, batch_id: int, app_id: str, exists: bool, merge_schema: bool) -> None:
        """Write micro-batch ``batch_id`` so that the table holds it once, whatever crashed before."""
        if self.fmt == "delta":
            options = {**self.options, "txnAppId": app_id, "txnVersion": str(batch_id)}
            if merge_schema:
                self._evolve(df, exists, options)
            if self.table:
                self._write_catalog(df, "append", exists, options)
                return
            writer = df.write.format("delta").options(**options).mode("append")
            if self.partition_by:
                writer = writer.partitionBy(*self.partition_by)
            writer.save(self.path)
            return
        if self.fmt == "iceberg":
            if exists and self._iceberg_committed(df.sparkSession, app_id, batch_id):
                return
            options = {
                **self.options,
                f"{_SNAPSHOT_PROPERTY}{_APP_ID}": app_id,
                f"{_SNAPSHOT_PROPERTY}{_BATCH_ID}": str(batch_id),
            }
            if merge_schema:
                self._evolve(df, exists, options)
            self._write_catalog(df, "append", exists, options)
            return
        if not self.checkpoint:
            raise TableWriteError(f"{self.where}: a micro-batch came before the streaming query's checkpoint")
        QueryCommits(self.path, self.checkpoint).write(_PathFormat(self.fmt, self.options), df, batch_id)

    def _iceberg_committed(self, spark: Any, app_id: str, batch_id: int) -> bool:
        """Whether a snapshot of the table already holds micro-batch ``batch_id`` of ``app_id``."""
        quoted = app_id.replace("'", "''")
        last = spark.sql(
            f"SELECT max(CAST(summary['{_BATCH_ID}'] AS BIGINT)) AS last FROM {self.table}.snapshots "
            f"WHERE summary['{_APP_ID}'] = '{quoted}'"
        ).collect()[0]["last"]
        return last is not None and last >= batch_id


class _PathFormat:
    """A Spark data source shaped as the file sink's format (``write(df, path, mode)``)."""

    def __init__(self, fmt: str, options: dict[str, str]) -> None:
        self.fmt = fmt
        self.options = options

    def write(self, df: Any, path: str, mode: str) -> None:
        df.write.format(self.fmt).options(**self.options).mode(mode).save(path)


def _topic_pattern(name: str, topic: str) -> "re.Pattern[str]":
    """``name`` (a path part or table name holding ``${topic}``) as a pattern that captures the topic."""
    first, *rest = name.split(TOPIC_VARIABLE)
    return re.compile(re.escape(first) + f"({topic})" + r"\1".join(re.escape(part) for part in rest))


def _exists(spark: Any, path: str, fmt: str) -> bool:
    files = driver_files(spark)
    if fmt == "delta":
        return files.exists(f"{path.rstrip('/')}/_delta_log")
    return files.exists(path) and bool(files.data_files(path))
