"""The app starts with the Qt-free layers loaded before PySide6, whose import hook then reads no source of theirs,
and keeps none of the source the hook read (modeller/ui/import_order.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .conftest import SAMPLES

# a fresh interpreter (pytest has imported PySide6 long ago): record every module whose source is read
# through inspect.getsource (what shiboken's import hook calls), start the app as `modeller FILE
# --screenshot` does, then report those modules and what linecache still holds
START = r"""
import inspect, json, linecache, sys
read = []
getsource = inspect.getsource
def recording(obj):
    read.append(getattr(obj, "__name__", "?"))
    return getsource(obj)
inspect.getsource = recording
from modeller.ui.app import main
code = main([sys.argv[1], "--screenshot", sys.argv[2], "--size", "800x600"])
print(json.dumps({"code": code, "read": read, "cached": sorted(linecache.cache)}))
"""


def test_the_app_loads_model_and_engine_before_qt_and_keeps_no_read_source(tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    done = subprocess.run(
        [sys.executable, "-c", START, str(SAMPLES / "blog.modeller.json"), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, QT_QPA_PLATFORM="offscreen"),
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0 and out.exists()
    read = report["read"]
    assert any(name.startswith("modeller.ui.") for name in read), "the hook was not seen at all: the test is blind"
    # the hook sees each import statement run after PySide6: a module some later import names is still read, but
    # the rule catalog and the loader's stages are imported only through the engine and the loader, before Qt
    early = [name for name in read if name.startswith(("modeller.rules.catalog", "modeller.persistence.load"))]
    assert early == [], f"imported after PySide6, so its source was read: {early}"
    # what the window imported was let go once it stood (the screenshot then imports the exporters anew)
    kept = [path for path in report["cached"] if "/modeller/ui/" in path]
    assert kept == [], "source lines kept after the start"
