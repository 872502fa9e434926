#!/usr/bin/env bash
# The other schema-inference tools benchmarks/bench_infer.py compares with, installed the way
# setup-node-deps.sh installs the test's npm packages: MongoDB's `mongodb-schema` (Compass's
# inference) into .cache/node, the Python `pymongo-schema` into its own venv .cache/bench-venv
# (its pinned dependencies stay out of .venv). Only the benchmark needs them; CI does not run this.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="$ROOT/.cache/node"
VENV="$ROOT/.cache/bench-venv"
MONGODB_SCHEMA_VERSION="12.7.0"
PYMONGO_SCHEMA_VERSION="0.4.2"

version_of() {
  node -e "try{console.log(require('$PREFIX/node_modules/$1/package.json').version)}catch(e){}" 2>/dev/null || true
}
if [ "$(version_of mongodb-schema)" != "$MONGODB_SCHEMA_VERSION" ]; then
  mkdir -p "$PREFIX"
  if [ ! -f "$PREFIX/package.json" ]; then
    printf '{\n  "name": "modeller-test-node-deps",\n  "private": true\n}\n' > "$PREFIX/package.json"
  fi
  npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error --save-exact \
    "mongodb-schema@$MONGODB_SCHEMA_VERSION"
fi
if ! "$VENV/bin/python" -c "import pymongo_schema" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q "pymongo-schema==$PYMONGO_SCHEMA_VERSION"
fi
echo "setup-bench-deps: mongodb-schema $MONGODB_SCHEMA_VERSION in $PREFIX/node_modules, pymongo-schema in $VENV"
