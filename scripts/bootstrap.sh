#!/usr/bin/env bash
# Set up everything Modeller needs on a fresh Debian/Ubuntu machine:
# system libraries for Qt, Graphviz, Node.js (for checking generated mongosh
# scripts), a virtualenv in .venv with the package, its GUI and test extras, and
# the npm packages the exporter tests use. Safe to run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

need() { dpkg -s "$1" >/dev/null 2>&1 || missing+=("$1"); }
missing=()
# Qt offscreen + a real X11 window (xcb), fonts, Graphviz for diagrams and auto-layout
for pkg in libgl1 libegl1 libglib2.0-0 libfontconfig1 libxkbcommon0 libdbus-1-3 libxkbcommon-x11-0 \
           libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-shape0 \
           fonts-dejavu-core graphviz; do
  need "$pkg"
done
command -v node >/dev/null 2>&1 || need nodejs
command -v npm >/dev/null 2>&1 || need npm
python3 -c "import venv, ensurepip" 2>/dev/null || need python3-venv
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "bootstrap: installing system packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "bootstrap: please install these system packages first: ${missing[*]}" >&2
    echo "           sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv"
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[gui,test]'

if [ -f scripts/setup-node-deps.sh ]; then
  bash scripts/setup-node-deps.sh
fi
bash scripts/setup-mongo-server.sh
echo "bootstrap: ready (.venv/bin/modeller --help)"
