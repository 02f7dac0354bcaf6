"""Debezium oracle cases for PartitionRouting: partitions from row, source and envelope fields, by both hash functions."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.oracle import _debezium_cases as dbz
from tests.oracle._debezium_other._pipeline import change_events, paired, pipeline

PARTITION = "PartitionRouting (Debezium)"
#: partition.payload.fields values: row fields by state and by ``change`` (a delete's before), every
#: column type but structs (a struct's Java hash changes between JVM runs), source and envelope
#: fields, several at once, names no event has, a path through a field that is no struct, a path
#: through the optional transaction block (null in some events: the record fails), a blank element.
_PAYLOAD_FIELDS = [
    "change.id",
    "after.id",
    "before.id",
    "change.name",
    "change.sku,source.db",
    "change.qty",
    "change.price",
    "change.active",
    "change.tags",
    "change.at",
    "source.table,change.tbl",
    "op",
    "source.lsn",
    "change.missing",
    "nothing.id,change.missing",
    "change.id.deeper",
    "transaction.total_order",
    " change.name , source.ts_ms ",
    "change.id,,op",
]
_HASH_FUNCTIONS = (None, "java", "murmur", "MURMUR", " Java ")
_PARTITION_COUNTS = ("1", "3", "7", "2147483647", "0", "-2")


def partition_cases() -> list[dict]:
    """Each payload-fields value with each hash function, at partition counts taken in turn
    (0 and -2 are refused by both); the changes are SourceRecords in Debezium's JVM, as from a source
    connector (Debezium's PartitionRouting casts to SourceRecord)."""
    settings = [
        {
            "partition.payload.fields": fields,
            "partition.topic.num": _PARTITION_COUNTS[(i * len(_HASH_FUNCTIONS) + j) % len(_PARTITION_COUNTS)],
            "partition.hash.function": function,
        }
        for i, fields in enumerate(_PAYLOAD_FIELDS)
        for j, function in enumerate(_HASH_FUNCTIONS)
    ]
    type_ = "io.debezium.transforms.partitions.PartitionRouting"
    cases = [
        {**pipeline(PARTITION, type_, keys, records, with_schemas), "source_records": True}
        for keys, (with_schemas, records) in paired(settings, _partition_events())
    ]
    return cases


@st.composite
def _partition_events(draw) -> tuple[bool, list[dict]]:
    with_schemas = draw(st.integers(0, 11)) != 11
    tables = draw(st.lists(dbz.table(), min_size=1, max_size=2))
    return with_schemas, change_events(draw, tables, with_schemas)
