"""Per-configuration column loops, compiled once at configure time.

On the hot path the cost of a schemaless SMT is its Python loop: a generic
loop that walks the configured field names costs two to three times a loop
with those names written out.  So the hot SMTs describe their per-row work as
a few lines of Python over ``value`` (the input map) and ``u`` (the map to
update), with every configured name embedded as a ``repr`` literal (never as
code), and this module wraps them in one loop over the batch column and
compiles it, once, the way ``dataclasses`` and ``namedtuple`` build their
methods.  The loops run with the cyclic garbage collector paused (see
:func:`gc_paused`).

Each loop is compiled twice.  The copying form updates a copy of each map
(``u = value.copy()``) and leaves the input alone.  The in-place form
updates the maps themselves (``u is value``); :func:`run_map_loop` uses it
only when the batch owns the column (see :mod:`smt.batch`), which is the case
when an earlier converter or map transform of the same chain made those maps.
Either way the output column is owned, so a run of map transforms copies each
value at most once.  For the in-place form to leave a failing row untouched,
body lines must compute everything that can raise before the first change to
``u`` (the row's error then shows the map as this transform received it).

The generator is part of the core, not of the transforms, because the chain
(:mod:`smt.chain`) fuses the loops of consecutive transforms into one
(:func:`compile_fused_loop`); :func:`finish_column` makes the output batch
of any hand-written column loop.
"""

from __future__ import annotations

import dataclasses
import hashlib
import linecache
from typing import Any, Callable, Sequence

from smt.batch import RecordBatch
from smt.gc_pause import gc_paused

__all__ = [
    "LoopSource",
    "MapLoopPlan",
    "compile_fused_loop",
    "compile_map_loop",
    "finish_column",
    "literal",
    "run_map_loop",
]


@dataclasses.dataclass(frozen=True)
class LoopSource:
    """A loop body as :func:`compile_map_loop` takes it: lines, the names they use, row columns read."""

    body: Sequence[str]
    namespace: dict[str, Any]
    columns: Sequence[str] = ()


@dataclasses.dataclass
class MapLoopPlan:
    """How a transform runs on one batch as a compiled map loop, so a chain can fuse it with its neighbours.

    ``source(prefix)`` gives the transform's :class:`LoopSource` with every
    namespace and column name starting with ``prefix`` (so bodies of several
    transforms can share one loop); ``columns`` are the row columns' values
    for this batch, in ``source().columns`` order; ``fallback`` is the loop's
    fallback for non-map rows.
    """

    part: str
    source: Callable[[str], LoopSource]
    columns: Sequence[Sequence[Any]]
    fallback: Callable[[Any, int], Any]


_COPYING = """\
def {name}(values, {columns}fail, fallback):
    with gc_paused():
        return _{name}(values, {columns}fail, fallback)


def _{name}(values, {columns}fail, fallback):
    out = []
    append = out.append
    failed = []
    for row, {row_vars} in enumerate({iterable}):
        try:
            if value.__class__ is dict:
                u = value.copy()
{body}
            elif value is None:
                u = None
            else:
                u = fallback(value, row)
        except Exception as exc:  # attributed to its row
            fail(row, exc)
            failed.append(row)
            u = None
        append(u)
    return out, failed
"""

_IN_PLACE = """\
def {name}_in_place(values, {columns}fail, fallback):
    with gc_paused():
        return _{name}_in_place(values, {columns}fail, fallback)


def _{name}_in_place(values, {columns}fail, fallback):
    failed = []
    for row, {row_vars} in enumerate({iterable}):
        if value.__class__ is dict:
            try:
                u = value
{body}
            except Exception as exc:  # attributed to its row, left as it was
                fail(row, exc)
                failed.append(row)
        elif value is not None:
            try:
                values[row] = fallback(value, row)
            except Exception as exc:  # attributed to its row
                fail(row, exc)
                failed.append(row)
    return failed
"""


