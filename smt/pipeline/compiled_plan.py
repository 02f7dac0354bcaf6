"""The compiled path: a pipeline whose every stage has a Spark SQL form runs its records in the JVM.

The runner asks :func:`plan_run` how a run reads its source, and gets one of
three plans:

- :class:`PythonPlan`: every record takes the Python path (the plan says why);
- :class:`AllCompiledPlan`: a bet that every record takes the compiled path
  (one pass, nothing cached; a record that does not fails the write with
  :class:`BetLost`, a typed signal, and the runner runs a :class:`SplitPlan`,
  or the Python path for a sink that takes no split write: an upsert, whose
  changes of one key must keep their order);
- :class:`SplitPlan`: the source's records split in two:

  - the records the converter's compiled reader vouches for (their schema is
    one the plan learned from the first :data:`SAMPLE_ROWS` records, and Spark
    reads them exactly as the converter does) become Spark columns, go
    through the transforms' column rewrites and reach the sink as columns;
  - every other record (another schema, malformed JSON, a value Spark would
    read differently) goes through the Python path unchanged: decoded,
    transformed, dead-lettered and counted with Kafka's semantics.

A record's key is read by the key converter's compiled reader where the
key converter is not ``bytearray``: the record takes the compiled path only
if Spark reads its key exactly too.  In a bet, a tombstone (a null value)
the chain drops (:class:`smt.compiled.CompiledTombstones`) is dropped in the
JVM and counted as filtered.

The runner unions the two halves (:meth:`CompiledSchemas.sink_input`) into the
one DataFrame the sink's ordinary ``write`` gets, the compiled rows in the
columns :class:`smt.connector_roles.CompiledInput` describes.  The compiled
records are counted in the JVM (``DataFrame.observe``): each is read and
written once.  ``pipeline.compile=off`` turns the path off; the run log (and
``smt explain``) says which path was taken and, if not this one, the stage
that has no compiled form.  The stages with compiled forms declare them
(:class:`smt.compiled.CompiledStage`); ``pipeline.compile``'s documentation
lists them from the declarations (:func:`compile_config`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import logging
from typing import Any, Iterator, runtime_checkable

from smt.compiled import (
    COMPILED_KEY_COLUMN,
    COMPILED_VALUE_PREFIX,
    TYPE_KNOWN_COLUMN,
    CompiledConverter,
    CompiledTombstones,
    CompiledTransform,
    CompiledValue,
    NotCompilable,
    compiled_stages,
)
from smt.config import ConfigDef, ConfigType, Importance, one_of
from smt.connector import SOURCE_ERROR_COLUMN
from smt.pipeline.counts import observed_sums
from smt.pipeline.processor import BatchCounts

__all__ = ["AllCompiledPlan", "BetLost", "COMPILE_CONFIG", "CompiledSchemas", "NOT_EXACT", "PythonPlan", "RunPlan"]
__all__ += ["SAMPLE_ROWS", "SplitPlan", "compile_config", "compile_problem", "plan_compiled", "plan_run"]

log = logging.getLogger(__name__)

#: How many of the source's first records the plan reads to learn their schemas.
SAMPLE_ROWS = 500

#: How long a finished batch run waits for Spark's listener to deliver the compiled count.
_OBSERVATION_WAIT_S = 30.0

_KEY = "pipeline.compile"

_COMPILE_DOC = (
    "'auto' runs a batch pipeline in the JVM, without Python, when its source, value converter, key "
    "converter (bytearray, or one with a compiled form), every transform (no predicates) and its sink have "
    "compiled forms{stages}: records of the schemas seen in the first 500 records that Spark reads exactly "
    "as the converters do take it, every other record the Python path, in the same write (an upsert is "
    "never split: all records or none). A streaming run keeps every record in the JVM when its converters "
    "pass bytes through and every transform and predicate has a compiled form over whole records (see "
    "streaming.trigger=realTime). 'off' sends every record through Python."
)

COMPILE_CONFIG = ConfigDef().define(
    _KEY,
    ConfigType.STRING,
    "auto",
    one_of("auto", "off"),
    Importance.LOW,
    _COMPILE_DOC.format(stages=" (the reference lists them)"),
)

#: The plugin kinds whose classes may declare a compiled form, as pipeline.compile's documentation names them.
_STAGE_KINDS = (
    ("source", "source"),
    ("converter", "value converter"),
    ("transform", "transforms"),
    ("predicate", "predicates"),
    ("sink", "sink"),
)


def compile_config(plugins: Any) -> ConfigDef:
    """:data:`COMPILE_CONFIG` documented with the stages ``plugins`` (a :class:`smt.plugins.Plugins`) declare
    compiled forms for (:class:`smt.compiled.CompiledStage`)."""
    kinds = []
    for kind, title in _STAGE_KINDS:
        stages = compiled_stages(plugins.registrations(kind))
        if stages:
            kinds.append(f"{title}: " + ", ".join(f"{name} ({form})" for name, form in stages))
    stages = f" (declared: {'; '.join(kinds)})" if kinds else " (no installed plugin declares one)"
    key = dataclasses.replace(COMPILE_CONFIG.keys[0], doc=_COMPILE_DOC.format(stages=stages))
    return ConfigDef(keys=[key])


def compile_problem(spec: Any) -> str | None:
    """Why ``spec``'s records cannot take the compiled path whatever their schema (None: they may)."""
    if spec.config.get(_KEY, "auto") == "off":
        return f"{_KEY}=off"
    if spec.streaming:
        return "streaming runs take the Python path (the compiled path is for batch runs)"
    compiled_source, sink = spec.source_roles.compiled, spec.sink_roles.compiled
    if compiled_source is not None and sink is not None:
        source_problem = compiled_source.compiled_problem(split=sink.compiled_may_split())
        if source_problem is not None:
            return f"source: {source_problem}"
    key_converter = spec.key_converter
    if not key_converter.passthrough and not isinstance(key_converter, runtime_checkable(CompiledConverter)):
        return f"key.converter {type(key_converter).class_name()} has no compiled form: keys are decoded in Python"
    for stage in spec.chain.stages:
        if stage.predicate is not None:
            return f"transform '{stage.alias}' has a predicate"
        if not isinstance(stage.transform, runtime_checkable(CompiledTransform)):
            return f"transform '{stage.alias}' ({stage.class_name}) has no compiled form"
    if spec.sink_roles.compiled is None:
        return f"sink {type(spec.sink).class_name()} takes records only from Python"
    problem = spec.sink_roles.compiled.compiled_problem(None)
    if problem is not None:
        return f"sink: {problem}"
    if not isinstance(spec.value_converter, runtime_checkable(CompiledConverter)):
        return f"value.converter {type(spec.value_converter).class_name()} has no compiled form"
    return None


