"""The table sink's keys, declared once (``docs/reference.md`` is generated from them)."""

from __future__ import annotations

from typing import Any

from connectors.table.cdc import DEFAULT_PLACEHOLDER
from connectors.table.ddl import DdlError, parse_columns
from smt.config import ConfigDef, ConfigProblem, ConfigType, Importance, one_of
from smt.errors import ConfigError

__all__ = [
    "FORMAT_JARS_CONFIG",
    "METADATA_COLUMNS",
    "OPTION_PREFIX",
    "TABLE_SINK_CONFIG",
    "check_where",
    "metadata_column",
]

#: Writer options: ``sink.option.mergeSchema=true`` is ``.option("mergeSchema", "true")``.
OPTION_PREFIX = "option."

#: The record fields ``columns.metadata`` may add, each as column ``_<name>``.
METADATA_COLUMNS = ("topic", "partition", "offset", "timestamp", "key", "headers")


def metadata_column(field: str) -> str:
    """The table column of a record field named in ``columns.metadata``."""
    return f"_{field}"


def check_where(config: dict[str, Any], prefix: str, verb: str) -> None:
    """Raise :class:`~smt.errors.ConfigError` naming the key unless ``config`` names one table it can reach.

    Shared by the sink and the source (``verb``: written, read): one of
    ``path`` and ``table``; a database table for jdbc; a catalog table for
    Iceberg.  Iceberg's path tables do not work on the Spark lines it supports
    here (checked with iceberg-spark-runtime-4.1 1.12.0 on PySpark 4.1.1): Spark
    4.1 hands Iceberg's reader and writer the path as a table name
    (``TABLE_OR_VIEW_NOT_FOUND: `/data`.orders``), and a create by path puts the
    table under the ``default_iceberg`` catalog's warehouse, not at the path.
    """
    if bool(config["path"]) == bool(config["table"]):
        raise ConfigError([ConfigProblem(f"{prefix}path", f"give one of {prefix}path and {prefix}table")])
    if config["format"] == "jdbc" and not config["table"]:
        raise ConfigError([ConfigProblem(f"{prefix}table", "names the database table when format=jdbc")])
    if config["format"] == "iceberg" and not config["table"]:
        raise ConfigError(
            [
                ConfigProblem(
                    f"{prefix}path",
                    f"an Iceberg table is {verb} by name: give {prefix}table=catalog.db.name and the catalog "
                    "in spark.sql.catalog.* keys (a Hadoop catalog: type=hadoop, warehouse=a folder)",
                )
            ]
        )


def _ddl(value: Any) -> None:
    if value:
        try:
            parse_columns(value)
        except DdlError as exc:
            raise ValueError(f"not a Spark DDL column list: {exc}") from None


def _placeholder(value: Any) -> None:
    if value.startswith("hex:"):
        try:
            bytes.fromhex(value[4:])
        except ValueError:
            raise ValueError(f"'hex:' must be followed by an even count of hex digits, found '{value[4:]}'") from None


def _metadata(value: Any) -> None:
    unknown = [name for name in value if name not in METADATA_COLUMNS]
    if unknown:
        raise ValueError(f"unknown record field(s) {', '.join(unknown)}; known: {', '.join(METADATA_COLUMNS)}")


#: ``format.jars``, a key of the table sink and the table source.
FORMAT_JARS_CONFIG = ConfigDef().define(
    "format.jars",
    ConfigType.STRING,
    "auto",
    one_of("auto", "none"),
    Importance.LOW,
    "auto: fetch the format's jars from Maven Central (delta, iceberg, the PostgreSQL JDBC "
    "driver) and set the session settings it needs. none: the pipeline's spark.* keys give them.",
)

