"""The compiled path: a pipeline whose every stage has a Spark SQL form runs its records in the JVM.

The runner asks :func:`plan_run` how a run reads its source, and gets one of
three plans:

- :class:`PythonPlan`: every record takes the Python path (the plan says why);
- :class:`AllCompiledPlan`: a bet that every record takes the compiled path
  (one pass, nothing cached; a record that does not fails the write with
  :class:`BetLost`, a typed signal, and the runner runs a :class:`SplitPlan`);
- :class:`SplitPlan`: the source's records split in two:

  - the records the converter's compiled reader vouches for (their schema is
    one the plan learned from the first :data:`SAMPLE_ROWS` records, and Spark
    reads them exactly as the converter does) become Spark columns, go
    through the transforms' column rewrites and reach the sink as columns;
  - every other record (another schema, malformed JSON, a value Spark would
    read differently) goes through the Python path unchanged: decoded,
    transformed, dead-lettered and counted with Kafka's semantics.

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
    COMPILED_VALUE_PREFIX,
    TYPE_KNOWN_COLUMN,
    CompiledConverter,
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
    "'auto' runs a batch pipeline in the JVM, without Python, when its source, value converter, every "
    "transform (no predicates) and its sink have compiled forms{stages}: records of the schemas seen in the "
    "first 500 records that Spark reads exactly as the converter does take it, every other record the "
    "Python path, in the same write. A streaming run keeps every record in the JVM when its converters "
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
    compiled_source = spec.source_roles.compiled
    source_problem = compiled_source.compiled_problem() if compiled_source is not None else None
    if source_problem is not None:
        return f"source: {source_problem}"
    if not spec.key_converter.passthrough:
        return "key.converter is not bytearray: keys are decoded in Python"
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
    return (AllCompiledPlan if compiled.all_exact_first else SplitPlan)(compiled, source)


def plan_compiled(spec: Any, spark: Any, source_df: Any) -> "CompiledSchemas | None":
    """The compiled schemas of ``spec`` over ``source_df``, or None (logged, naming why)."""
    from pyspark.sql import functions as F

    problem = compile_problem(spec)
    reader = None
    if problem is None:
        try:
            reader = spec.value_converter.compiled_reader(F)
        except NotCompilable as exc:
            problem = f"value.converter: {exc}"
    if problem is not None:
        log.info("every record takes the Python path: %s", problem)
        return None
    value = F.col("value").cast("binary")
    sample = _sample(spark, spec.source, source_df, F)
    schema_texts = {row["s"] for row in sample.select(reader.schema_text(value).alias("s")).collect()}
    compiled = []
    for schema_text in sorted(text for text in schema_texts if text is not None):
        try:
            compiled.append(_compiled_schema(spec, reader, value, schema_text, f"{_PARSED}{len(compiled)}", F))
        except NotCompilable as exc:
            log.info("records of schema %s take the Python path: %s", _short(schema_text), exc)
    if not compiled:
        log.info("every record takes the Python path: no schema in the first %d records compiles", SAMPLE_ROWS)
        return None
    log.info("records of %d schema(s) take the compiled path (Spark SQL, no Python); the others Python",
             len(compiled))  # fmt: skip
    sink = spec.sink_roles.compiled
    plan = CompiledSchemas(spec.config["name"], compiled, [sink.compiled_type(s.value.schema) for s in compiled], F)
    plan.all_exact_first = len(compiled) == 1 and sink.compiled_write_aborts_cleanly() and plan.all_exact(sample)
    return plan


#: A sampled record longer than this is left out of the sample (its bytes would come to the driver).
_SAMPLE_RECORD_BYTES = 1 << 16


def _sample(spark: Any, source: Any, source_df: Any, F: Any) -> Any:
    """The first :data:`SAMPLE_ROWS` records' values (and source errors) as a local relation.

    Read by the source's own Python tasks in the driver where it has them, else by one Spark job.  What
    the plan asks of the sample (its schema texts, whether each record is exact) are projections of a
    local relation, which Spark's optimizer evaluates in the driver: no job, no generated code to compile.
    """
    import pyarrow.compute as pc

    columns = [column for column in ("value", SOURCE_ERROR_COLUMN) if column in source_df.columns]
    table = _read_in_the_driver(source, spark)
    if table is None:
        short = F.length(F.col("value").cast("binary")) <= _SAMPLE_RECORD_BYTES
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


def _compiled_schema(spec: Any, reader: Any, value: Any, schema_text: str, name: str, F: Any) -> _Schema:
    read = reader.read(value, schema_text, F.col(name))
    value, exact, same_schema = read.value, read.exact, read.same_schema
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
    nested = next((f.name for f in value.schema.fields if f.schema.type.value in ("struct", "array", "map")), None)
    if nested is not None:
        raise NotCompilable(f"field '{nested}' of the value after the transforms is not a primitive")
    problem = spec.sink_roles.compiled.compiled_problem(value.schema)
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

    def __init__(self, name: str, schemas: list[_Schema], sink_types: list[Any], functions: Any) -> None:
        self.schemas = schemas
        #: The Spark struct type the sink writes each schema's values as (CompiledInput.compiled_type).
        self.sink_types = sink_types
        self.F = functions
        self.observation_name = f"smt-compiled-{name}"
        self.observations: list[Any] = []
        self.cached = None
        #: Whether the run first bets that every record takes the compiled path (see all_compiled).
        self.all_exact_first = False

    def _parsed(self, df: Any) -> Any:
        """``df`` with each record parsed once, in a projection of its own: the optimizer does not merge a
        projection into the next when that would copy an expensive expression (the parse) into each use."""
        return df.select("*", *(schema.parsed.alias(schema.name) for schema in self.schemas))

    def _read_ok(self, df: Any) -> Any:
        """Whether the source read each record of ``df`` (no source error)."""
        F = self.F
        return F.lit(True) if SOURCE_ERROR_COLUMN not in df.columns else F.col(SOURCE_ERROR_COLUMN).isNull()

    def _any_exact(self, df: Any) -> Any:
        ok, any_exact = self._read_ok(df), self.F.lit(False)
        for schema in self.schemas:
            any_exact = any_exact | (ok & schema.exact)
        return any_exact

    def all_exact(self, df: Any) -> bool:
        """Whether every record of ``df`` (a sample) takes the compiled path."""
        # A projection, not a filter: over a local relation (the sample) Spark evaluates it without a job.
        return all(row[0] for row in self._parsed(df).select(self._any_exact(df)).collect())

    def all_compiled(self, df: Any) -> list[Any]:
        """``df``'s records as compiled rows of the plan's one schema (a list of one DataFrame), failing
        (:class:`BetLost`) at the first that is not exact."""
        F, schema = self.F, self.schemas[0]
        self.observations = []
        # The check rides on a written column: a filter or an unused column would be pushed or pruned away.
        exact = F.when(self._any_exact(df), F.lit(True)).otherwise(F.raise_error(F.lit(NOT_EXACT)))
        columns = [
            (F.when(exact, column) if i == 0 else column).alias(name)
            for i, (name, column) in enumerate(schema.value.columns.items())
        ]
        return [self._observed(self._parsed(df).select(*columns))]

    def _observed(self, rows: Any) -> Any:
        """``rows`` counted as they are written (one observation per compiled schema, summed by :meth:`counts`)."""
        from pyspark.sql import Observation

        observation = Observation(f"{self.observation_name}-{len(self.observations)}")
        self.observations.append(observation)
        return rows.observe(observation, self.F.count(self.F.lit(1)).alias("n"))

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
        self.cached = tagged.select(*source, *exacts, any_exact.alias(_EXACT), any_same.alias(_SAME), *values).persist(
            StorageLevel.MEMORY_AND_DISK
        )
        compiled = []
        for i, schema in enumerate(self.schemas):
            columns = [F.col(f"{_VALUE}{i}_{name}").alias(name) for name in schema.value.columns]
            compiled.append(self._observed(self.cached.where(F.col(f"{_EXACT}{i}")).select(*columns)))
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
        halves = [out.select("*", *self._no_values(), *self._known(known, typed)) for out, known in python]
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
        fields = [
            field for field in python.schema.fields if field.name not in names and field.name != TYPE_KNOWN_COLUMN
        ]
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
            union = union.unionByName(rows.select(*record, *values, *self._known(True, typed)))
        return union

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
        n = 0
        for i, observation in enumerate(self.observations):
            observed = observed_sums(observation, wait_s=_OBSERVATION_WAIT_S)
            if not observed:
                log.warning("compiled records of schema %d were written uncounted: Spark reported no count", i)
            n += int(observed["n"]) if observed else 0
        self.observations = []
        return BatchCounts(read=n, written=n, output_rows=n)
