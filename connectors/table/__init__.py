"""Tables and records: the table sink writes records into Delta, Iceberg, Parquet, ORC or JDBC tables with typed
columns (``sink=table``); the table source reads such tables into records (``source=table``)."""

from connectors.table.jars import format_bundle, table_bundles
from connectors.table.sink import TableSink
from connectors.table.source import TableSource

__all__ = ["TableSink", "TableSource", "format_bundle", "table_bundles"]
