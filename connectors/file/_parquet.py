"""``parquet``: Spark's Parquet files, one row per record in Kafka row layout.

Writing stores the Kafka-layout columns as they are.  Reading takes files
with at least a ``value`` column; other Kafka-layout columns that are missing
are null (a missing ``topic`` takes the source's ``topic`` setting) and
columns of another type are cast.  A batch read opens every footer on the
driver, so a corrupt file fails before anything runs, naming the file.
"""

from __future__ import annotations

from connectors.file.formats import FileFormat, ReadOptions
from smt.errors import SmtError
from smt.record import KAFKA_ROW_FIELDS, KAFKA_ROW_SCHEMA_DDL


class ParquetFormat(FileFormat):
    """Kafka-layout rows as Parquet."""

    name = "parquet"

    def read(self, spark, options: ReadOptions):
        reader = options.reader(spark)
        if options.streaming:
            # A streaming file source needs its schema up front.
            files = reader.schema(KAFKA_ROW_SCHEMA_DDL).format("parquet").load(options.path)
        else:
            try:
                files = reader.format("parquet").load(options.path)
            except Exception as exc:
                raise SmtError(f"{options.where}: cannot read Parquet files at '{options.path}': "
                               f"{_first_line(exc)}") from exc
        if "value" not in files.columns:
            raise SmtError(f"{options.where}: Parquet files at '{options.path}' are not in Kafka row layout: "
                           f"no 'value' column (columns: {', '.join(files.columns)})")
        return to_kafka_layout(files, options.topic)

    def write(self, df, path, mode):
        df.write.mode(mode).format("parquet").save(path)


def to_kafka_layout(df, topic: str):
    """``df``'s Kafka-layout columns, cast to the layout's types; missing ones null."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    layout = StructType.fromDDL(KAFKA_ROW_SCHEMA_DDL)
    columns = []
    for name in KAFKA_ROW_FIELDS:
        field = layout[name]
        column = F.col(name).cast(field.dataType) if name in df.columns else F.lit(None).cast(field.dataType)
        if name == "topic":
            column = F.coalesce(column, F.lit(topic))
        elif name == "headers":
            column = F.coalesce(column, F.array().cast(field.dataType))
        columns.append(column.alias(name))
    return df.select(*columns)


def _first_line(exc: BaseException) -> str:
    """The Spark error's own message: the first line that is not Py4J's preamble."""
    for line in str(exc).splitlines():
        line = line.strip().removeprefix(": ")
        if line and not line.startswith("An error occurred while calling"):
            return line
    return type(exc).__name__
