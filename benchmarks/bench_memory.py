"""Where the resident memory goes after a large project opens in the GUI (issue 16 item 5).

``python -m benchmarks.bench_memory 10000`` (sizes as arguments, default 1000 and 10000; 10,000 takes about three minutes) opens a
generated project offscreen in a fresh child process per size and prints:

- RSS by phase: window shown, canvas built, findings on screen, and the same after a full
  collection plus ``malloc_trim`` (what the C heap keeps but no longer uses);
- a second child with ``tracemalloc`` on: the Python heap the open added, by area (project
  model, engine design and findings, canvas items, panels, Qt wrappers, pydantic) and the top
  source lines and files; the rest of the RSS is Qt's own C++ (items, scene index, pixmaps, fonts);
- the gc-tracked objects the open added, by type name;
- the RSS the canvas alone adds (a scene with every card, line and grid; no window, no analysis).

``run()`` gives ``benchmarks/run.py`` the RSS figures (``MODELLER_BENCH_MEMORY_SIZES``, default 1000), the
canvas's part among them.
No figure here is asserted in tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SIZES = (1000, 10000)
TARGETS = {1000: 300, 10000: 1024}  # RSS MiB (issue 16)
TOP = 10

#: source path fragment -> area of the breakdown (first match wins)
AREAS = (
    ("modeller/model/", "project model"),
    ("modeller/persistence/", "project model"),
    ("pydantic", "project model"),
    ("modeller/rules/physical/", "engine: design"),
    ("modeller/rules/", "engine: analysis, findings"),
    ("modeller/engine", "engine: analysis, findings"),
    ("modeller/ui/canvas/", "canvas items"),
    ("modeller/ui/panels/preview", "preview"),
    ("modeller/ui/panels/", "panels (findings model, forms)"),
    ("modeller/ui/commands/", "undo stack"),
    ("modeller/ui/", "ui other"),
    ("modeller/export/", "export/preview samples"),
    ("faker", "export/preview samples"),
    ("shiboken", "Qt wrappers"),
    ("PySide6", "Qt wrappers"),
    ("<frozen importlib", "imports (code)"),
    ("json/", "file text"),
)


def area_of(filename: str) -> str:
    path = filename.replace(os.sep, "/")
    return next((area for part, area in AREAS if part in path), "other")


def child(n: int, trace: bool) -> dict[str, Any]:
    """Open ``n`` entities; RSS by phase, or (``trace``) the Python heap the open added."""
    import gc
    import tempfile
    import time
    import tracemalloc

    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from benchmarks.generate import generate_project
    from benchmarks.gui_child import rss_mib
    from modeller.persistence import save_project
    from modeller.ui.main_window import MainWindow

    app = QApplication([])
    folder = Path(tempfile.mkdtemp())
    path = folder / "bench.modeller.json"
    save_project(generate_project(n, 1.5, 0.5, seed=0), path)
    gc.collect()
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, recovery_dir=folder / "recovery")
    window.resize(1600, 1000)
    window.show()
    app.processEvents()
    out: dict[str, Any] = {"n": n, "rss": {"window shown": rss_mib()}}
    built: list[float] = []
    arrived: list[float] = []
    window.scene.built.connect(lambda: built.append(rss_mib()))
    window.analysis.analysed.connect(lambda _a: (window.repaint(), arrived.append(rss_mib())))
    gc.collect()
    types_before = _types()
    if trace:
        tracemalloc.start(1)
        before = tracemalloc.take_snapshot()
    QTimer.singleShot(0, lambda: window.open_path(path, ask=False))
    deadline = time.perf_counter() + 900
    while not (built and arrived) and time.perf_counter() < deadline:
        app.processEvents()
        time.sleep(0.001)
    for _ in range(20):  # the findings' follow-ups (panels, markers, preview) run from the event loop
        app.processEvents()
    out["findings"] = len(window.analysis.latest.findings) if window.analysis.latest else 0
    out["items"] = len(window.scene.items())
    if trace:
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        out.update(_breakdown(before, after))
        gc.collect()
        out["types"] = _type_growth(types_before, _types())
        return out
    out["rss"]["canvas built"] = built[0] if built else float("nan")
    out["rss"]["findings on screen"] = arrived[0] if arrived else float("nan")
    out["rss"]["settled"] = rss_mib()
    gc.collect()
    out["rss"]["after gc.collect"] = rss_mib()
    out["rss"]["after malloc_trim"] = _trim()
    return out


def scene_child(n: int) -> dict[str, Any]:
    """RSS the canvas alone adds for ``n`` entities: every card, line and grid of a scene, no window, no analysis."""
    import gc

    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication

    from benchmarks.generate import generate_project
    from benchmarks.gui_child import rss_mib
    from modeller.ui.canvas.scene import CanvasScene
    from modeller.ui.document import ProjectDocument

    app = QApplication([])
    document = ProjectDocument(generate_project(n, 1.5, 0.5, seed=0))
    gc.collect()
    before = rss_mib()
    scene = CanvasScene(document)
    scene.finish_build()
    gc.collect()
    app.processEvents()
    return {"n": n, "canvas_scene": rss_mib() - before, "items": len(scene.items())}


def _trim() -> float:
    """RSS once glibc has handed its free pages back (the difference is freed but kept heap)."""
    import ctypes

    from benchmarks.gui_child import rss_mib

    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        return float("nan")
    return rss_mib()


def _types() -> dict[str, int]:
    import gc

    counts: dict[str, int] = {}
    for obj in gc.get_objects():
        name = type(obj).__qualname__
        module = type(obj).__module__
        key = name if module in ("builtins", None) else f"{module}.{name}"
        counts[key] = counts.get(key, 0) + 1
    return counts


def _type_growth(before: dict[str, int], after: dict[str, int]) -> list[tuple[str, int]]:
    grown = [(key, count - before.get(key, 0)) for key, count in after.items()]
    return sorted((g for g in grown if g[1] > 0), key=lambda g: -g[1])[: TOP * 2]


def _breakdown(before: Any, after: Any) -> dict[str, Any]:
    """The heap the open added, by area, by file and by line (MiB)."""
    import tracemalloc

    mib = 1024 * 1024
    by_file = after.compare_to(before, "filename")
    areas: dict[str, float] = {}
    for stat in by_file:
        name = stat.traceback[0].filename
        areas[area_of(name)] = areas.get(area_of(name), 0.0) + stat.size_diff / mib
    files = [
        (_short(s.traceback[0].filename), s.size_diff / mib, s.count_diff) for s in by_file[:TOP] if s.size_diff > 0
    ]
    lines = [
        (f"{_short(s.traceback[0].filename)}:{s.traceback[0].lineno}", s.size_diff / mib, s.count_diff)
        for s in after.compare_to(before, "lineno")[:TOP]
        if s.size_diff > 0
    ]
    ui_lines = [
        (f"{_short(s.traceback[0].filename)}:{s.traceback[0].lineno}", s.size_diff / mib, s.count_diff)
        for s in after.filter_traces([tracemalloc.Filter(True, "*/modeller/ui/*")]).compare_to(
            before.filter_traces([tracemalloc.Filter(True, "*/modeller/ui/*")]), "lineno"
        )[:TOP]
        if s.size_diff > 0
    ]
    return {
        "ui_lines": ui_lines,
        "traced_mib": sum(s.size_diff for s in by_file) / mib,
        "areas": sorted(areas.items(), key=lambda a: -a[1]),
        "files": files,
        "lines": lines,
    }


def _short(filename: str) -> str:
    path = filename.replace(os.sep, "/")
    for marker in ("/modeller/", "/site-packages/", "/lib/python"):
        if marker in path:
            return path.split(marker, 1)[1] if marker != "/modeller/" else "modeller/" + path.split(marker, 1)[1]
    return path


def measure(n: int, trace: bool, scene_only: bool = False) -> dict[str, Any]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    mode = ["--trace"] if trace else ["--scene"] if scene_only else []
    args = [sys.executable, "-m", "benchmarks.bench_memory", "--child", str(n), *mode]
    done = subprocess.run(args, capture_output=True, text=True, timeout=1800, env=env, cwd=ROOT, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"memory benchmark ({n}) failed ({done.returncode}): {done.stderr[-2000:]}")
    return dict(json.loads(lines[-1]))


def sizes(default: tuple[int, ...] = (1000,)) -> list[int]:
    raw = os.environ.get("MODELLER_BENCH_MEMORY_SIZES", "")
    return [int(p) for p in raw.split(",") if p.strip()] if raw.strip() else list(default)


def run() -> list[dict[str, Any]]:
    """RSS figures for ``benchmarks/run.py`` (no tracemalloc run: that one is for the printed breakdown)."""
    rows: list[dict[str, Any]] = []
    for n in sizes():
        rss = measure(n, trace=False)["rss"]
        scene = measure(n, trace=False, scene_only=True)["canvas_scene"]
        rows += [
            # the canvas's own part (issue 16 "Memory"): what building every card, line and grid adds
            {"name": f"memory.{n}.canvas_scene", "value": round(scene), "unit": "MiB", "target": None},
            {"name": f"memory.{n}.rss", "value": round(rss["settled"]), "unit": "MiB", "target": TARGETS.get(n)},
            {
                "name": f"memory.{n}.rss_trimmed",
                "value": round(rss["after malloc_trim"]),
                "unit": "MiB",
                "target": None,
            },
        ]
    return rows


def report(n: int) -> str:
    plain, traced = measure(n, trace=False), measure(n, trace=True)
    out = [f"== {n} entities: {plain['findings']} findings, {plain['items']} scene items"]
    out.append("RSS by phase (MiB)")
    out += [f"  {phase:<22}{value:>9.0f}" for phase, value in plain["rss"].items()]
    added = plain["rss"]["settled"] - plain["rss"]["window shown"]
    out.append(f"Python heap the open added (tracemalloc): {traced['traced_mib']:.0f} MiB of {added:.0f} MiB RSS")
    scene = measure(n, trace=False, scene_only=True)
    out.append(
        f"Canvas alone (scene of {scene['items']} items, no window, no analysis): {scene['canvas_scene']:.0f} MiB RSS"
    )
    out += [f"  {area:<34}{size:>9.1f}" for area, size in traced["areas"] if abs(size) >= 0.05]
    out.append(f"Top {TOP} lines (MiB, blocks)")
    out += [f"  {where:<60}{size:>9.1f}{count:>10}" for where, size, count in traced["lines"]]
    out.append(f"Top {TOP} lines in modeller/ui (MiB, blocks)")
    out += [f"  {where:<60}{size:>9.1f}{count:>10}" for where, size, count in traced["ui_lines"]]
    out.append(f"Top {TOP} files (MiB, blocks)")
    out += [f"  {where:<60}{size:>9.1f}{count:>10}" for where, size, count in traced["files"]]
    out.append("gc-tracked objects the open added, by type")
    out += [f"  {name:<60}{count:>10}" for name, count in traced["types"]]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        n = int(argv[1])
        print(json.dumps(scene_child(n) if "--scene" in argv else child(n, "--trace" in argv)))
        sys.stdout.flush()
        os._exit(0)  # no teardown of 10,000 items: the figures are out
    for n in [int(a) for a in argv] or list(DEFAULT_SIZES):
        print(report(n), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
