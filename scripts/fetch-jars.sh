#!/usr/bin/env bash
# Fetches the Java artifacts the project uses from Maven Central into the
# user's cache (${SMT_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/spark-smt}):
# the Kafka broker behind `smt local kafka`, Spark's Kafka connector, the table sink's
# Delta, Iceberg and PostgreSQL JDBC jars, and Kafka
# Connect's classes (the test suite's oracle).
# A second run finds everything cached and does not touch the network.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v mvn >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "fetch-jars: installing Maven with apt-get" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven >/dev/null
  else
    echo "error: Maven (mvn) is required to fetch the Kafka jars; install it (apt-get install maven)" >&2
    exit 1
  fi
fi
python=.venv/bin/python
[ -x "$python" ] || python=${PYTHON:-python3}
exec "$python" -m smt local fetch
