"""Per-configuration column loops, compiled once at configure time.

On the hot path the cost of a schemaless SMT is its Python loop: a generic
loop that walks the configured field names costs two to three times a loop
with those names written out.  So the hot SMTs describe their per-row work as
a few lines of Python over ``value`` (the input map) and ``u`` (its copy),
with every configured name embedded as a ``repr`` literal (never as code),
and this module wraps them in one loop over the batch column and compiles it,
once, the way ``dataclasses`` and ``namedtuple`` build their methods.  The
loops run with the cyclic garbage collector paused (see :func:`gc_paused`).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from smt._gc import gc_paused

__all__ = ["compile_map_loop", "literal"]


_TEMPLATE = '''\
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
'''


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
    ``fallback(value, row)``, which returns the new value or raises.  A row that
    raises is passed to ``fail(row, exc)`` and listed in the failed rows.
    """
    indent = " " * 16
    source = _TEMPLATE.format(
        name=name,
        columns="".join(f"{c}_column, " for c in columns),
        row_vars=f"({', '.join(['value', *columns])})" if columns else "value",
        iterable=f"zip(values, {', '.join(f'{c}_column' for c in columns)})" if columns else "values",
        body="\n".join(indent + line for line in body) if body else indent + "pass",
    )
    scope = dict(namespace, gc_paused=gc_paused)
    exec(compile(source, f"<smt.transforms {name}>", "exec"), scope)  # noqa: S102 - literals only, see literal()
    function = scope[name]
    function.source = source
    return function
