#!/usr/bin/env bash
# Fetches the Java artifacts the project uses from Maven Central into the
# user's cache (${SMT_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/spark-smt}):
# the Kafka broker behind `smt local kafka`, Spark's Kafka connector, the table sink's
# Delta, Iceberg and PostgreSQL JDBC jars, Kafka
# Connect's classes (the test suite's oracle) and Debezium's PostgreSQL connector (its worker), then Debezium's transforms on
# them (the Debezium oracle's classpath, tests/oracle/_jvm.py DEBEZIUM_BUNDLE).
# A second run finds everything cached and does not touch the network.
set -euo pipefail
cd "$(dirname "$0")/.."
# Resolution runs Apache Ivy (PySpark's own jar) on Java: no Maven needed.
if ! command -v java >/dev/null 2>&1; then
  echo "error: Java (java) is required to fetch the jars; install a JDK 17 or later" >&2
  exit 1
fi
python=.venv/bin/python
[ -x "$python" ] || python=${PYTHON:-python3}
"$python" -m smt local fetch
exec "$python" -c '
import time
from smt import maven
from tests.oracle._jvm import DEBEZIUM_BUNDLE
started = time.monotonic()
jars = maven.resolve(DEBEZIUM_BUNDLE)
print(f"{DEBEZIUM_BUNDLE.name}: {len(jars)} jars ({time.monotonic() - started:.1f} s)")
'
