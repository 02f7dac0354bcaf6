"""A sink with the core of the contract alone: ``write``.

Nothing else is needed: no record checks, no encoding of its own, no
compiled input (see :mod:`smt.connector_roles`).  Its ``write`` runs on the
driver and hands Spark the whole job, so the sink never travels to the
executors.
"""

from smt.config import REQUIRED, ConfigDef, ConfigType, Importance
from smt.connector import Sink


class ValuesFileSink(Sink):
    """Appends each record's value, as UTF-8 text, one line per record, to files in ``path``."""

    name = "values-file"
    aliases = ("com.example.ValuesFileSink",)
    config_def = ConfigDef().define(
        "path", ConfigType.PATH, REQUIRED, None, Importance.HIGH, "Directory the text files are added to."
    )

    def write(self, df, batch_id=None):
        df.selectExpr("CAST(value AS STRING) AS value").write.mode("append").text(self.config["path"])
