"""Plugins for the converter pipeline tests, registered through a real pluggy plugin.

``kafka-parquet`` reads and writes Parquet files holding rows in Kafka's
layout (binary keys and values), so binary formats such as Avro can go
through a Spark pipeline without a broker.  ``UppercaseItem`` works on
structs and on schemaless maps, as a Kafka Connect transform does.
"""

from __future__ import annotations

from smt import Record, Transform
from smt.config import REQUIRED, ConfigDef, ConfigType
from smt.connector import Sink, Source
from smt.data import Struct
from smt.plugins import hookimpl, load_plugins
from smt.record import KAFKA_ROW_FIELDS, KAFKA_ROW_SCHEMA_DDL


class KafkaParquetSource(Source):
    """Reads Parquet files of Kafka-layout rows."""

    name = "kafka-parquet"
    config_def = ConfigDef().define("path", ConfigType.STRING, REQUIRED)

    def read(self, spark, streaming=False):
        return spark.read.schema(KAFKA_ROW_SCHEMA_DDL).parquet(self.config["path"])


class KafkaParquetSink(Sink):
    """Writes Kafka-layout rows as Parquet files."""

    name = "kafka-parquet"
    config_def = ConfigDef().define("path", ConfigType.STRING, REQUIRED)

    def write(self, df, batch_id=None):
        df.select(*KAFKA_ROW_FIELDS).write.mode("append").parquet(self.config["path"])


class UppercaseItem(Transform):
    """Uppercases the value's ``item`` field (struct or map)."""

    name = "UppercaseItem"

    def apply(self, record: Record) -> Record:
        value = record.value
        if isinstance(value, Struct):
            updated = Struct(value.schema)
            for field in value.schema.fields:
                updated.put(field, value.get_without_default(field))
            updated.put("item", value.get("item").upper())
        else:
            updated = {**value, "item": value["item"].upper()}
        return record.replace(value=updated)


class ConverterTestPlugins:
    @hookimpl
    def smt_connectors(self):
        return [KafkaParquetSource, KafkaParquetSink]

    @hookimpl
    def smt_transforms(self):
        return [UppercaseItem]


def converter_test_plugins():
    return load_plugins(entry_points=False, extra_plugins=[ConverterTestPlugins()])
