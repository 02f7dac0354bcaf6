#!/usr/bin/env bash
# Creates .venv (if missing) and installs the project with the given extras.
# Usage: scripts/setup-venv.sh [EXTRAS]   e.g. scripts/setup-venv.sh test
# pip's output is shown only when it fails (SMT_SETUP_VERBOSE=1 shows it always).
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
log=$(mktemp "${TMPDIR:-/tmp}/spark-smt-setup.XXXXXX")
trap 'rm -f "$log"' EXIT
quietly() {
  if [ -n "${SMT_SETUP_VERBOSE:-}" ]; then
    "$@"
  elif ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "error: failed: $*" >&2
    exit 1
  fi
}
export PIP_DISABLE_PIP_VERSION_CHECK=1
[ -x .venv/bin/python ] || quietly "$python" -m venv .venv
spec="."
[ -n "${1:-}" ] && spec=".[$1]"
quietly .venv/bin/python -m pip install --upgrade pip
echo "installing spark-smt${1:+ [$1]} into .venv ..."
quietly .venv/bin/python -m pip install -e "$spec"
