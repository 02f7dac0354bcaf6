"""Which implementations ("paths") a stage has, read from its class, and which of them the harness drives.

A path is a hook a stage class defines over its base class: a transform's
``apply`` (per record), ``apply_batch`` (whole columns), ``map_loop_plan``
(the generated loop of :mod:`smt.codegen`), ``compile_value`` (Spark SQL,
:mod:`smt.compiled`) and ``compile_record`` (Spark SQL over whole records); a predicate's ``test``,
``test_batch`` and ``compile_test``; a
converter's ``to_connect_data``/``from_connect_data``, its ``*_batch`` and
``*_column`` forms, ``compiled_reader`` and ``compiled_record_codec`` (Spark SQL over whole records).

A new path cannot hide: any public method a stage defines whose name looks
like a path (``apply…``, ``test…``, ``compile…``, ``to_connect…``,
``from_connect…``, ``…_batch``, ``…_column``, ``…_loop…``, ``…_plan``,
``…_reader``, ``…_writer``, ``…_compiled``) and is neither a known path hook
nor listed in :data:`NOT_PATHS` (with the reason it is not one) is reported
by :func:`undriven_paths`, which the harness's own test runs over every
registered built-in.
"""

from __future__ import annotations

import re

from smt.converter import Converter
from smt.transform import Predicate, Transform

__all__ = ["BASES", "DRIVEN", "NOT_PATHS", "PATH_HOOKS", "declared_paths", "undriven_paths"]

#: Kind -> its base class, whose hooks are the default (per record) implementation.
BASES = {"transform": Transform, "predicate": Predicate, "converter": Converter}

#: Kind -> path -> the hooks that implement it.  A class declares a path when it overrides one of them.
PATH_HOOKS: dict[str, dict[str, tuple[str, ...]]] = {
    "transform": {
        "record": ("apply",),
        "batch": ("apply_batch",),
        "map_loop": ("map_loop_plan",),
        "compiled": ("compile_value",),
        "compiled_record": ("compile_record",),
    },
    "predicate": {"record": ("test",), "batch": ("test_batch",), "compiled_record": ("compile_test",)},
    "converter": {
        "record": ("to_connect_data", "from_connect_data"),
        "batch": ("to_connect_batch", "from_connect_batch", "from_connect_column"),
        "compiled": ("compiled_reader",),
        "compiled_record": ("compiled_record_codec",),
    },
}

#: Kind -> the paths the harness drives (tests/parity/_drivers.py, test_compiled_parity.py and, over whole
#: records, test_compiled_record_parity.py and test_compiled_object_parity.py).
DRIVEN: dict[str, frozenset[str]] = {
    "transform": frozenset({"record", "batch", "map_loop", "compiled", "compiled_record"}),
    "predicate": frozenset({"record", "batch", "compiled_record"}),
    "converter": frozenset({"record", "batch", "compiled", "compiled_record"}),
}

#: Methods whose names look like paths but are parts of one, with the reason.
NOT_PATHS = {
    "apply_null": "the per-record path's tombstone branch (Key/Value variants), reached through apply",
    "apply_schemaless": "the per-record path's map branch, reached through apply and the batch fallbacks",
    "apply_with_schema": "the per-record path's struct branch, reached through apply",
    "apply_to_part_columns": "the batch path's struct branch, reached through apply_batch",
    "schemaless_batch": "a question apply_batch asks (is every row schemaless?), not an implementation",
    "to_connect_header": "the header role, with its own semantics (checked by the oracle), not another path",
    "from_connect_header": "the header role, with its own semantics (checked by the oracle), not another path",
    "compiled_form": "a declaration for the reference (what the compiled path covers), not an implementation",
    "compile_tombstone": "the compiled path's one answer for every tombstone, checked against apply in "
    "test_compiled_debezium_parity.py, not a path over columns",
}

_PATH_LIKE = re.compile(
    r"^(apply|test|compile|to_connect|from_connect)|_(batch|column|plan|reader|writer|compiled)$|_loop"
)


def _overrides(cls: type, base: type, name: str) -> bool:
    return callable(getattr(cls, name, None)) and getattr(cls, name) is not getattr(base, name, None)


def declared_paths(cls: type, kind: str) -> frozenset[str]:
    """The paths ``cls`` (a stage of ``kind``) has: ``record`` always, the others where it overrides a hook."""
    base = BASES[kind]
    hooks = PATH_HOOKS[kind]
    return frozenset(
        path for path, names in hooks.items() if path == "record" or any(_overrides(cls, base, n) for n in names)
    )


def undriven_paths(cls: type, kind: str) -> list[str]:
    """What the harness would miss in ``cls``: declared paths it does not drive, and path-like methods it
    knows nothing of (each a sentence naming the method)."""
    base = BASES[kind]
    known = {name for names in PATH_HOOKS[kind].values() for name in names}
    problems = [
        f"{cls.__name__}: path '{path}' is not driven by the parity harness"
        for path in sorted(declared_paths(cls, kind) - DRIVEN[kind])
    ]
    for name in sorted(dir(cls)):
        if name.startswith("_") or name in known or name in NOT_PATHS or not _overrides(cls, base, name):
            continue
        if _PATH_LIKE.search(name):
            problems.append(
                f"{cls.__name__}.{name} looks like another implementation of the stage: drive it in the parity "
                "harness (PATH_HOOKS, DRIVEN) or say in NOT_PATHS why it is not one"
            )
    return problems