@dataclasses.dataclass(frozen=True)
class PythonPlan:
    """Every record of the run takes the Python path: ``reason`` says why (None: the run is streaming, or
    ``pipeline.compile`` does not apply and was not asked)."""

    reason: str | None = None


@dataclasses.dataclass(frozen=True)
class AllCompiledPlan:
    """A bet that every record of ``source`` takes the compiled path (see :meth:`CompiledSchemas.all_compiled`)."""

    compiled: "CompiledSchemas"
    source: Any


@dataclasses.dataclass(frozen=True)
class SplitPlan:
    """The records of ``source`` split between the compiled path and Python (:meth:`CompiledSchemas.split`)."""

    compiled: "CompiledSchemas"
    source: Any


#: How a batch run reads its source; the runner takes each kind its own way.
RunPlan = PythonPlan | AllCompiledPlan | SplitPlan


def plan_run(spec: Any, spark: Any) -> RunPlan:
    """How the run of ``spec`` reads its source: in Python, or (a batch run whose stages all compile)
    betting on the compiled path, or split between the two.  A compiled plan reads the source once here
    (its first records), and holds the source's DataFrame the run reads."""
    problem = compile_problem(spec)
    if problem is not None:
        return PythonPlan(problem)
    source = spec.source.read(spark, streaming=False)
    compiled = plan_compiled(spec, spark, source)
    if compiled is None:
        return PythonPlan("no schema of the source's first records compiles")
    if compiled.all_exact_first:
        return AllCompiledPlan(compiled, source)
    if not compiled.may_split:
        log.info("every record takes the Python path: %s", NO_SPLIT)
        return PythonPlan(NO_SPLIT)
    return SplitPlan(compiled, source)


