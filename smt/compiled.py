"""Compiled stages: a source, converter, transform or sink that can run as Spark SQL columns, in the JVM.

The pipeline's compiled path (:mod:`smt.pipeline.compiled_plan`) keeps the
records of a simple pipeline out of Python: the value converter reads each
record into Spark columns, each transform rewrites those columns, and the
sink writes them.  Each plugin offers its compiled form through a hook that
either returns it or raises :class:`NotCompilable` saying why not; a plugin
without the hook has no compiled form.  A compiled form must give exactly
what the plugin gives in Python, record by record, or refuse the record:
:attr:`CompiledRead.exact` sends every record it cannot vouch for to the
Python path, where it is decoded, transformed and dead-lettered as always.

Hooks (all optional; a source's and a sink's are the roles
:class:`smt.connector_roles.CompiledSource` and
:class:`smt.connector_roles.CompiledInput`, resolved once with the plan):

- ``Source.compiled_problem()`` → why Spark's reading of the source
  (``Source.read``) is not the records its Python tasks read, or None;
- ``Converter.compiled_reader()`` → an object with
  ``schema_text(text)`` (a column: the schema text of each record) and
  ``read(text, schema_text, parsed_as)`` → :class:`CompiledRead`;
- ``Transform.compile_value(value)`` → a :class:`CompiledValue` (the value
  after the transform; its ``exact`` column, where set, sends the records the
  transform's compiled form does not vouch for, e.g. those it drops, to the
  Python path);
- ``Transform.compile_tombstone()`` → True where the transform drops every
  record whose value is null, False where it passes such a record on as it
  is (:class:`CompiledTombstones`);
- ``Sink.compiled_problem(schema, key_schema)`` → why values of this Connect
  schema (with keys of ``key_schema``, None when the keys stay bytes) cannot
  be written from columns (None: they can);
  ``Sink.compiled_type(schema)`` → the Spark struct type the sink writes
  values of the schema as; and ``Sink.compiled_write_aborts_cleanly()`` →
  whether a failed write leaves the output as it was (the plan may then bet
  on every record first); ``Sink.compiled_may_split()`` → whether one write
  may take some records from columns and the others from Python (an upsert,
  whose order of changes per key counts, may not).

A key converter that is not ``bytearray`` needs a compiled reader too: the
plan reads each record's key with it (one key schema, learned from the first
records), and a record whose key Spark does not read exactly as the
converter does takes the Python path.

The runner hands such a sink one DataFrame in its ordinary ``write``: the
Python path's output (Kafka row layout) with, beside it, the compiled rows
(see :data:`COMPILED_VALUE_PREFIX` and :data:`TYPE_KNOWN_COLUMN`).

Every plugin class with a compiled form also declares it, for the reference:
:class:`CompiledStage` (``pipeline.compile``'s documentation lists the
declared stages, :func:`compiled_stages`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable, Protocol, runtime_checkable

__all__ = ["COMPILED_KEY_COLUMN", "COMPILED_VALUE_PREFIX", "TYPE_KNOWN_COLUMN", "CompiledConverter", "CompiledRead"]
__all__ += ["CompiledStage"]
__all__ += ["CompiledTransform", "CompiledValue", "NotCompilable", "PRIMITIVE_DDL", "compiled_stages"]
__all__ += ["CompiledPredicate", "CompiledRecord", "CompiledRecordTransform", "compile_stage", "compiled_value_columns"]
__all__ += ["CompiledObject", "CompiledRecordConverter", "CompiledTombstones", "ObjectRead"]

#: The columns of the compiled rows in a batch write's DataFrame (see :class:`smt.connector_roles.CompiledInput`):
#: ``<prefix><i>``, one per compiled schema, a struct of the sink's :meth:`compiled_type` of the schema, set on
#: the rows of that schema and null on every other row (the Python path's, whose record fields are
#: null on the compiled rows).
COMPILED_VALUE_PREFIX = "_smt_compiled_value_"

#: Beside them, where the plan cannot tell every row's value type: true on the rows whose value type is one
#: of the compiled columns' (the compiled rows, and the Python path's records the plan knows are of a
#: compiled schema), so that a sink that learns the written types reads only the other rows for theirs.
#: A write with compiled columns and without this one has no row of another type (a bet on the compiled
#: path: no Python record).
TYPE_KNOWN_COLUMN = "_smt_compiled_type_known"

#: Beside them, where the plan read the records' keys (a key converter that is not ``bytearray``): the key
#: of each compiled row, a struct of the sink's :meth:`compiled_type` of the key schema (null on the Python
#: path's rows).  Its field names are those of the record keys.
COMPILED_KEY_COLUMN = "_smt_compiled_key"

#: The Spark SQL type of a compiled column of each primitive Connect type without a logical name (for
#: a transform's literals: ``lit(x).cast(ddl)``).
PRIMITIVE_DDL = {
    "int8": "tinyint",
    "int16": "smallint",
    "int32": "int",
    "int64": "bigint",
    "float32": "float",
    "float64": "double",
    "boolean": "boolean",
    "string": "string",
}


def compiled_value_columns(names: Iterable[str]) -> list[str]:
    """The compiled rows' value columns among the column ``names`` of a write (none: no compiled rows)."""
    return [name for name in names if name.startswith(COMPILED_VALUE_PREFIX)]


