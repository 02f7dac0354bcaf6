"""Kafka Connect-style single message transforms on Apache Spark.

Run a pipeline file with the ``smt`` command, or apply a chain to your own
DataFrame with :func:`smt.spark.transform` (classic or Spark Connect sessions).
"""

from smt.batch import RecordBatch
from smt.config import ConfigDef, ConfigType, Importance
from smt.errors import ConfigError, DataError, PluginError, SmtError, Stage, StageError
from smt.plugin import Plugin, PluginContext
from smt.record import Record, TimestampType
from smt.transform import ErrorSink, Predicate, Transform

__all__ = [
    "ConfigDef",
    "ConfigError",
    "ConfigType",
    "DataError",
    "ErrorSink",
    "Importance",
    "Plugin",
    "PluginContext",
    "PluginError",
    "Predicate",
    "Record",
    "RecordBatch",
    "SmtError",
    "Stage",
    "StageError",
    "TimestampType",
    "Transform",
]


def __getattr__(name):
    # TransformChain pulls in the plugin machinery; import it on first use.
    if name == "TransformChain":
        from smt.chain import TransformChain

        return TransformChain
    raise AttributeError(f"module 'smt' has no attribute {name!r}")
