"""Local services for development and tests: Java artifacts from Maven, a Kafka broker.

:mod:`smt.local.maven` resolves and caches jars; :mod:`smt.local.kafka` runs
a single-node broker; :mod:`smt.local.cli` is ``smt local ...``.
"""
