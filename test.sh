#!/usr/bin/env bash
# Sets up everything the tests need (Python packages, Wasm guest toolchains,
# Kafka and Spark connector jars from Maven Central) and runs the whole suite
# on the default install (PySpark 4.1.x: Delta and Iceberg run for real).
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup-venv.sh test
# C (clang + lld from apt), Zig (PyPI) and Go toolchains for the Wasm guests the tests build.
bash scripts/install-guest-toolchains.sh .venv/bin/python
# The Kafka broker, Spark's Kafka connector and the table formats' jars, from Maven Central into ~/.cache/spark-smt
# (Apache Ivy on Java: no Maven needed).
bash scripts/fetch-jars.sh
# PostgreSQL's server binaries for the table sink's JDBC tests (apt).
bash scripts/install-postgresql.sh
exec .venv/bin/python -m pytest "$@"
