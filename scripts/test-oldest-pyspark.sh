#!/usr/bin/env bash
# Runs the test suite against the oldest PySpark the project supports (4.0.0,
# the lower bound of the range in pyproject.toml), in a venv of its own
# (.venv-pyspark-4.0.0), so .venv keeps the newest.  CI runs ./test.sh (newest
# PySpark 4.1.x); run this before changing what the code asks of Spark.
# Extra arguments go to pytest (scripts/test-oldest-pyspark.sh tests/smt/spark).
# Set SMT_PYSPARK_VERSION to test another release.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${SMT_PYSPARK_VERSION:-4.0.0}
venv=".venv-pyspark-$version"
python=${PYTHON:-python3}
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q -e ".[test]"
# The test extra's delta-spark asks for 4.0.1 or later; this lane overrides it on purpose (Delta's tests then
# refuse or skip as the jars table says).
"$venv/bin/python" -m pip install -q "pyspark[connect]==$version" 2>&1 | grep -v "dependency conflicts\|requires pyspark" >&2 || true
bash scripts/install-guest-toolchains.sh "$venv/bin/python"
# Spark's Kafka connector for this PySpark (the broker's jars are shared).
"$venv/bin/python" -m smt local fetch
exec "$venv/bin/python" -m pytest -p no:cacheprovider "$@"