#: Why a sink that takes no split write (``compiled_may_split``) runs in Python after all.
NO_SPLIT = (
    "the sink takes a write's records all from the compiled path or all from Python (an upsert keeps each "
    "key's changes in their order), and not every record of the first ones is compiled"
)


def plan_compiled(spec: Any, spark: Any, source_df: Any) -> "CompiledSchemas | None":
    """The compiled schemas of ``spec`` over ``source_df``, or None (logged, naming why)."""
    from pyspark.sql import functions as F

    problem = compile_problem(spec)
    reader = key_reader = None
    if problem is None:
        try:
            reader = spec.value_converter.compiled_reader(F)
            if not spec.key_converter.passthrough:  # compile_problem: it has a compiled form
                key_reader = spec.key_converter.compiled_reader(F)
        except NotCompilable as exc:
            problem = f"{'value' if reader is None else 'key'}.converter: {exc}"
    if problem is not None:
        log.info("every record takes the Python path: %s", problem)
        return None
    value = F.col("value").cast("binary")
    sample = _sample(spark, spec.source, source_df, F)
    key = None
    if key_reader is not None:
        try:
            key = _compiled_key(key_reader, sample, F)
        except NotCompilable as exc:
            log.info("every record takes the Python path: key.converter: %s", exc)
            return None
    schema_texts = {row["s"] for row in sample.select(reader.schema_text(value).alias("s")).collect()}
    compiled = []
    for schema_text in sorted(text for text in schema_texts if text is not None):
        name = f"{_PARSED}{len(compiled)}"
        try:
            compiled.append(_compiled_schema(spec, reader, value, schema_text, name, F, key))
        except NotCompilable as exc:
            log.info("records of schema %s take the Python path: %s", _short(schema_text), exc)
    if not compiled:
        log.info("every record takes the Python path: no schema in the first %d records compiles", SAMPLE_ROWS)
        return None
    log.info("records of %d schema(s) take the compiled path (Spark SQL, no Python); the others Python",
             len(compiled))  # fmt: skip
    sink = spec.sink_roles.compiled
    sink_types = [sink.compiled_type(s.value.schema) for s in compiled]
    plan = CompiledSchemas(spec.config["name"], compiled, sink_types, F, key, _drops_tombstones(spec.chain))
    if key is not None:
        plan.key_type = sink.compiled_type(key.value.schema)
    plan.may_split = sink.compiled_may_split()
    plan.all_exact_first = len(compiled) == 1 and sink.compiled_write_aborts_cleanly() and plan.all_exact(sample)
    return plan


@dataclasses.dataclass(frozen=True)
class _Key:
    """The records' keys as the plan reads them: ``exact`` where Spark reads a record's key exactly as the
    key converter does, with the one key schema of the first records."""

    parsed: Any
    exact: Any
    value: CompiledValue


#: The column of each record's parsed key (see _Key).
_PARSED_KEY = "_smt_parsed_key"


