"""The names of Kafka Connect's logical types, and the Python classes their values are.

:mod:`smt.data.logical` builds the types on these names; the check of a value
against its schema (:func:`smt.data.struct.validate_value`) reads the classes.
Both need them, so they sit below both.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal

__all__ = ["DATE", "DECIMAL", "LOGICAL_NAMES", "TIME", "TIMESTAMP"]

DECIMAL = "org.apache.kafka.connect.data.Decimal"
DATE = "org.apache.kafka.connect.data.Date"
TIME = "org.apache.kafka.connect.data.Time"
TIMESTAMP = "org.apache.kafka.connect.data.Timestamp"

#: The Python classes a logical type's values must be.
LOGICAL_NAMES = {
    DECIMAL: (_decimal.Decimal,),
    DATE: (_dt.date,),
    TIME: (_dt.time,),
    TIMESTAMP: (_dt.datetime,),
}
