"""TombstoneHandler: drop tombstones (quietly or with a warning) or fail on them."""

from __future__ import annotations

import logging

from smt.config import ConfigDef, ConfigType, Importance, one_of
from smt.errors import DataError
from smt.reconfigure import Reconfigurable
from smt.record import Record
from smt.transform import Transform
from smt.transforms.confluent._variants import CONFLUENT_PACKAGE

_LOG = logging.getLogger(__name__)
BEHAVIORS = ("ignore", "warn", "fail")


class TombstoneHandler(Reconfigurable, Transform):
    """Handle tombstones (a null value, with or without a value schema); other records pass unchanged.

    ``behavior=warn`` (the default) drops a tombstone and logs a warning, ``ignore`` drops it
    quietly (debug log), ``fail`` fails the record.
    """

    name = "TombstoneHandler"
    aliases = (CONFLUENT_PACKAGE + "TombstoneHandler",)
    config_def = ConfigDef().define(
        "behavior",
        ConfigType.STRING,
        "warn",
        one_of(*BEHAVIORS, case_sensitive=False),
        Importance.MEDIUM,
        "What to do with a tombstone: ignore (drop, debug log), warn (drop, warning) or fail.",
    )

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.behavior = self.config["behavior"].lower()

    def apply(self, record: Record) -> Record | None:
        if record.value is not None:
            return record
        if self.behavior == "fail":
            raise DataError(
                f"Tombstone record encountered (topic {record.topic}, partition {record.partition}, "
                f"offset {record.offset}); failing as {self.context.prefix}behavior=fail asks"
            )
        log = _LOG.warning if self.behavior == "warn" else _LOG.debug
        log(
            "Tombstone record dropped (topic %s, partition %s, offset %s)",
            record.topic,
            record.partition,
            record.offset,
        )
        return None
