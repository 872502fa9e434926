#!/usr/bin/env bash
# The whole test suite: lint, format, types, layer contracts, then pytest.
# Any failure fails the run; a pytest run that collects no tests fails too.
set -euo pipefail
cd "$(dirname "$0")/.."
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}

echo "== ruff check";  .venv/bin/ruff check .
echo "== ruff format"; .venv/bin/ruff format --check .
echo "== mypy";        .venv/bin/mypy
echo "== import-linter"; .venv/bin/lint-imports
echo "== samples"; .venv/bin/modeller validate samples/*.modeller.json && .venv/bin/modeller fmt --check samples/*.modeller.json
echo "== pytest"
status=0
.venv/bin/python -m pytest -n 2 -p no:cacheprovider "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "check: pytest collected no tests" >&2
  exit 1
fi
exit "$status"