TABLE_SINK_CONFIG = (
    ConfigDef()
    .define(
        "format",
        ConfigType.STRING,
        "parquet",
        None,
        Importance.HIGH,
        "Spark data source that writes the table: parquet, orc, delta, iceberg, jdbc or any other "
        "registered with Spark. delta and iceberg jars and session settings are fetched and set "
        "by the sink (see format.jars).",
    )
    .define(
        "path",
        ConfigType.PATH,
        "",
        None,
        Importance.HIGH,
        "Folder of a path-based table (parquet, orc, delta; not iceberg, written by catalog name). Relative paths resolve against the "
        "pipeline file's folder. ${topic} in it writes each topic's records to a table of their own "
        "(after RegexRouter, TimestampRouter or a guest's set_topic); a record whose topic is not a legal Kafka "
        "topic name (letters, digits, '.', '_' and '-', 1 to 249 of them, not '.' or '..') fails alone at "
        "TASK_PUT, so no topic names a folder outside this one. Give this or table.",
    )
    .define(
        "table",
        ConfigType.STRING,
        "",
        None,
        Importance.HIGH,
        "Catalog table (catalog.db.name, written with DataFrameWriterV2), or the database table "
        "with format=jdbc. ${topic} in it routes each record to the table its topic names (characters "
        "other than letters, digits and _ become _); the topic must be a legal Kafka topic name, and over "
        "PostgreSQL the table name at most 63 bytes, else its records fail alone at TASK_PUT. Give this or path.",
    )
    .define(
        "table.auto.create",
        ConfigType.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "Create a missing catalog table (with the records' columns and partition.by); otherwise a "
        "missing table is an error. Path-based tables are always created.",
    )
    .define(
        "write.mode",
        ConfigType.STRING,
        "append",
        one_of("append", "overwrite", "error", "upsert"),
        Importance.HIGH,
        "Batch mode: append to the table, overwrite it, or fail when it exists (error). "
        "Streaming appends, each micro-batch exactly once. upsert (batch and streaming; delta, "
        "iceberg, jdbc into PostgreSQL): a record replaces the row with its key columns (see "
        "key.columns), or inserts one, and a tombstone (null value) deletes it; of several records "
        "with one key in a batch the last read wins. Delta and Iceberg through MERGE INTO, JDBC "
        "through a staging table and INSERT ... ON CONFLICT in one transaction.",
    )
    .define(
        "key.columns",
        ConfigType.LIST,
        [],
        None,
        Importance.MEDIUM,
        "With write.mode=upsert, the columns that identify a row: value fields, whose values a "
        "tombstone takes from its key (a struct key's fields of these names, or a primitive key "
        "as the one column). Empty: the fields of the record key's struct (key.converter with "
        "schemas), which the value must carry too. A record without a key, or with a key column "
        "null, fails at TASK_PUT naming the field.",
    )
    .define(
        "delete.field",
        ConfigType.STRING,
        "",
        None,
        Importance.MEDIUM,
        "With write.mode=upsert, a value field that marks a soft delete: a record whose field is true "
        "(boolean) or 'true' (string, as Debezium's ExtractNewRecordState writes __deleted with "
        "delete.tombstone.handling.mode=rewrite) deletes the row with its key columns, as a tombstone "
        "does. Empty: such records are kept as rows, the field a column.",
    )
    .define(
        "unavailable.value.placeholder",
        ConfigType.STRING,
        DEFAULT_PLACEHOLDER,
        _placeholder,
        Importance.LOW,
        "With write.mode=upsert, the value Debezium writes for a column it could not read (an "
        "unchanged TOASTed PostgreSQL column; the connector's key of the same name; hex: followed by "
        "hex digits gives its bytes). A column holding it, in any of Debezium's forms by type (the "
        "string, its bytes, a one-element array of either, its bytes as an integer array, a "
        "{string: string} map, a uuid array's name UUID), keeps the row's stored value; a new row "
        "gets null. Empty: no placeholder.",
    )
    .define(
        "value.schema",
        ConfigType.STRING,
        "",
        _ddl,
        Importance.HIGH,
        "The columns of the records' values as a Spark DDL column list ('id BIGINT NOT NULL, "
        "amount DECIMAL(10,2)'), for values without a schema (JsonConverter with "
        "schemas.enable=false). A value that does not fit fails at TASK_PUT, naming the field. "
        "Empty: the columns come from each value's Connect schema.",
    )
    .define(
        "columns.metadata",
        ConfigType.LIST,
        [],
        _metadata,
        Importance.MEDIUM,
        "Record fields added as columns, each named with a leading underscore (_topic, "
        "_partition, _offset, _timestamp, _key as bytes, _headers): any of " + ", ".join(METADATA_COLUMNS) + ".",
    )
    .define(
        "partition.by",
        ConfigType.LIST,
        [],
        None,
        Importance.MEDIUM,
        "Columns the table is partitioned by.",
    )
    .define(
        "schema.evolution",
        ConfigType.STRING,
        "none",
        one_of("none", "add_columns"),
        Importance.MEDIUM,
        "add_columns: a field the table lacks becomes a new nullable column (the writer's mergeSchema "
        "option: Delta, Parquet; an Iceberg table, and any upsert: ALTER TABLE ... ADD COLUMN(S) before the "
        "write). none: a record with such a field fails at TASK_PUT, naming its table and the field.",
    )
    .merge(FORMAT_JARS_CONFIG)
    .define(
        "txn.app.id",
        ConfigType.STRING,
        "",
        None,
        Importance.LOW,
        "Streaming into Delta or Iceberg: the writer's id (Delta's txnAppId; an Iceberg snapshot "
        "property) that, with the micro-batch id, tells a committed batch. Empty: derived from the "
        "streaming query's id (kept in checkpoint.location) and the table, so each query writing the "
        "table has its own. Set by hand, two pipelines writing one table need different ids.",
    )
    .define_prefix(OPTION_PREFIX, "Options given to Spark's writer, prefix removed (sink.option.compression=zstd).")
)
