"""The import rule, declared once: layers point down, private modules stay private, no cycles.

- The core (``smt/`` less the top below: record, config, chain, batch, errors,
  the plugin interfaces, sources and sinks included) imports nothing from
  ``converters/``, ``connectors/`` or ``host_functions/``, nor from the top.
- ``converters/``, ``connectors/`` and ``host_functions/`` import the core and
  their own modules only: not each other, not the top.
- The top (:data:`TOP_LAYER`: the pipeline runner, the Spark-session API, the
  CLI and its commands, the generated reference, benchmarks, local dev tools,
  the pytest plugin) may import all.
- A private module (``pkg/_name.py``) is imported only from inside ``pkg``.
- No module imports, through any chain of imports, a module that imports it
  back: a module that needs what a higher one has gets it passed in, or the
  shared part moves to a module below both.

Every import counts, at module level, inside a function or under
``TYPE_CHECKING``: a lazy import is still a dependency.  ``tests/test_layers.py``
reads the imports from the source with :mod:`ast` and fails naming the line
that breaks the rule (for a cycle, the line of each import around it).
"""

__all__ = ["TOP_LAYER"]

#: The modules and packages of ``smt/`` that sit on top of everything and may import all.
TOP_LAYER = (
    "smt.__main__",
    "smt.benchmarks",
    "smt.cli",
    "smt.commands",
    "smt.local",
    "smt.pipeline",
    "smt.reference",  # documents every key, the pipeline's included
    "smt.spark",
    "smt.testing",
)
