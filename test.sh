#!/usr/bin/env bash
# Sets up everything the tests need (Python packages, Wasm guest toolchains,
# Kafka and Spark connector jars from Maven Central) and runs the whole suite.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup-venv.sh test
for step in scripts/install-guest-toolchains.sh scripts/fetch-jars.sh; do
  if [ -x "$step" ]; then "$step"; fi
done
exec .venv/bin/python -m pytest "$@"
