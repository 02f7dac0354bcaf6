"""Local services for development and tests: a Kafka broker and its tools.

:mod:`smt.local.kafka` runs a single-node broker with the jars
:mod:`smt.maven` resolves (the core module the Kafka connector uses too);
:mod:`smt.local.cli` is ``smt local ...``.
"""
