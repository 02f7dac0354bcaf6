#!/usr/bin/env bash
# Installs PostgreSQL's server binaries (initdb, pg_ctl) for the table sink's JDBC tests, which
# start a server of their own on 127.0.0.1; they fail, saying so, on a machine without them.
# Nothing to do when initdb is already there (on PATH or in Debian's /usr/lib/postgresql/*/bin).
set -euo pipefail
if command -v initdb >/dev/null 2>&1 || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "install-postgresql: installing PostgreSQL with apt-get" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
else
  echo "warning: PostgreSQL (initdb, pg_ctl) is not installed; the JDBC tests will fail (apt-get install postgresql)" >&2
fi
