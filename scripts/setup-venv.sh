#!/usr/bin/env bash
# Creates .venv (if missing) and installs the project with the given extras.
# Usage: scripts/setup-venv.sh [EXTRAS]   e.g. scripts/setup-venv.sh test
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "error: Python 3.11 or newer is required ($("$python" --version 2>&1))" >&2
  exit 1
fi
if ! command -v java >/dev/null 2>&1; then
  echo "error: Java 17 or newer is required for Spark (java not found on PATH)" >&2
  exit 1
fi
[ -x .venv/bin/python ] || "$python" -m venv .venv
spec="."
[ -n "${1:-}" ] && spec=".[$1]"
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e "$spec"