@runtime_checkable
class CompiledStage(Protocol):
    """A plugin class that declares a compiled form (a transform, converter, source or sink).

    The declaration is what the reference lists (``pipeline.compile``'s documentation); the pipeline
    still asks each configured stage for its compiled form (the hooks above), which may refuse.
    """

    @classmethod
    def compiled_form(cls) -> str | None:
        """What of this plugin has a compiled form, in a few words ("top-level fields"), or None when
        this class has none (a ``$Key`` variant of a transform whose ``$Value`` has)."""
        ...


def compiled_stages(registrations: Iterable[Any]) -> list[tuple[str, str]]:
    """``(name, form)`` of each registration (``.name``, ``.cls``) whose class declares a compiled form."""
    stages = []
    for registration in registrations:
        cls = registration.cls
        if isinstance(cls, type) and issubclass(cls, CompiledStage):
            form = cls.compiled_form()
            if form is not None:
                stages.append((registration.name, form))
    return sorted(stages)


class CompiledTransform(Protocol):
    """A transform with a compiled form (the planner checks for it once, :mod:`smt.pipeline.compiled_plan`)."""

    def compile_value(self, value: "CompiledValue", functions: Any) -> "CompiledValue":
        """The value after the transform, as columns; raises :class:`NotCompilable` saying why not."""
        ...


class CompiledTombstones(Protocol):
    """A transform that knows, without running, what it does with a record whose value is null."""

    def compile_tombstone(self) -> bool:
        """True: it drops every such record; False: it passes every one on unchanged (key, headers and
        all).  Raises :class:`NotCompilable` when neither holds."""
        ...


class CompiledConverter(Protocol):
    """A key or value converter with a compiled reader (the planner checks for it once)."""

    def compiled_reader(self, functions: Any) -> Any:
        """The reader (``schema_text``, ``read``: see the module's doc); raises :class:`NotCompilable`."""
        ...


class NotCompilable(Exception):
    """A stage has no compiled form for this pipeline or schema; the message says why."""