def _compiled_key(reader: Any, sample: Any, F: Any) -> _Key:
    """The keys' compiled reading: of the one key schema of the ``sample``'s records (raises NotCompilable)."""
    key = F.col("key").cast("binary")
    texts = sorted({row["s"] for row in sample.select(reader.schema_text(key).alias("s")).collect()} - {None})
    if len(texts) != 1:
        raise NotCompilable(f"the keys of the first {SAMPLE_ROWS} records have {len(texts)} schemas, not one")
    read = reader.read(key, texts[0], F.col(_PARSED_KEY))
    nested = _nested_field(read.value.schema)
    if nested is not None:
        raise NotCompilable(f"field '{nested}' of the key is not a primitive")
    optional = next((f.name for f in read.value.schema.fields if f.schema.optional), None)
    if optional is not None:
        raise NotCompilable(f"field '{optional}' of the key is optional")
    return _Key(read.parsed, read.exact, read.value)


def _drops_tombstones(chain: Any) -> bool:
    """Whether the chain drops every record whose value is null, as its transforms tell without running
    (:class:`smt.compiled.CompiledTombstones`): one drops them, and those before it pass them on."""
    for stage in chain.stages:
        if not isinstance(stage.transform, runtime_checkable(CompiledTombstones)):
            return False
        try:
            if stage.transform.compile_tombstone():
                return True
        except NotCompilable:
            return False
    return False


#: A sampled record longer than this is left out of the sample (its bytes would come to the driver).
_SAMPLE_RECORD_BYTES = 1 << 16


def _sample(spark: Any, source: Any, source_df: Any, F: Any) -> Any:
    """The first :data:`SAMPLE_ROWS` records' keys and values (and source errors) as a local relation.

    Read by the source's own Python tasks in the driver where it has them, else by one Spark job.  What
    the plan asks of the sample (its schema texts, whether each record is exact) are projections of a
    local relation, which Spark's optimizer evaluates in the driver: no job, no generated code to compile.
    """
    import pyarrow.compute as pc

    columns = [column for column in ("key", "value", SOURCE_ERROR_COLUMN) if column in source_df.columns]
    table = _read_in_the_driver(source, spark)
    if table is None:
        # A tombstone (no value) is sampled, as by the Python tasks below.
        short = F.coalesce(F.length(F.col("value").cast("binary")) <= _SAMPLE_RECORD_BYTES, F.lit(True))
        table = source_df.limit(SAMPLE_ROWS).where(short).select(*columns).toArrow()
    else:
        short = pc.fill_null(pc.less_equal(pc.binary_length(table["value"]), _SAMPLE_RECORD_BYTES), True)
        table = table.filter(short).select([column for column in columns if column in table.column_names])
    return spark.createDataFrame(table)


def _read_in_the_driver(source: Any, spark: Any) -> Any:
    """The source's first :data:`SAMPLE_ROWS` records as read by its Python tasks (an Arrow table), or None
    when it has none (Spark reads it)."""
    import pyarrow as pa

    tasks = source.read_tasks(spark)
    if tasks is None:
        return None
    batches = itertools.chain.from_iterable(task.batches(SAMPLE_ROWS) for task in tasks)
    taken, rows = [], 0
    for batch in batches:
        taken.append(pa.Table.from_batches([batch.slice(0, SAMPLE_ROWS - rows)]))
        rows += taken[-1].num_rows
        if rows >= SAMPLE_ROWS:
            break
    if not taken:
        return pa.table({"value": pa.array([], pa.binary())})
    # Each task's batches may or may not carry the source-error column.
    return pa.concat_tables(taken, promote_options="default")


@dataclasses.dataclass(frozen=True)
class _Schema:
    """One compiled schema: which records take it (``exact``), their values after the chain, and which
    records would be decoded with it or fail in Python (``same_schema``)."""

    name: str
    parsed: Any
    exact: Any
    same_schema: Any
    value: CompiledValue


