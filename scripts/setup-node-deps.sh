#!/usr/bin/env bash
# Install the npm packages the exporter tests need (the `bson` package gives the
# JS harness ObjectId/ISODate/NumberDecimal/NumberLong/UUID and the types of the
# generated models.ts; `typescript` type-checks models.ts; `mongosh` runs the
# generated setup and migration scripts against the live tests' server, about
# 150 MB and 35 s the first time) into .cache/node inside the repository.
# Idempotent and quick: does nothing when the pinned versions are already there.
# CI calls this before pytest.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="$ROOT/.cache/node"
BSON_VERSION="6.10.4"
# 5.x: plain JavaScript; 7.x ships tsc as a per-platform native binary
TYPESCRIPT_VERSION="5.9.3"
MONGOSH_VERSION="2.12.0"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "setup-node-deps: node and npm are required (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi

version_of() {
  node -e "try{console.log(require('$PREFIX/node_modules/$1/package.json').version)}catch(e){}" 2>/dev/null || true
}
WANTED="bson $BSON_VERSION, typescript $TYPESCRIPT_VERSION and mongosh $MONGOSH_VERSION"
if [ "$(version_of bson)" = "$BSON_VERSION" ] && [ "$(version_of typescript)" = "$TYPESCRIPT_VERSION" ] \
   && [ "$(version_of mongosh)" = "$MONGOSH_VERSION" ] && [ -x "$PREFIX/node_modules/.bin/mongosh" ]; then
  echo "setup-node-deps: $WANTED already in $PREFIX/node_modules"
  exit 0
fi

mkdir -p "$PREFIX"
if [ ! -f "$PREFIX/package.json" ]; then
  printf '{\n  "name": "modeller-test-node-deps",\n  "private": true\n}\n' > "$PREFIX/package.json"
fi
npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error --save-exact \
  "bson@$BSON_VERSION" "typescript@$TYPESCRIPT_VERSION" "mongosh@$MONGOSH_VERSION"
echo "setup-node-deps: installed $WANTED into $PREFIX/node_modules"