def literal(value: Any) -> str:
    """``value`` as Python source; only plain data (str, int, float, bool, None) is accepted."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return repr(value)
    raise TypeError(f"cannot embed {type(value).__name__} in generated code")


def compile_map_loop(
    name: str,
    body: Sequence[str],
    namespace: dict[str, Any],
    columns: Sequence[str] = (),
) -> Callable[..., tuple[list, list[int]]]:
    """A function ``(values, *columns, fail, fallback) -> (out, failed rows)``.

    ``body`` lines run for each map ``value`` and update its copy ``u``; they may
    read the row's ``columns`` by name and anything in ``namespace``.  Rows
    whose value is None stay None; other non-map values go to
    ``fallback(value, row)``, which returns a new value (never one shared with
    another row) or raises.  A row that raises is passed to ``fail(row, exc)``
    and listed in the failed rows.

    The function's ``in_place`` attribute is the in-place form,
    ``(values, *columns, fail, fallback) -> failed rows``: it updates the maps
    of ``values`` and replaces non-map rows in the list itself; failed rows
    keep their value, unchanged.
    """
    indent = " " * 16
    fields = dict(
        name=name,
        columns="".join(f"{c}_column, " for c in columns),
        row_vars=f"({', '.join(['value', *columns])})" if columns else "value",
        iterable=f"zip(values, {', '.join(f'{c}_column' for c in columns)})" if columns else "values",
        body="\n".join(indent + line for line in body) if body else indent + "pass",
    )
    function = _compile(name, _COPYING.format(**fields), namespace)
    function.in_place = _compile(f"{name}_in_place", _IN_PLACE.format(**fields), namespace)
    return function


def _compile(name: str, source: str, namespace: dict[str, Any]) -> Callable[..., Any]:
    filename = _register_source(name, source)
    scope = dict(namespace, gc_paused=gc_paused)
    exec(compile(source, filename, "exec"), scope)  # noqa: S102 - literals only, see literal()
    function = scope[name]
    function.source = source
    return function


def _register_source(name: str, source: str) -> str:
    """A file name for ``source``, registered with :mod:`linecache` so tracebacks and pdb show its lines.

    The name carries a digest of the source: two configurations of one transform
    compile different loops, and each traceback must show its own.  ``linecache``
    keeps entries without a modification time (ours) through ``checkcache``.
    """
    digest = hashlib.sha1(source.encode("utf-8")).hexdigest()[:12]
    filename = f"<smt.codegen {name} {digest}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    return filename


def finish_column(batch: RecordBatch, column: str, out: list, failed: list[int], owned: bool = False) -> RecordBatch:
    """The output batch of a hand-written column loop: ``out`` replaces ``column``, ``failed`` rows go.

    The input batch is left as it was (the chain may still hold it).
    ``owned=True``: every map in ``out`` is new and in one row only (see :mod:`smt.batch`).
    """
    result = batch.with_columns(**{column: out})
    if owned:
        result.set_column(column, out, owned=True)
    return result.without_rows(failed)


def run_map_loop(loop, batch, column: str, columns: Sequence[Any], errors, fallback):
    """Run a compiled loop over ``batch``'s ``column``; the output batch owns the new column.

    The maps are updated in place when ``batch`` owns the column, else copied.
    """
    values = batch.column(column)
    if batch.owns(column):
        failed = loop.in_place(values, *columns, errors.fail, fallback)
        return finish_column(batch, column, values, failed, owned=True)
    out, failed = loop(values, *columns, errors.fail, fallback)
    return finish_column(batch, column, out, failed, owned=True)


_FUSED = """\
def {name}(values, {columns}fails, fallbacks):
    with gc_paused():
        return _{name}(values, {columns}fails, fallbacks)


def _{name}(values, {columns}fails, fallbacks):
    failed = []
    for row, {row_vars} in enumerate({iterable}):
        if value.__class__ is dict:
            stage = 0
            try:
                u = value
{body}
            except Exception as exc:  # attributed to its row and stage
                fails[stage](row, exc)
                failed.append(row)
        elif value is not None:
            stage = 0
            try:
                for stage, fallback in enumerate(fallbacks):
                    if value is not None:
                        value = fallback(value, row)
                values[row] = value
            except Exception as exc:  # attributed to its row and stage
                fails[stage](row, exc)
                failed.append(row)
    return failed
"""


def compile_fused_loop(name: str, sources: Sequence[LoopSource]) -> Callable[..., list[int]]:
    """One in-place loop running several transforms' bodies on each map, in order.

    The function is ``(values, *columns, fails, fallbacks) -> failed rows``,
    with the columns of every source in order, one ``fail(row, exc)`` and one
    fallback per source.  It updates an owned column as the in-place form of
    :func:`compile_map_loop` does; a row that fails in body ``k`` is reported
    to ``fails[k]`` (the earlier bodies' changes are that stage's input) and
    runs no further body.  Non-map rows go through the fallbacks in turn.
    Sources must use distinct names (see :class:`MapLoopPlan`).
    """
    indent = " " * 16
    lines: list[str] = []
    namespace: dict[str, Any] = {}
    columns: list[str] = []
    for index, source in enumerate(sources):
        lines.append(f"stage = {index}")
        lines.extend(source.body or ["pass"])
        namespace.update(source.namespace)
        columns.extend(source.columns)
    fields = dict(
        name=name,
        columns="".join(f"{c}_column, " for c in columns),
        row_vars=f"({', '.join(['value', *columns])})" if columns else "value",
        iterable=f"zip(values, {', '.join(f'{c}_column' for c in columns)})" if columns else "values",
        body="\n".join(indent + line for line in lines),
    )
    return _compile(name, _FUSED.format(**fields), namespace)
