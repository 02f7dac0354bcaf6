"""Reads a table into records (``source=table``), so that a backfill runs through the same chain.

The table is read with Spark's own reader for its format (a path, a catalog
table, or a database table over JDBC).  Each row becomes a record whose value
is the row as a Connect ``Struct`` (its columns as fields, typed as
:mod:`connectors.table.connect_types` says), encoded by the pipeline's
``value.converter``, with its schema when the converter writes one (the JSON
envelope, Avro); ``key.columns`` make the key, a ``Struct`` encoded by
``key.converter``.  The pipeline then decodes them as it decodes what any
other source reads.  See :mod:`connectors.table.records` for the partition,
offset and timestamp each record gets.

With ``mode=streaming`` the table is followed as it grows, by Spark's own
streaming reader: Delta's (``readStream.format("delta")``) and Iceberg's
(``readStream.table``), with their options (``startingVersion``,
``maxFilesPerTrigger``, ``stream-from-timestamp``, ...) given as
``source.option.*``; a Parquet or ORC folder as a file stream, whose schema is
the table's when the run starts and which reads each new file once.  Where
the stream stands is Spark's own source offset in ``checkpoint.location``, so
a restart goes on from there.  A database table (JDBC) has no streaming
reader and is refused.
"""

from __future__ import annotations

import os

from connectors.table.config import FORMAT_JARS_CONFIG, OPTION_PREFIX, check_where
from connectors.table.connect_types import UnsupportedColumn
from connectors.table.jars import check_format_runs, format_spark_conf
from connectors.table.records import RECORDS_DDL, TableRecords, coordinate_columns
from smt.config import ConfigDef, ConfigType, Importance
from smt.connector import Source
from smt.errors import ConfigError, SmtError

__all__ = ["TableSource", "TableReadError"]


class TableReadError(SmtError):
    """The table cannot be read as configured; the message names the key."""


TABLE_SOURCE_CONFIG = (
    ConfigDef()
    .define(
        "format",
        ConfigType.STRING,
        "parquet",
        None,
        Importance.HIGH,
        "Spark data source that reads the table: parquet, orc, delta, iceberg, jdbc or any other "
        "registered with Spark. delta and iceberg jars and session settings are fetched and set "
        "by the source (see format.jars).",
    )
    .define(
        "path",
        ConfigType.PATH,
        "",
        None,
        Importance.HIGH,
        "Folder of a path-based table (parquet, orc, delta; not iceberg, read by catalog name). Relative paths resolve against "
        "the pipeline file's folder. Give this or table.",
    )
    .define(
        "table",
        ConfigType.STRING,
        "",
        None,
        Importance.HIGH,
        "Catalog table (catalog.db.name), or the database table with format=jdbc. Give this or path.",
    )
    .define(
        "topic",
        ConfigType.STRING,
        "",
        None,
        Importance.MEDIUM,
        "Topic of the records. Default: the table's name (the last part of table, or the folder name of path).",
    )
    .define(
        "key.columns",
        ConfigType.LIST,
        [],
        None,
        Importance.MEDIUM,
        "Columns that make the record key: a struct of them (as ValueToKey makes it), encoded by "
        "key.converter. Empty: records have null keys.",
    )
    .merge(FORMAT_JARS_CONFIG)
    .define_prefix(
        OPTION_PREFIX,
        "Options given to Spark's reader, prefix removed (source.option.versionAsOf=3). With "
        "mode=streaming, to its streaming reader (source.option.startingVersion=5, "
        "source.option.maxFilesPerTrigger=10, source.option.stream-from-timestamp=...).",
    )
)

#: Spark's file formats: their streams take the schema the folder has when the run starts.
_FILE_STREAM_FORMATS = frozenset({"parquet", "orc", "avro", "json", "csv", "text"})