@dataclasses.dataclass(frozen=True)
class CompiledObject:
    """A record's value read as a flat JSON object, as Spark columns (a schemaless JSON value converter's
    compiled form, :class:`CompiledRecordConverter`).

    ``entries``: ``array<struct<key:string,kind:string,token:string>>``, the object's members in order,
    each its key, its value's kind (``STRING``, ``BIGINT``, ``DECIMAL``, ``BOOLEAN``, or ``VOID`` for
    null) and its value's JSON text as the converter writes it; null where the value is null (a
    tombstone).
    ``token(value)``: the JSON text the converter writes for a Connect value (a string, int, bool or
    None), on the driver.  ``exact``: None, or a boolean column a transform sets, false where its
    compiled form cannot vouch for the record (a field of a kind it cannot mask in Python too).
    """

    entries: Any
    token: Callable[[Any], str]
    exact: Any = None

    def vouched(self, condition: Any) -> "CompiledObject":
        """This object, exact only where ``condition`` holds too."""
        exact = condition if self.exact is None else self.exact & condition
        return dataclasses.replace(self, exact=exact)


@dataclasses.dataclass(frozen=True)
class ObjectRead:
    """What a converter's compiled reading of a record part gives: the object, and ``exact``, a boolean
    column true only where the converter in Python reads the same object (or null) from the bytes and
    writes back, from it, exactly what the compiled form writes."""

    value: CompiledObject
    exact: Any


@runtime_checkable
class CompiledRecordConverter(Protocol):
    """A key or value converter that reads and writes whole records' parts in Spark SQL (for the JVM
    streaming path, :mod:`smt.pipeline.jvm_stream`)."""

    def compiled_record_codec(self, functions: Any) -> Any:
        """The codec: ``parse(data)`` (the entries of the object in a binary column: the one expensive
        column, computed once), ``read(data, entries) -> ObjectRead``; ``rewritten(data) ->
        (written, exact)`` (what the converter writes after reading ``data``, a part no transform
        changed, and where Spark SQL does as it does); and ``render(entries)`` (the bytes of an
        object's entries).  Raises :class:`NotCompilable` saying why there is none."""
        ...


@dataclasses.dataclass(frozen=True)
class CompiledRecord:
    """A whole record as Spark columns of the Kafka row layout (:data:`smt.row_layout.KAFKA_ROW_FIELDS`),
    for the streaming path that keeps every record in the JVM (:mod:`smt.pipeline.jvm_stream`).

    Its key and value are the bytes read (the key and value converters pass bytes through), its
    headers the ``array<struct<key:string,value:binary>>`` read (a header read stays bytes).
    ``kept``: None (every record), or a boolean column, false where a transform dropped the record.
    ``header_bytes(key, value)``: the bytes the header converter writes for a header a transform sets
    (a Connect value), computed once on the driver; raises :class:`NotCompilable` where they cannot be.
    ``value_object``: the value read as a JSON object, where the value converter reads one
    (:class:`CompiledObject`; the ``value`` column is then the bytes read, written from the object
    by the path once a transform changed it), else None.
    """

    columns: dict[str, Any]
    header_bytes: Callable[[str, Any], bytes]
    kept: Any = None
    value_object: CompiledObject | None = None

    def replaced(self, **columns: Any) -> "CompiledRecord":
        """This record with some columns replaced."""
        return dataclasses.replace(self, columns={**self.columns, **columns})

    def with_value_object(self, value_object: CompiledObject) -> "CompiledRecord":
        """This record with its value object replaced (a transform changed its fields)."""
        return dataclasses.replace(self, value_object=value_object)

    def dropped(self, functions: Any) -> "CompiledRecord":
        """This record dropped (a Filter)."""
        return dataclasses.replace(self, kept=functions.lit(False))


@runtime_checkable
class CompiledRecordTransform(Protocol):
    """A transform with a compiled form over a whole record (:class:`CompiledRecord`)."""

    def compile_record(self, record: CompiledRecord, functions: Any) -> CompiledRecord:
        """The record after the transform, as columns; raises :class:`NotCompilable` saying why not.
        ``functions`` is ``pyspark.sql.functions``."""
        ...


