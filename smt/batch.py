"""A columnar batch of records: the unit of work on the hot path.

A :class:`RecordBatch` holds one column per record part.  Columns start out
as Arrow arrays (straight from Spark's ``mapInArrow``) and are turned into
Python lists only when something asks for them, so a chain that never looks
at, say, the headers never pays to convert them.  Transforms that work per
batch read and write whole columns; the per-record :meth:`record` view exists
for plugins that only implement ``apply(record)``.

Every row carries an ``origin``: the index of the input row (in the batch the
pipeline read) it descends from.  Transforms must keep it: an output row's
origin is the origin of the input row that produced it.  The pipeline uses it
to attribute errors and to send the original input record to the dead-letter
queue.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from smt.record import Record, TimestampType

__all__ = ["RecordBatch", "BatchBuilder", "KAFKA_ARROW_SCHEMA", "kafka_arrow_schema"]

KAFKA_ARROW_SCHEMA = pa.schema(
    [
        pa.field("key", pa.binary()),
        pa.field("value", pa.binary()),
        pa.field("topic", pa.string()),
        pa.field("partition", pa.int32()),
        pa.field("offset", pa.int64()),
        pa.field("timestamp", pa.timestamp("us")),
        pa.field("timestampType", pa.int32()),
        pa.field(
            "headers",
            pa.list_(pa.struct([pa.field("key", pa.string()), pa.field("value", pa.binary())])),
        ),
    ]
)

def kafka_arrow_schema(fields: Iterable[str]) -> pa.Schema:
    """The Kafka row layout restricted to ``fields`` (kept in the layout's order)."""
    wanted = set(fields)
    unknown = wanted - set(KAFKA_ARROW_SCHEMA.names)
    if unknown:
        raise KeyError(f"not Kafka row fields: {sorted(unknown)}")
    return pa.schema([field for field in KAFKA_ARROW_SCHEMA if field.name in wanted])


#: Record attribute names, in the order batches store them.
COLUMNS = (
    "topic",
    "partition",
    "offset",
    "timestamp",
    "timestamp_type",
    "key",
    "value",
    "headers",
    "key_schema",
    "value_schema",
    "origin",
)
_RECORD_FIELDS = COLUMNS[:-1]


class RecordBatch:
    """Columns of equal length; see the module docstring."""

    __slots__ = ("_columns", "_length")

    def __init__(self, length: int, **columns: Any) -> None:
        unknown = set(columns) - set(COLUMNS)
        if unknown:
            raise TypeError(f"unknown batch columns: {sorted(unknown)}")
        self._length = length
        self._columns: dict[str, Any] = columns

    # --- construction ------------------------------------------------------

    @classmethod
    def from_records(cls, records: Sequence[Record], origins: Sequence[int] | None = None) -> "RecordBatch":
        columns = {name: [getattr(r, name) for r in records] for name in _RECORD_FIELDS}
        columns["origin"] = list(origins) if origins is not None else list(range(len(records)))
        return cls(len(records), **columns)

    @classmethod
    def from_arrow(cls, batch: pa.RecordBatch) -> "RecordBatch":
        """Wrap a batch in Spark's Kafka row layout; columns convert lazily."""
        names = batch.schema.names
        columns: dict[str, Any] = {}
        for arrow_name, name in _ARROW_TO_COLUMN.items():
            if arrow_name in names:
                columns[name] = batch.column(arrow_name)
        # each row is its own origin; a range costs nothing until someone asks for the list
        columns["origin"] = range(batch.num_rows)
        return cls(batch.num_rows, **columns)

    # --- columns ------------------------------------------------------------

    def __len__(self) -> int:
        return self._length

    def column(self, name: str) -> list:
        """The column as a Python list (converted from Arrow on first use)."""
        value = self._columns.get(name)
        if isinstance(value, list):
            return value
        converted = _to_pylist(name, value, self._length)
        self._columns[name] = converted
        return converted

    def set_column(self, name: str, values: Sequence[Any] | pa.Array) -> None:
        """Replace a column; a list is stored as is (not copied)."""
        if name not in COLUMNS:
            raise KeyError(f"unknown batch column {name!r}")
        if len(values) != self._length:
            raise ValueError(f"column {name!r} has {len(values)} values, batch has {self._length}")
        self._columns[name] = values if isinstance(values, (list, pa.Array, pa.ChunkedArray)) else list(values)

    def arrow_column(self, name: str, type: pa.DataType | None = None) -> pa.Array:
        """The column as an Arrow array, without a Python round trip when it still is one."""
        value = self._columns.get(name)
        if isinstance(value, (pa.Array, pa.ChunkedArray)):
            return value
        if name == "timestamp":
            return _timestamps_to_arrow(self.column(name))
        return pa.array(self.column(name), type=type)

    def is_arrow(self, name: str) -> bool:
        """True while the column is still held as an Arrow array."""
        return isinstance(self._columns.get(name), (pa.Array, pa.ChunkedArray))

    topic = property(lambda self: self.column("topic"))
    partition = property(lambda self: self.column("partition"))
    offset = property(lambda self: self.column("offset"))
    timestamp = property(lambda self: self.column("timestamp"))
    timestamp_type = property(lambda self: self.column("timestamp_type"))
    key = property(lambda self: self.column("key"))
    value = property(lambda self: self.column("value"))
    headers = property(lambda self: self.column("headers"))
    key_schema = property(lambda self: self.column("key_schema"))
    value_schema = property(lambda self: self.column("value_schema"))
    origin = property(lambda self: self.column("origin"))

    # --- rows ---------------------------------------------------------------

    def record(self, index: int) -> Record:
        """Row ``index`` as a :class:`Record`."""
        return Record(**{name: self.column(name)[index] for name in _RECORD_FIELDS})

    def records(self) -> list[Record]:
        cols = [self.column(name) for name in _RECORD_FIELDS]
        return [Record(*row) for row in zip(*cols)]

    def __iter__(self) -> Iterator[Record]:
        return iter(self.records())

    def take(self, indices: Sequence[int]) -> "RecordBatch":
        """A new batch of the given rows, in the given order."""
        rows = indices.tolist() if hasattr(indices, "tolist") else list(indices)  # numpy ints index lists slowly
        arrow_rows = None
        columns = {}
        for name in COLUMNS:
            values = self._columns.get(name)
            if values is None:
                continue  # not held: every row has the default, the taken rows too
            if isinstance(values, (pa.Array, pa.ChunkedArray)):
                if arrow_rows is None:
                    arrow_rows = pa.array(rows, type=pa.int64())
                columns[name] = values.take(arrow_rows)
            elif isinstance(values, range) and values == range(self._length):
                columns[name] = list(rows)  # the origins of a batch read from Arrow: row i's is i
            else:
                columns[name] = [values[i] for i in rows]
        return RecordBatch(len(rows), **columns)

    def shallow_copy(self) -> "RecordBatch":
        """A new batch sharing this one's column objects.

        ``set_column`` on the copy leaves this batch alone; the column objects
        themselves are shared, so neither batch may mutate a list in place.
        """
        return RecordBatch(self._length, **self._columns)

    def with_columns(self, **columns: Any) -> "RecordBatch":
        """A shallow copy (see :meth:`shallow_copy`) with ``columns`` replaced."""
        return RecordBatch(self._length, **{**self._columns, **columns})

    def has_column(self, name: str) -> bool:
        """True when the column holds data (not only the implicit all-null default)."""
        return self._columns.get(name) is not None

    def builder(self) -> "BatchBuilder":
        """A builder for an output batch derived from this one."""
        return BatchBuilder(self)

    @classmethod
    def concat_ordered(cls, parts: Sequence["RecordBatch"], order: Sequence[tuple[int, int]]) -> "RecordBatch":
        """Rows picked from ``parts`` as ``order`` lists them: (part index, row index)."""
        columns = {name: [] for name in COLUMNS}
        materialized = [{name: part.column(name) for name in COLUMNS} for part in parts]
        for part_index, row in order:
            source = materialized[part_index]
            for name in COLUMNS:
                columns[name].append(source[name][row])
        return cls(len(order), **columns)

    # --- Arrow out ----------------------------------------------------------

    def to_arrow(self, fields: Sequence[str] | None = None) -> pa.RecordBatch:
        """This batch in Spark's Kafka row layout (keys/values must be bytes or None).

        ``fields`` (Kafka row field names, e.g. ``("value",)``) keeps only
        those columns, in the layout's order.
        """
        builders = {
            "key": lambda: self._arrow_or_build("key", pa.binary()),
            "value": lambda: self._arrow_or_build("value", pa.binary()),
            "topic": lambda: self._arrow_or_build("topic", pa.string()),
            "partition": lambda: self._arrow_or_build("partition", pa.int32()),
            "offset": lambda: self._arrow_or_build("offset", pa.int64()),
            "timestamp": lambda: self.arrow_column("timestamp"),
            "timestampType": lambda: self._arrow_or_build("timestamp_type", pa.int32()),
            "headers": self._headers_to_arrow,
        }
        schema = KAFKA_ARROW_SCHEMA if fields is None else kafka_arrow_schema(fields)
        return pa.RecordBatch.from_arrays([builders[name]() for name in schema.names], schema=schema)

    def _arrow_or_build(self, name: str, type: pa.DataType) -> pa.Array:
        value = self._columns.get(name)
        if isinstance(value, (pa.Array, pa.ChunkedArray)):
            return value if value.type == type else value.cast(type)
        if value is None:
            return pa.nulls(self._length, type=type)
        return pa.array(value, type=type)

    def _headers_to_arrow(self) -> pa.Array:
        value = self._columns.get("headers")
        header_type = KAFKA_ARROW_SCHEMA.field("headers").type
        if isinstance(value, (pa.Array, pa.ChunkedArray)):
            return value
        if value is None:
            return pa.array([[]] * self._length, type=header_type)
        return pa.array(
            [[{"key": k, "value": v} for k, v in headers] if headers else [] for headers in value],
            type=header_type,
        )


class BatchBuilder:
    """Collects output rows derived from the rows of one input batch.

    Each appended row names its parent row in the input batch; the parent's
    origin is carried over, which keeps the module's origin invariant.
    """

    __slots__ = ("_source", "_records", "_origins")

    def __init__(self, source: RecordBatch) -> None:
        self._source = source
        self._records: list[Record] = []
        self._origins: list[int] = []

    def append(self, parent: int, record: Record) -> None:
        self._records.append(record)
        self._origins.append(self._source.origin[parent])

    def extend(self, parent: int, result: Record | None | Iterable[Record]) -> None:
        """Append what ``Transform.apply`` returned for row ``parent``."""
        if result is None:
            return
        if isinstance(result, Record):
            self.append(parent, result)
            return
        for record in result:
            self.append(parent, record)

    def build(self) -> RecordBatch:
        return RecordBatch.from_records(self._records, self._origins)


_ARROW_TO_COLUMN = {
    "key": "key",
    "value": "value",
    "topic": "topic",
    "partition": "partition",
    "offset": "offset",
    "timestamp": "timestamp",
    "timestampType": "timestamp_type",
    "headers": "headers",
}


def _to_pylist(name: str, value: Any, length: int) -> list:
    if isinstance(value, range):
        return list(value)
    if value is None:
        if name == "headers":
            return [() for _ in range(length)]
        if name == "timestamp_type":
            return [TimestampType.CREATE_TIME] * length
        return [None] * length
    if name == "timestamp":
        millis = pc.divide(value.cast(pa.timestamp("us")).cast(pa.int64()), 1000)
        return millis.to_pylist()
    if name == "headers":
        return [
            tuple((h["key"], h["value"]) for h in headers) if headers else ()
            for headers in value.to_pylist()
        ]
    return value.to_pylist()


def _timestamps_to_arrow(millis: Sequence[int | None]) -> pa.Array:
    micros = pa.array([None if m is None else m * 1000 for m in millis], type=pa.int64())
    return micros.cast(pa.timestamp("us"))
