"""The fast path's dispatch shim: the module a guest's ``env`` imports resolve to.

Each of its exported functions only does ``call_indirect`` through the shim's
table, in :data:`host_functions.kafka_connect.layout.FAST_FUNCTIONS` order; the adapter's
element segment fills that table with the adapter's implementations when the
adapter is instantiated (see ``ADAPTER.md``).  One shim serves every guest.
"""

from __future__ import annotations

import functools

from host_functions.kafka_connect.layout import FAST_FUNCTIONS
from host_functions.runtime.host_modules import SHIM_MODULE_NAME

__all__ = ["shim_wat"]


def _type_name(params: tuple[str, ...], results: tuple[str, ...]) -> str:
    return "$t_" + "".join(params) + "_" + "".join(results)


def _func_type(params: tuple[str, ...], results: tuple[str, ...]) -> str:
    p = f" (param {' '.join(params)})" if params else ""
    r = f" (result {' '.join(results)})" if results else ""
    return f"(type {_type_name(params, results)} (func{p}{r}))"


def _types() -> str:
    seen = {}
    for f in FAST_FUNCTIONS:
        seen.setdefault(_type_name(f.params, f.results), _func_type(f.params, f.results))
    return "\n  ".join(seen.values())


@functools.lru_cache(maxsize=1)
def shim_wat() -> str:
    """The dispatch shim: one exported function per fast host function."""
    funcs = []
    for index, f in enumerate(FAST_FUNCTIONS):
        params = f" (param {' '.join(f.params)})" if f.params else ""
        results = f" (result {' '.join(f.results)})" if f.results else ""
        args = " ".join(f"(local.get {i})" for i in range(len(f.params)))
        funcs.append(
            f'(func (export "{f.name}"){params}{results}\n'
            f"    (call_indirect (type {_type_name(f.params, f.results)}) {args} (i32.const {index})))"
        )
    return (
        f"(module ${SHIM_MODULE_NAME}\n  "
        + _types()
        + f'\n  (table (export "table") {len(FAST_FUNCTIONS)} funcref)\n  '
        + "\n  ".join(funcs)
        + "\n)"
    )
