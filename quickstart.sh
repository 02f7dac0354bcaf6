#!/usr/bin/env bash
# Sets up the project and runs the example pipeline on local Spark, files in and out.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup-venv.sh
pipeline=examples/quickstart/quickstart.properties
.venv/bin/smt run "$pipeline"
echo
echo "Output (examples/quickstart/out):"
cat examples/quickstart/out/part-* 2>/dev/null | head -20