@runtime_checkable
class CompiledPredicate(Protocol):
    """A predicate with a compiled form over a whole record (:class:`CompiledRecord`)."""

    def compile_test(self, record: CompiledRecord, functions: Any) -> Any:
        """A boolean column, never null: true where the predicate matches the record (``negate`` is
        the chain stage's); raises :class:`NotCompilable` saying why not."""
        ...


@dataclasses.dataclass(frozen=True)
class CompiledValue:
    """A record value as Spark columns: its Connect struct ``schema`` and one column per field, in order.

    A field may be a struct of primitives (a nested struct column, null where the struct is null), for a
    transform to take apart; the plan writes only values of primitive fields.  ``exact``: None, or a
    boolean column a transform sets, true only where its columns are what it gives in Python for the
    record.  A record it drops (a Debezium truncate event), or turns into another schema's value or
    a tombstone, is not exact: the plan sends it to the Python path, which drops, writes or counts it
    as always.  The plan reads ``exact`` after each transform; the next one gets the value without it.
    """

    schema: Any
    columns: dict[str, Any]
    exact: Any = None


@dataclasses.dataclass(frozen=True)
class CompiledRead:
    """What a converter's compiled reader gives for one schema text.

    ``parsed``: the one expensive column (a parse), which the caller computes
    once per record under the name the reader was given; the others refer to
    it by that name.  ``value``: the decoded value's columns.  ``exact``: a boolean column,
    true only where the record has this schema and its columns equal what the
    converter decodes in Python.  ``same_schema``: a cheap boolean column,
    true only where the converter, in Python, decodes the record with this
    very schema or fails it (so its written type is known without running it).
    """

    parsed: Any
    value: CompiledValue
    exact: Any
    same_schema: Any


def compile_stage(stage: Any, record: CompiledRecord, functions: Any) -> CompiledRecord:
    """``record`` after the chain stage ``stage`` (a :class:`smt.chain_stage.ChainStage`: its transform,
    where its predicate, negated or not, matches); raises :class:`NotCompilable` naming the stage."""
    F = functions
    transform, predicate = stage.transform, stage.predicate
    if not isinstance(transform, CompiledRecordTransform):
        raise NotCompilable(f"transform '{stage.alias}' ({stage.class_name}) has no compiled form over whole records")
    if predicate is not None and not isinstance(predicate, CompiledPredicate):
        raise NotCompilable(
            f"transform '{stage.alias}': its predicate ({type(predicate).class_name()}) has no compiled form"
        )
    try:
        after = transform.compile_record(record, F)
        applies = predicate.compile_test(record, F) if predicate is not None else None
    except NotCompilable as exc:
        raise NotCompilable(f"transform '{stage.alias}' ({stage.class_name}): {exc}") from None
    if applies is None:
        return after
    applies = ~applies if stage.negate else applies
    columns = {
        name: column if column is record.columns[name] else F.when(applies, column).otherwise(record.columns[name])
        for name, column in after.columns.items()
    }
    kept = after.kept
    if kept is not record.kept:
        was_kept = F.lit(True) if record.kept is None else record.kept
        kept = F.when(applies, F.lit(True) if kept is None else kept).otherwise(was_kept)
    value_object = after.value_object
    if value_object is not record.value_object:
        value_object = _object_where(F, applies, value_object, record.value_object)
    return dataclasses.replace(after, columns=columns, kept=kept, value_object=value_object)


def _object_where(F: Any, applies: Any, changed: CompiledObject, was: CompiledObject) -> CompiledObject:
    """``changed`` where ``applies``, else ``was`` (the object before a stage whose predicate may not match)."""
    entries = changed.entries
    if entries is not was.entries:
        entries = F.when(applies, entries).otherwise(was.entries)
    exact = changed.exact
    if exact is not was.exact:
        was_exact = F.lit(True) if was.exact is None else was.exact
        exact = F.when(applies, F.lit(True) if exact is None else exact).otherwise(was_exact)
    return dataclasses.replace(changed, entries=entries, exact=exact)