class TableSource(Source):
    """Reads a table's rows as records whose values are the rows, encoded by ``value.converter``.

    Formats: parquet, orc, delta, iceberg, jdbc or any Spark data source, by
    path or catalog table; batch mode, and streaming for all but jdbc.
    Delta's and Iceberg's jars are fetched from Maven Central and their
    session settings set.
    """

    name = "table"
    config_def = TABLE_SOURCE_CONFIG
    supports_streaming = True
    #: What the checkpoint's stored offsets are offsets of.
    checkpoint_keys = ("format", "path", "table")

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        prefix = self.context.prefix
        config = self.config
        check_where(config, prefix, "read")
        if config["format.jars"] != "none":
            check_format_runs(config["format"], prefix)
        self.options = {
            k[len(OPTION_PREFIX) :]: str(v) for k, v in self.raw_config.items() if k.startswith(OPTION_PREFIX)
        }
        self.key_converter = self.value_converter = None

    @property
    def where(self) -> str:
        """The key and value that name the table, for messages."""
        prefix = self.context.prefix
        return f"{prefix}path={self.config['path']}" if self.config["path"] else f"{prefix}table={self.config['table']}"

    @property
    def topic(self) -> str:
        if self.config["topic"]:
            return self.config["topic"]
        if self.config["table"]:
            return self.config["table"].split(".")[-1]
        return os.path.basename(self.config["path"].rstrip("/"))

    def bind_converters(self, key_converter, value_converter) -> None:
        self.key_converter = key_converter
        self.value_converter = value_converter

    def input_paths(self):
        return {f"{self.context.prefix}path": self.config["path"]} if self.config["path"] else {}

    def spark_conf(self) -> dict[str, str]:
        if self.config["format.jars"] == "none":
            return {}
        return format_spark_conf(self.config["format"], self.context.prefix)

    def read(self, spark, streaming=False):
        if self.value_converter is None:
            raise TableReadError("the table source was not bound to the pipeline's converters")
        prefix = self.context.prefix
        if streaming and self.config["format"] == "jdbc":
            raise ConfigError.for_key(
                "mode",
                f"{prefix}format=jdbc has no streaming reader in Spark (a database table is read whole): "
                "run it with mode=batch",
                "streaming",
            )
        rows = self._stream(spark) if streaming else self._rows(spark)
        missing = [name for name in self.config["key.columns"] if name not in rows.schema.names]
        if missing:
            raise ConfigError.for_key(
                f"{prefix}key.columns",
                f"column '{missing[0]}' is not a column of {self.where} (it has {', '.join(rows.schema.names)})",
                ",".join(self.config["key.columns"]),
            )
        try:
            records = TableRecords(
                rows.schema,
                list(self.config["key.columns"]),
                self.topic,
                self.key_converter,
                self.value_converter,
                self.where,
            )
        except UnsupportedColumn as exc:
            raise TableReadError(f"{self.where}: {exc}") from None
        # Right over the scan: input_file_name() is the file being read only there.
        located = rows.selectExpr("*", *(f"{sql} AS {name}" for name, sql in coordinate_columns().items()))
        return located.mapInArrow(records, RECORDS_DDL)

    def _rows(self, spark):
        """The table as Spark reads it."""
        fmt, path, table = self.config["format"], self.config["path"], self.config["table"]
        reader = spark.read.format(fmt).options(**self.options)
        try:
            if fmt == "jdbc":
                return reader.option("dbtable", table).load()
            if table:
                return spark.read.options(**self.options).table(table)
            return reader.load(path)
        except Exception as exc:  # Spark's AnalysisException and the JVM's errors, named by where they came from
            raise TableReadError(f"{self.where} (format {fmt}) cannot be read: {_first_line(exc)}") from exc

    def _stream(self, spark):
        """The table as Spark's streaming reader for its format follows it."""
        fmt, path, table = self.config["format"], self.config["path"], self.config["table"]
        reader = spark.readStream.format(fmt).options(**self.options)
        if not table and fmt in _FILE_STREAM_FORMATS:  # a file stream infers no schema: the folder's as it is now
            try:
                reader = reader.schema(self._rows(spark).schema)
            except TableReadError as exc:
                raise TableReadError(
                    f"{exc} (a {fmt} folder is streamed with the columns of the files it holds when the "
                    "run starts: write the first rows before following it)"
                ) from exc
        try:
            if table:
                return spark.readStream.options(**self.options).table(table)
            return reader.load(path)
        except Exception as exc:  # as in _rows
            raise TableReadError(f"{self.where} (format {fmt}) cannot be streamed: {_first_line(exc)}") from exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