#: The columns of each schema's parsed records, computed once per record (see CompiledPlan.split).
_PARSED = "_smt_parsed_"
#: Whether a record takes the compiled path (of schema i), and its value columns there.
_EXACT = "_smt_exact_"
#: Whether a record's written type is a compiled schema's (see CompiledRead.same_schema).
_SAME = "_smt_same_"
_VALUE = "_smt_value_"
#: A compiled row's key fields (beside its value's), and the flags of a bet's filter (see all_compiled).
_KEY_FIELD = "_smt_key_"
_CHECKED = "_smt_checked"
_TOMBSTONE = "_smt_tombstone"


def _nested_field(schema: Any) -> str | None:
    """The name of the first field of the struct ``schema`` that is not a primitive (a written column may
    not be one), or None."""
    return next((f.name for f in schema.fields if f.schema.type.value in ("struct", "array", "map")), None)


def _compiled_schema(
    spec: Any, reader: Any, value: Any, schema_text: str, name: str, F: Any, key: _Key | None
) -> _Schema:
    read = reader.read(value, schema_text, F.col(name))
    value, exact, same_schema = read.value, read.exact, read.same_schema
    if key is not None:
        exact = exact & key.exact
    for stage in spec.chain.stages:
        try:
            value = stage.transform.compile_value(value, F)
        except NotCompilable as exc:
            raise NotCompilable(f"transform '{stage.alias}': {exc}") from None
        if value.exact is not None:
            # A record the transform does not vouch for takes the Python path, where its written type
            # (none when the transform drops it) is not known beforehand.
            vouched = F.coalesce(value.exact, F.lit(False))
            exact, same_schema = exact & vouched, same_schema & vouched
            value = dataclasses.replace(value, exact=None)
    nested = _nested_field(value.schema)
    if nested is not None:
        raise NotCompilable(f"field '{nested}' of the value after the transforms is not a primitive")
    problem = spec.sink_roles.compiled.compiled_problem(value.schema, key.value.schema if key is not None else None)
    if problem is not None:
        raise NotCompilable(f"sink: {problem}")
    return _Schema(name, read.parsed, exact, same_schema, value)


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: The message of the error a record fails the all-compiled write with (see CompiledPlan.all_compiled).
NOT_EXACT = "smt-compiled-path: a record is not read by Spark exactly as by the value converter"


class BetLost(Exception):
    """The write that bet every record takes the compiled path met one that does not
    (:meth:`CompiledPlan.all_compiled`): the runner runs again, split."""


def _raised_not_exact(exc: BaseException) -> bool:
    """Whether ``exc``, or an error under it, is Spark's ``raise_error(NOT_EXACT)``: recognised by its
    condition and parameters, here alone."""
    from pyspark.errors import PySparkException
    from pyspark.errors.exceptions.captured import CapturedException

    pending, seen = [exc], set()
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, PySparkException) and current.getCondition() == "USER_RAISED_EXCEPTION":
            if (current.getMessageParameters() or {}).get("errorMessage") == NOT_EXACT:
                return True
        # A write command wraps the task's error: PySpark converts the JVM cause chain into _cause.
        jvm_cause = current._cause if isinstance(current, CapturedException) else None
        pending += [current.__cause__, current.__context__, jvm_cause]
    return False


