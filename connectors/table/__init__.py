"""The table sink: records into Delta, Iceberg, Parquet, ORC or JDBC tables with typed columns (``sink=table``)."""

from connectors.table.jars import format_bundle, table_bundles
from connectors.table.sink import TableSink

__all__ = ["TableSink", "format_bundle", "table_bundles"]
