"""Key and Value variants: which part of the record a transform works on.

A Kafka SMT such as ``InsertField`` has two tiny subclasses, ``$Key`` and
``$Value``, that differ only in which part of the record they read and how
they build the new record.  Here that difference is a :class:`Part`, and
:func:`key_value_variants` makes the two registered classes from one base
class, with Kafka's names as aliases.

The batch helpers keep the hot path lean: :func:`map_part_column` runs a
per-value function over the key or value column of a schemaless batch and
builds the output batch without materialising records.
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar

from smt.batch import RecordBatch
from smt.gc_pause import gc_paused
from smt.reconfigure import Reconfigurable
from smt.record import Record
from smt.transform import ErrorSink, Transform

__all__ = [
    "Part",
    "KEY",
    "VALUE",
    "PartTransform",
    "key_value_variants",
    "derive_batch",
    "map_column",
    "KAFKA_PACKAGE",
]

KAFKA_PACKAGE = "org.apache.kafka.connect.transforms."


class Part:
    """The key or the value of a record, with its schema."""

    __slots__ = ("name", "schema_name", "kafka_suffix")

    def __init__(self, name: str) -> None:
        self.name = name
        self.schema_name = f"{name}_schema"
        self.kafka_suffix = "Key" if name == "key" else "Value"

    def value(self, record: Record) -> Any:
        return getattr(record, self.name)

    def schema(self, record: Record) -> Any:
        return getattr(record, self.schema_name)

    def new_record(self, record: Record, schema: Any, value: Any) -> Record:
        return record.replace(**{self.name: value, self.schema_name: schema})

    def __reduce__(self):
        return (_part, (self.name,))


KEY = Part("key")
VALUE = Part("value")


def _part(name: str) -> Part:
    return KEY if name == "key" else VALUE


class PartTransform(Reconfigurable, Transform):
    """A transform of one part (key or value), with a schemaless and a schema'd path.

    Subclasses implement :meth:`apply_schemaless` and :meth:`apply_with_schema`,
    each returning ``(schema, value)``; a null part passes through untouched
    unless the subclass says otherwise in :meth:`apply_null`.
    """

    part: ClassVar[Part] = VALUE

    def input_fields(self) -> frozenset[str]:
        """The part (key or value) it transforms; subclasses add what else they read."""
        return frozenset({self.part.name})

    def changed_fields(self) -> frozenset[str]:
        """The part it transforms; subclasses add what else they change."""
        return frozenset({self.part.name})

    def apply(self, record: Record) -> Record | None:
        part = self.part
        result = self._apply_part(record, part.schema(record), part.value(record))
        if result is None:
            return record
        new_schema, new_value = result
        return part.new_record(record, new_schema, new_value)

    def _apply_part(self, record: Record | None, schema: Any, value: Any) -> tuple[Any, Any] | None:
        """The part's new ``(schema, value)``, or None to keep it: by whether it is null, schemaless or not."""
        if value is None:
            return self.apply_null(record, schema)
        if schema is None:
            return (None, self.apply_schemaless(record, value))
        return self.apply_with_schema(record, schema, value)

    def apply_to_part_columns(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        """:meth:`apply` over the part's value and schema columns, without a record object per row.

        For a subclass whose :meth:`apply_with_schema`, :meth:`apply_schemaless`
        and :meth:`apply_null` ignore ``record`` (they receive None here): its
        batch path for values with schemas.
        """
        part = self.part
        out_values: list = []
        out_schemas: list = []
        failed: list[int] = []
        for row, (value, schema) in enumerate(zip(batch.column(part.name), batch.column(part.schema_name))):
            try:
                result = self._apply_part(None, schema, value)
            except Exception as exc:  # each failure is attributed to its row
                errors.fail(row, exc)
                failed.append(row)
                result = None
            if result is None:
                out_schemas.append(schema)
                out_values.append(value)
            else:
                out_schemas.append(result[0])
                out_values.append(result[1])
        columns = {part.name: out_values, part.schema_name: out_schemas}
        return derive_batch(batch, **columns).without_rows(failed)

    def apply_null(self, record: Record, schema: Any) -> tuple[Any, Any] | None:
        """What a tombstone (null part) becomes; None keeps the record as it is."""
        return None

    def apply_schemaless(self, record: Record, value: Any) -> Any:
        raise NotImplementedError

    def apply_with_schema(self, record: Record, schema: Any, value: Any) -> tuple[Any, Any]:
        raise NotImplementedError

    def schemaless_batch(self, batch: RecordBatch) -> bool:
        """True when no row of ``batch`` has a schema for this part (fast path possible)."""
        if not batch.is_arrow(self.part.schema_name) and batch.has_column(self.part.schema_name):
            schemas = batch.column(self.part.schema_name)
            return schemas.count(None) == len(schemas)
        return True


def derive_batch(batch: RecordBatch, **columns: Any) -> RecordBatch:
    """A new batch sharing ``batch``'s columns except ``columns``.

    The input batch is left as it was (the chain may still hold it).
    """
    return batch.with_columns(**columns)


def map_column(
    batch: RecordBatch,
    errors: ErrorSink,
    column: str,
    function: Callable[[Any], Any],
) -> RecordBatch:
    """Apply ``function`` to every value of ``column``; failed rows are reported and dropped."""
    with gc_paused():
        return _map_column(batch, errors, column, function)


def _map_column(batch: RecordBatch, errors: ErrorSink, column: str, function: Callable[[Any], Any]) -> RecordBatch:
    values = batch.column(column)
    out: list = []
    append = out.append
    failed: list[int] | None = None
    try:
        for value in values:
            append(function(value))
    except Exception:  # slow path: find and report each failing row
        out, failed = _map_with_failures(values, function, errors)
    return derive_batch(batch, **{column: out}).without_rows(failed or ())


_FAILED = object()


def _map_with_failures(values: list, function, errors: ErrorSink) -> tuple[list, list[int]]:
    out: list = []
    failed: list[int] = []
    for row, value in enumerate(values):
        try:
            out.append(function(value))
        except Exception as exc:  # each failure is attributed to its row
            errors.fail(row, exc)
            out.append(_FAILED)
            failed.append(row)
    return out, failed


def key_value_variants(base: type, kafka_name: str, module: str) -> tuple[type, type]:
    """The ``$Key`` and ``$Value`` subclasses of ``base``, named as Kafka names them."""
    variants = []
    for part in (KEY, VALUE):
        suffix = part.kafka_suffix
        name = f"{kafka_name}${suffix}"
        cls = type(
            f"{base.__name__}{suffix}",
            (base,),
            {
                "part": part,
                "name": name,
                "aliases": (KAFKA_PACKAGE + name, name.lower()),
                "__module__": module,
                "__doc__": base.__doc__,
            },
        )
        variants.append(cls)
    return variants[0], variants[1]