class CompiledSchemas:
    """How a batch run's source splits between the compiled path and Python, and the compiled count.

    Two ways to run it (the plan the runner got, :func:`plan_run`):

    - :meth:`all_compiled` bets that every record takes the compiled path: one pass, every record
      read, parsed and written by Spark, nothing cached.  The first record that does not fails the
      write (:meth:`betting` turns that failure into :class:`BetLost`); the runner then runs again with
      :meth:`split`.  Taken only when the sink's failed write leaves the table as it was
      (``Sink.compiled_write_aborts_cleanly``) and every record of the sample was exact
      (:attr:`all_exact_first`).
    - :meth:`split` parses each record once into a cache, and hands the records that are not exact
      to the Python path.

    Either way :meth:`sink_input` unions both halves into the one DataFrame the sink writes.
    """

    def __init__(
        self,
        name: str,
        schemas: list[_Schema],
        sink_types: list[Any],
        functions: Any,
        key: _Key | None = None,
        drops_tombstones: bool = False,
    ) -> None:
        self.schemas = schemas
        #: The Spark struct type the sink writes each schema's values as (CompiledInput.compiled_type).
        self.sink_types = sink_types
        self.F = functions
        #: The records' keys as read (None: a bytearray key converter, the keys stay bytes), and the Spark
        #: struct type the sink writes them as (:data:`smt.compiled.COMPILED_KEY_COLUMN`).
        self.key = key
        self.key_type: Any = None
        #: Whether the chain drops every tombstone: in a bet (:meth:`all_compiled`), a tombstone whose key
        #: is read exactly is then dropped in the JVM and counted as filtered.
        self.drops_tombstones = drops_tombstones
        #: Whether the sink takes a write split between the two paths (CompiledInput.compiled_may_split).
        self.may_split = True
        self.observation_name = f"smt-compiled-{name}"
        self.observations: list[Any] = []
        self.cached = None
        #: Whether the run first bets that every record takes the compiled path (see all_compiled).
        self.all_exact_first = False

    def _parsed(self, df: Any) -> Any:
        """``df`` with each record parsed once, in a projection of its own: the optimizer does not merge a
        projection into the next when that would copy an expensive expression (the parse) into each use."""
        parsed = [schema.parsed.alias(schema.name) for schema in self.schemas]
        if self.key is not None:
            parsed.append(self.key.parsed.alias(_PARSED_KEY))
        return df.select("*", *parsed)

    def _read_ok(self, df: Any) -> Any:
        """Whether the source read each record of ``df`` (no source error)."""
        F = self.F
        return F.lit(True) if SOURCE_ERROR_COLUMN not in df.columns else F.col(SOURCE_ERROR_COLUMN).isNull()

    def _any_exact(self, df: Any, tombstones: bool = False) -> Any:
        ok, any_exact = self._read_ok(df), self.F.lit(False)
        for schema in self.schemas:
            any_exact = any_exact | (ok & schema.exact)
        return any_exact | self._dropped_tombstone(df) if tombstones else any_exact

    def _dropped_tombstone(self, df: Any) -> Any:
        """Whether a record of ``df`` is a tombstone the chain drops (:attr:`drops_tombstones`) whose key
        is read exactly: in a bet, dropped in the JVM."""
        F = self.F
        if not self.drops_tombstones:
            return F.lit(False)
        key_exact = F.coalesce(self.key.exact, F.lit(False)) if self.key is not None else F.lit(True)
        return self._read_ok(df) & F.col("value").isNull() & key_exact

    def all_exact(self, df: Any) -> bool:
        """Whether every record of ``df`` (a sample) takes the compiled path in a bet (:meth:`all_compiled`)."""
        # A projection, not a filter: over a local relation (the sample) Spark evaluates it without a job.
        return all(row[0] for row in self._parsed(df).select(self._any_exact(df, tombstones=True)).collect())

    def all_compiled(self, df: Any) -> list[Any]:
        """``df``'s records as compiled rows of the plan's one schema (a list of one DataFrame), failing
        (:class:`BetLost`) at the first that is not exact.  Tombstones the chain drops are counted, then
        left out."""
        F, schema = self.F, self.schemas[0]
        self.observations = []
        exact = F.when(self._any_exact(df, tombstones=True), F.lit(True)).otherwise(F.raise_error(F.lit(NOT_EXACT)))
        columns = [column.alias(name) for name, column in schema.value.columns.items()] + self._key_columns()
        if self.drops_tombstones:
            # The check rides on the filter that leaves the tombstones out, above the count of every record.
            flags = [exact.alias(_CHECKED), self._dropped_tombstone(df).alias(_TOMBSTONE)]
            rows = self._observed(self._parsed(df).select(*columns, *flags), F.col(_TOMBSTONE))
            return [rows.where(F.col(_CHECKED) & ~F.col(_TOMBSTONE)).drop(_CHECKED, _TOMBSTONE)]
        # The check rides on a written column: a filter or an unused column would be pushed or pruned away.
        name, first = next(iter(schema.value.columns.items()))
        columns[0] = F.when(exact, first).alias(name)
        return [self._observed(self._parsed(df).select(*columns))]

    def _key_columns(self) -> list[Any]:
        """The key's columns, named apart from the value's (none when the keys stay bytes)."""
        if self.key is None:
            return []
        return [column.alias(f"{_KEY_FIELD}{name}") for name, column in self.key.value.columns.items()]

    def _key_names(self) -> list[str]:
        """The names of :meth:`_key_columns`."""
        return [] if self.key is None else [f"{_KEY_FIELD}{name}" for name in self.key.value.columns]

    def _observed(self, rows: Any, dropped: Any = None) -> Any:
        """``rows`` counted as they are written (one observation per compiled schema, summed by :meth:`counts`);
        ``dropped``: a boolean column, true on the rows the write leaves out (filtered)."""
        from pyspark.sql import Observation

        F = self.F
        observation = Observation(f"{self.observation_name}-{len(self.observations)}")
        self.observations.append(observation)
        dropped_count = F.count(F.when(dropped, F.lit(1))) if dropped is not None else F.lit(0)
        return rows.observe(observation, F.count(F.lit(1)).alias("n"), dropped_count.alias("dropped"))

    @contextlib.contextmanager
    def betting(self) -> Iterator[None]:
        """Around a write: a write that bet on every record (:attr:`all_exact_first`) and met one that is
        not exact raises :class:`BetLost` instead of Spark's error."""
        try:
            yield
        except Exception as exc:
            if self.all_exact_first and _raised_not_exact(exc):
                raise BetLost(NOT_EXACT) from exc
            raise

    def split(self, df: Any) -> tuple[Any, Any, list[Any]]:
        """``df`` (the source's records) as (the records for Python whose written type is a compiled
        schema's, the other records for Python, the compiled rows of each schema)."""
        from pyspark import StorageLevel

        F, ok = self.F, self._read_ok(df)
        self.observations = []  # a lost bet's observation never reports
        tagged = self._parsed(df)
        flags = [(ok & schema.exact).alias(f"{_EXACT}{i}") for i, schema in enumerate(self.schemas)]
        tagged = tagged.select("*", *flags)
        any_exact, any_same = F.lit(False), F.lit(False)
        for i, schema in enumerate(self.schemas):
            any_exact = any_exact | F.col(f"{_EXACT}{i}")
            any_same = any_same | (ok & schema.same_schema)
        # One pass computes both halves: the compiled records keep their columns, the others their record.
        values = [
            column.alias(f"{_VALUE}{i}_{name}")
            for i, schema in enumerate(self.schemas)
            for name, column in schema.value.columns.items()
        ]
        source = [F.when(~any_exact, F.col(f"`{name}`")).alias(name) for name in df.columns]
        exacts = [F.col(f"{_EXACT}{i}") for i in range(len(self.schemas))]
        kept = [*source, *exacts, any_exact.alias(_EXACT), any_same.alias(_SAME), *values, *self._key_columns()]
        self.cached = tagged.select(*kept).persist(StorageLevel.MEMORY_AND_DISK)
        keys = [F.col(name) for name in self._key_names()]
        compiled = []
        for i, schema in enumerate(self.schemas):
            columns = [F.col(f"{_VALUE}{i}_{name}").alias(name) for name in schema.value.columns]
            compiled.append(self._observed(self.cached.where(F.col(f"{_EXACT}{i}")).select(*columns, *keys)))
        source_columns = [F.col(f"`{name}`") for name in df.columns]
        python = self.cached.where(~F.col(_EXACT))
        return (
            python.where(F.col(_SAME)).select(*source_columns),
            python.where(~F.col(_SAME)).select(*source_columns),
            compiled,
        )

    def python_input(self, python: list[tuple[Any, bool]]) -> Any:
        """The Python path's outputs (``python``: each with whether its records' written types are
        compiled schemas') as one DataFrame, in the columns :class:`smt.connector_roles.CompiledInput`
        describes (the compiled value columns null)."""
        # Only where some rows' written types are unknown: without the column, the sink learns no types.
        typed = not all(known for _, known in python)
        halves = [
            out.select("*", *self._no_values(), *self._no_key(), *self._known(known, typed)) for out, known in python
        ]
        union = halves[0]
        for half in halves[1:]:
            union = union.unionByName(half)
        return union

    def sink_input(self, python: Any, compiled: list[Any], flag: str) -> Any:
        """The one DataFrame the sink's write gets: ``python`` (from :meth:`python_input`, counted) with
        each schema's ``compiled`` rows.  These are records (``flag``, the dead-letter flag, false) whose
        other columns of the Python path's output are null (no record fields, no counts row)."""
        F = self.F
        typed = TYPE_KNOWN_COLUMN in python.columns
        names = [f"{COMPILED_VALUE_PREFIX}{i}" for i in range(len(self.schemas))]
        own = {*names, TYPE_KNOWN_COLUMN, COMPILED_KEY_COLUMN}
        fields = [field for field in python.schema.fields if field.name not in own]
        union = python
        for i, rows in enumerate(compiled):
            record = [
                (F.lit(False) if field.name == flag else F.lit(None).cast(field.dataType)).alias(field.name)
                for field in fields
            ]
            # Cast field by field, not the struct as a whole: a struct built of columns is never null,
            # which the optimizer knows (a pass over the other rows prunes these).
            value = F.struct(*(F.col(f"`{f.name}`").cast(f.dataType).alias(f.name) for f in self.sink_types[i].fields))
            values = [
                value.alias(name) if j == i else none for j, (name, none) in enumerate(zip(names, self._no_values()))
            ]
            union = union.unionByName(rows.select(*record, *values, *self._key(), *self._known(True, typed)))
        return union

    def _key(self) -> list[Any]:
        """A compiled row's key (:data:`COMPILED_KEY_COLUMN`), where the plan reads the keys."""
        if self.key_type is None:
            return []
        F = self.F
        fields = (F.col(f"`{_KEY_FIELD}{f.name}`").cast(f.dataType).alias(f.name) for f in self.key_type.fields)
        return [F.struct(*fields).alias(COMPILED_KEY_COLUMN)]

    def _no_key(self) -> list[Any]:
        return [] if self.key_type is None else [self.F.lit(None).cast(self.key_type).alias(COMPILED_KEY_COLUMN)]

    def _no_values(self) -> list[Any]:
        return [
            self.F.lit(None).cast(sink_type).alias(f"{COMPILED_VALUE_PREFIX}{i}")
            for i, sink_type in enumerate(self.sink_types)
        ]

    def _known(self, known: bool, typed: bool) -> list[Any]:
        return [self.F.lit(known).alias(TYPE_KNOWN_COLUMN)] if typed else []

    def release(self) -> None:
        """Drop the split's cache (the write finished or failed)."""
        if self.cached is not None:
            self.cached.unpersist()
            self.cached = None

    def counts(self) -> BatchCounts:
        """The compiled records of the finished write: each read and written once."""
        self.release()
        n = dropped = 0
        for i, observation in enumerate(self.observations):
            observed = observed_sums(observation, wait_s=_OBSERVATION_WAIT_S)
            if not observed:
                log.warning("compiled records of schema %d were written uncounted: Spark reported no count", i)
            n += int(observed["n"]) if observed else 0
            dropped += int(observed["dropped"]) if observed else 0
        self.observations = []
        written = n - dropped
        return BatchCounts(read=n, written=written, output_rows=written, filtered=dropped)
