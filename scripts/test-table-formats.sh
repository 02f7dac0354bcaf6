#!/usr/bin/env bash
# Delta Lake and Apache Iceberg publish no release for the newest PySpark yet (see
# connectors/table/jars.py): on it, their table-sink tests check the refusal only.  This runs them
# for real on the newest PySpark both support, in a venv of its own (.venv-pyspark-VERSION), with
# the jars `smt local fetch` picks for that Spark.  CI runs it after ./test.sh.
# Extra arguments go to pytest.  SMT_TABLE_PYSPARK_VERSION picks another PySpark.
set -euo pipefail
cd "$(dirname "$0")/.."
export SMT_PYSPARK_VERSION=${SMT_TABLE_PYSPARK_VERSION:-4.1.1}
exec bash scripts/test-oldest-pyspark.sh tests/connectors/table tests/examples/test_tables.py -k "delta or iceberg" "$@"
