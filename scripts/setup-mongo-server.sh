#!/usr/bin/env bash
# The live-database tests (tests/live) need a MongoDB wire-protocol server.
# mongoeco[wire] is one, written in Python >= 3.13; the project runs on 3.11,
# so it gets its own small venv, .venv-mongo. Python 3.13 comes from
# $PYTHON313, python3.13 on PATH, or pyenv (installed with pyenv where missing).
# Safe to run again. Without the `wire` extra the server drops every connection.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=3.13.0

if .venv-mongo/bin/python -c "import mongoeco.wire" >/dev/null 2>&1; then
  exit 0
fi
# the first candidate that really is Python >= 3.13 (a pyenv shim named python3.13 may exist and refuse to run)
works() { [ -n "$1" ] && "$1" -c "import sys; assert sys.version_info >= (3, 13)" >/dev/null 2>&1; }
py=""
for candidate in "${PYTHON313:-}" "$(command -v python3.13 || true)"; do
  if works "$candidate"; then py=$candidate; break; fi
done
if [ -z "$py" ] && command -v pyenv >/dev/null 2>&1; then
  if ! pyenv prefix "$VERSION" >/dev/null 2>&1; then
    echo "setup-mongo-server: installing Python $VERSION with pyenv (a few minutes)"
    pyenv install -s "$VERSION" >/dev/null || true
  fi
  if pyenv prefix "$VERSION" >/dev/null 2>&1; then
    py="$(pyenv prefix "$VERSION")/bin/python3.13"
  fi
fi
if [ -z "$py" ] || ! "$py" -c "import sys; assert sys.version_info >= (3, 13)" >/dev/null 2>&1; then
  echo "setup-mongo-server: no Python >= 3.13 found; the live tests (tests/live) will fail until there is one:" >&2
  echo "    pyenv install $VERSION   (or set PYTHON313=/path/to/python3.13), then run scripts/bootstrap.sh again" >&2
  exit 0
fi
echo "setup-mongo-server: creating .venv-mongo with mongoeco[wire]"
rm -rf .venv-mongo
"$py" -m venv .venv-mongo
.venv-mongo/bin/python -m pip install -q 'mongoeco[wire]==4.11.0'  # tests/live/mongoeco_extras.py uses its internals
