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

Ownership (why a chain of map transforms copies each value at most once):
a batch may *own* a Python-list column.  Owning it means that every
``dict`` in the list is a top-level object created during this pipeline run
(by a converter that declares fresh values, or by a transform's copy) and is
referenced by this one row only: no other row, no record or batch outside the
chain's current line of batches, and no user data.  A transform given a batch
that owns a column may update those dicts (and the list) in place instead of
copying them; nested values inside them are still shared and never mutated.
Ownership is recorded against the list object, so replacing a column with
:meth:`set_column` (without ``owned=True``) ends it.  Batches derived by
:meth:`with_columns`, :meth:`shallow_copy` and :meth:`take` of strictly
increasing rows share the list or its dicts and inherit ownership: the chain
hands only the newest batch on and never reads an older batch's values for
the rows it passed to a transform.  Batches built from records or Arrow,
:meth:`take` with repeated or reordered rows and :meth:`concat_ordered` own
nothing, so user data is never mutated.
"""

from __future__ import annotations

from typing import Any, Collection, Iterable, Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from smt.record import Record, TimestampType
from smt.row_layout import ATTRIBUTE_OF_FIELD, KAFKA_ARROW_SCHEMA

__all__ = ["RecordBatch", "BatchBuilder", "KAFKA_ARROW_SCHEMA", "distinct_origins", "kafka_arrow_schema"]


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
#: Columns whose Arrow array is kept when converted to a list (see RecordBatch.column).
_METADATA_COLUMNS = frozenset({"topic", "partition", "offset", "timestamp", "timestamp_type"})


class RecordBatch:
    """Columns of equal length; see the module docstring."""

    __slots__ = ("_columns", "_length", "_owned", "_arrow_sources")

    def __init__(self, length: int, **columns: Any) -> None:
        unknown = set(columns) - set(COLUMNS)
        if unknown:
            raise TypeError(f"unknown batch columns: {sorted(unknown)}")
        self._length = length
        self._columns: dict[str, Any] = columns
        #: column name -> the list object this batch owns (see the module docstring).
        self._owned: dict[str, list] = {}
        #: metadata column name -> (its list, the Arrow array it was converted from).
        self._arrow_sources: dict[str, tuple[list, pa.Array]] = {}

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
        for arrow_name, name in ATTRIBUTE_OF_FIELD.items():
            if arrow_name in names:
                columns[name] = batch.column(arrow_name)
        # each row is its own origin; a range costs nothing until someone asks for the list
        columns["origin"] = range(batch.num_rows)
        return cls(batch.num_rows, **columns)

    # --- columns ------------------------------------------------------------

    def __len__(self) -> int:
        return self._length

    def column(self, name: str) -> list:
        """The column as a Python list (converted from Arrow on first use).

        The list is shared (with derived batches, and for the metadata columns
        with the Arrow array it came from, which :meth:`arrow_column` and
        :meth:`to_arrow` reuse): change a column with :meth:`set_column`,
        never by changing the list in place.
        """
        value = self._columns.get(name)
        if isinstance(value, list):
            return value
        converted = _to_pylist(name, value, self._length)
        self._columns[name] = converted
        if name in _METADATA_COLUMNS and value is not None:
            self._arrow_sources[name] = (converted, value)
        return converted

    def set_column(self, name: str, values: Sequence[Any] | pa.Array, *, owned: bool = False) -> None:
        """Replace a column; a list is stored as is (not copied).

        ``owned=True`` (a list only) declares that this batch owns the values:
        each dict in it is new and in no other row or object (module docstring).
        """
        if name not in COLUMNS:
            raise KeyError(f"unknown batch column {name!r}")
        if len(values) != self._length:
            raise ValueError(f"column {name!r} has {len(values)} values, batch has {self._length}")
        if owned and not isinstance(values, list):
            raise TypeError(f"only a list column can be owned, not {type(values).__name__} ({name!r})")
        kept_as_is = (list, pa.Array, pa.ChunkedArray, range) if name == "origin" else (list, pa.Array, pa.ChunkedArray)
        self._columns[name] = values if isinstance(values, kept_as_is) else list(values)
        self._arrow_sources.pop(name, None)
        if owned:
            self._owned[name] = values
        else:
            self._owned.pop(name, None)

    def owns(self, name: str) -> bool:
        """True when this batch owns the column: its dicts may be updated in place."""
        owned = self._owned.get(name)
        return owned is not None and owned is self._columns.get(name)

    def arrow_column(self, name: str, type: pa.DataType | None = None) -> pa.Array:
        """The column as an Arrow array, without a Python round trip when it still is one."""
        value = self._arrow_source(name)
        if isinstance(value, (pa.Array, pa.ChunkedArray)):
            return value
        if name == "timestamp":
            return _timestamps_to_arrow(self.column(name))
        return pa.array(self.column(name), type=type)

    def timestamp_millis(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The timestamps as epoch millis (int64, 0 where null) and a null mask (None when none are null).

        Read from the Arrow column without a Python list when it still is one.
        """
        value = self._arrow_source("timestamp")
        if isinstance(value, (pa.Array, pa.ChunkedArray)):
            millis = _arrow_millis(value)
        elif value is None:
            millis = pa.nulls(self._length, pa.int64())
        else:
            millis = pa.array(value, type=pa.int64())
        if isinstance(millis, pa.ChunkedArray):
            millis = millis.combine_chunks()
        nulls = millis.is_null().to_numpy(zero_copy_only=False) if millis.null_count else None
        return millis.fill_null(0).to_numpy(zero_copy_only=False), nulls

    def _arrow_source(self, name: str) -> Any:
        """The column; for a metadata column converted to a list and not since replaced, its Arrow array."""
        value = self._columns.get(name)
        source = self._arrow_sources.get(name)
        if source is not None and source[0] is value:
            return source[1]
        return value

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

    def origins(self) -> Sequence[int]:
        """The origin column as held, without converting it: a ``range`` while row i's origin is i.

        Read-only, like :attr:`origin`; it lets per-batch bookkeeping skip a
        list of one int per row when nothing was dropped or fanned out.
        """
        return self._columns["origin"]

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
        """A new batch of the given rows, in the given order.

        The new batch inherits this one's ownership only when ``indices`` are
        strictly increasing (no row can then appear twice).
        """
        owned = [name for name in self._owned if self.owns(name)]
        keeps_ownership = bool(owned) and _strictly_increasing(indices)
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
        taken = RecordBatch(len(rows), **columns)
        if keeps_ownership:
            taken._owned = {name: columns[name] for name in owned}
        return taken

    def without_rows(self, rows: Collection[int]) -> "RecordBatch":
        """The batch less ``rows`` (positions), the rest in order: the step after failing those rows.

        Returns this batch itself when ``rows`` is empty.
        """
        if not rows:
            return self
        drop = set(rows)
        return self.take([row for row in range(self._length) if row not in drop])

    def shallow_copy(self) -> "RecordBatch":
        """A new batch sharing this one's column objects (and their ownership).

        ``set_column`` on the copy leaves this batch alone; the column objects
        themselves are shared, so only the batch the chain hands on may update
        owned values in place, and neither may otherwise mutate a list.
        """
        return self.with_columns()

    def with_columns(self, **columns: Any) -> "RecordBatch":
        """A shallow copy (see :meth:`shallow_copy`) with ``columns`` replaced (and not owned)."""
        derived = RecordBatch(self._length, **{**self._columns, **columns})
        derived._owned = {
            name: values
            for name, values in self._owned.items()
            if name not in columns and values is self._columns.get(name)
        }
        derived._arrow_sources = {
            name: source
            for name, source in self._arrow_sources.items()
            if name not in columns and source[0] is self._columns.get(name)
        }
        return derived

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
        schema = KAFKA_ARROW_SCHEMA if fields is None else kafka_arrow_schema(fields)
        return pa.RecordBatch.from_arrays([self._to_arrow_field(field) for field in schema], schema=schema)

    def _to_arrow_field(self, field: pa.Field) -> pa.Array:
        if field.name == "timestamp":
            return self.arrow_column("timestamp")
        if field.name == "headers":
            return self._headers_to_arrow()
        return self._arrow_or_build(ATTRIBUTE_OF_FIELD[field.name], field.type)

    def _arrow_or_build(self, name: str, type: pa.DataType) -> pa.Array:
        value = self._arrow_source(name)
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


def distinct_origins(origins: Sequence[int]) -> int:
    """How many distinct input rows an origin column names (without a Python loop over it)."""
    if isinstance(origins, range):
        return len(origins)  # row for row: nothing dropped, nothing fanned out
    values = np.asarray(origins, dtype=np.int64)
    if len(values) == 0:
        return 0
    steps = np.diff(values)
    if (steps >= 0).all():  # the usual order: outputs stay in their input rows' order
        return 1 + int(np.count_nonzero(steps))
    return len(set(values.tolist()))


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
        return _arrow_millis(value).to_pylist()
    if name == "headers":
        return [tuple((h["key"], h["value"]) for h in headers) if headers else () for headers in value.to_pylist()]
    if name == "topic":
        return _repeated_strings(value)
    return value.to_pylist()


def _repeated_strings(value: pa.Array | pa.ChunkedArray) -> list:
    # A batch holds few distinct topics: build each str once and share it
    # between rows, instead of one new object per row.
    if isinstance(value, pa.ChunkedArray):
        value = value.combine_chunks()
    if len(value) and not value.null_count and pc.all(pc.equal(value, value[0])).as_py():
        return [value[0].as_py()] * len(value)  # one topic (the usual batch)
    encoded = pc.dictionary_encode(value, null_encoding="encode")
    names = np.empty(len(encoded.dictionary), dtype=object)
    names[:] = encoded.dictionary.to_pylist()
    return names[encoded.indices.to_numpy(zero_copy_only=False)].tolist()


def _arrow_millis(value: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    return pc.divide(value.cast(pa.timestamp("us")).cast(pa.int64()), 1000)


def _strictly_increasing(indices: Sequence[int]) -> bool:
    if len(indices) < 2:
        return True
    positions = np.asarray(indices, dtype=np.int64)
    return bool((positions[1:] > positions[:-1]).all())


def _timestamps_to_arrow(millis: Sequence[int | None]) -> pa.Array:
    micros = pa.array([None if m is None else m * 1000 for m in millis], type=pa.int64())
    return micros.cast(pa.timestamp("us"))
