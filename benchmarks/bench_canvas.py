"""The canvas on the generated 1,000-entity / 1,500-relationship project.

Targets (DESIGN.md "Performance targets", per size): first painted frame after opening <= 0.5 s at 1,000
entities and <= 3 s at 10,000, redraw after moving one card <= 16 ms, resident memory <= 300 MiB / 1 GiB
(other sizes: no first-frame or memory target). ``MODELLER_BENCH_CANVAS_SIZE`` measures
another size (issue 16: 10000). The measurement runs in a
child process (offscreen Qt) so the memory figure is the app's own and no Qt
state leaks into other benchmarks.

Each redraw figure is the median of repeated moves of the busiest card; ``*_cpu`` is the UI thread's
CPU time for the same moves (the wall clock of a machine shared with other work counts waiting for a
core too). The first move of a card is its own figure: the canvas then draws the picture of the other
lines anew (canvas/items/line_layer.py), later moves draw only the card's lines over it. At fit zoom the
scroll step (the pictures are shifted, canvas/items/view_picture.py) and the zoom step (the picture shown
scaled) are the UI thread's CPU time of the repaint; the zoom's rest draws the pictures anew at the new scale in
bands, one per turn of the event loop: its figure is the longest turn, ``_total`` all of them; hover is the CPU
time of one pointer move over a long line at 100 %. Click (press and release on the busiest card) and rubber band
(press on empty canvas, four moves over a ninth of the view, release; with how many cards it selected) are the UI
thread's CPU time at 100 % and at fit zoom. The Documents view turned on and off at fit zoom (after the engine's
analysis it shows, made first) is its wall time and the UI thread's CPU time until the view has its new look.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, os, statistics, sys, tempfile, time
from pathlib import Path
os.environ["QT_QPA_PLATFORM"] = "offscreen"
sys.path.insert(0, sys.argv[1])
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from benchmarks.generate import generate_project
from modeller.model import Position
from modeller.persistence import save_project
from modeller.ui.commands import MoveCommand
from modeller.ui.main_window import MainWindow


from benchmarks.gui_child import PaintWatch, rss_mib


app = QApplication([])
folder = Path(tempfile.mkdtemp())
path = folder / "bench.modeller.json"
save_project(generate_project(int(os.environ.get("MODELLER_BENCH_CANVAS_SIZE") or 1000), 1.5, 0.5, seed=0), path)
settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
# the canvas alone: the engine's own cost is measured by its benchmark, and its analysis
# must not land inside the frames timed here
window = MainWindow(settings=settings, recovery_dir=folder / "recovery", use_engine="--engine" in sys.argv)
window.resize(1600, 1000)
window.show()
app.processEvents()
watch = PaintWatch()
viewport = window.view.viewport()
viewport.installEventFilter(watch)

started = time.perf_counter()
window.open_path(path, ask=False, background=False)
deadline = started + 30
while watch.painted == 0 and time.perf_counter() < deadline:
    app.processEvents()
first_frame = time.perf_counter() - started
window.scene.finish_build()  # a large canvas is built in slices: the figures below need every item
scene = window.scene
entities = len(scene.entity_items)
relationships = len(scene.relationship_items)


def redraw_after_move(zoomed_in):
    # median time from a card's move command to the end of the repaint Qt schedules for it,
    # and the time of a forced full-viewport repaint (the worst case)
    doc = window.document
    degree = {e.id: 0 for e in doc.project.entities}
    for rel in doc.project.relationships:  # one pass: relationships_of per card was quadratic (150 s at 10,000)
        degree[rel.one] += 1
        degree[rel.many] += 1
    busiest = max(degree, key=degree.__getitem__)
    if zoomed_in:
        window.view.reset_zoom()
        window.view.centerOn(scene.entity_items[busiest])
    else:
        window.view.fit_to_window()
    for _ in range(5):
        app.processEvents()
    partial, full, cpu = [], [], []
    for i in range(15):
        old = scene.model_position(busiest)
        painted = watch.painted
        t0, c0 = time.perf_counter(), time.thread_time()
        doc.push(MoveCommand(doc, {busiest: Position(x=old.x() + 20, y=old.y() + (20 if i % 2 else -20))}))
        while watch.painted == painted and time.perf_counter() - t0 < 2:
            app.processEvents()
        partial.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
        t1 = time.perf_counter()
        viewport.repaint()
        full.append(time.perf_counter() - t1)
    return {
        "move": statistics.median(partial[3:]) * 1000,
        "move_cpu": statistics.median(cpu[3:]) * 1000,
        "first_move": partial[0] * 1000,
        "first_move_cpu": cpu[0] * 1000,
        "full": statistics.median(full[3:]) * 1000,
        "degree": len(doc.relationships_of(busiest)),
    }


def scroll_and_zoom():
    # at fit zoom: a scroll step (the pictures are shifted, only the uncovered strip is drawn) and a zoom step
    # (drawn anew), each as the time of the viewport's repaint after it
    window.view.fit_to_window()
    for _ in range(5):
        app.processEvents()
    bar = window.view.horizontalScrollBar()
    scroll, zoom = [], []
    for i in range(12):
        bar.setValue(bar.value() + (60 if i % 2 else -60))
        t0 = time.thread_time()
        viewport.repaint()
        scroll.append(time.thread_time() - t0)
    for i in range(13):  # an odd number of steps: the zoom ends at another scale, so its rest draws anew
        t0 = time.thread_time()
        window.view.set_zoom(window.view.zoom() * (1.15 if i % 2 == 0 else 1 / 1.15))
        viewport.repaint()
        zoom.append(time.thread_time() - t0)
    time.sleep(0.4)  # the zoom rests: the pictures are drawn anew at the new scale (view_picture.ZOOM_REST_MS)
    # in bands, one per repaint: the longest turn of the event loop is what the user waits for at most
    pictures = scene._overview_painter.pictures
    turns = []
    for _ in range(40):
        t0 = time.thread_time()
        app.processEvents()
        turns.append(time.thread_time() - t0)
        if pictures.last == "drawn":
            break
    return (
        statistics.median(scroll[2:]) * 1000, statistics.median(zoom[2:]) * 1000, max(turns) * 1000,
        sum(turns) * 1000,
    )


def mouse(kind, at, buttons, modifiers=None):
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QMouseEvent

    types = {"press": QEvent.Type.MouseButtonPress, "move": QEvent.Type.MouseMove,
             "release": QEvent.Type.MouseButtonRelease}
    button = Qt.MouseButton.NoButton if kind == "move" else Qt.MouseButton.LeftButton
    event = QMouseEvent(
        types[kind], QPointF(at), QPointF(viewport.mapToGlobal(at)), button,
        Qt.MouseButton.LeftButton if buttons else Qt.MouseButton.NoButton,
        modifiers or Qt.KeyboardModifier.NoModifier,
    )
    app.sendEvent(viewport, event)


def empty_spot(near):
    # a viewport point with no card and no line under it, near ``near`` (viewport pixels)
    from PySide6.QtCore import QPoint

    for dy in range(0, 36, 4):
        for dx in range(0, 36, 4):
            at = near + QPoint(dx, dy)
            point = window.view.mapToScene(at)
            if scene.entity_item_at(point) is not None or scene.line_at(point) is not None:
                continue
            # what Qt's press finds there (a pixel's worth of lines at fit zoom)
            if not [item for item in window.view.items(at) if item.flags() & item.GraphicsItemFlag.ItemIsSelectable]:
                return at
    raise RuntimeError(f"no empty spot near {near} at zoom {window.view.zoom()}")


def click_and_band(zoomed_in):
    # UI thread CPU of a click on a card (press and release, the selection reaching the panels) and of a rubber
    # band dragged over part of the view (press on empty canvas, 4 moves, release), with how many cards it took
    from PySide6.QtCore import QPoint

    card = max(scene.entity_items.values(), key=lambda item: len(scene._attached.get(item.entity_id, ())))
    if zoomed_in:
        window.view.reset_zoom()
        window.view.centerOn(card)
    else:
        window.view.fit_to_window()
    for _ in range(5):
        app.processEvents()
    clicks = []
    for _ in range(5):
        at = window.view.mapFromScene(card.mapToScene(card.title_rect().center()))
        t0 = time.thread_time()
        mouse("press", at, True)
        mouse("release", at, False)
        app.processEvents()
        clicks.append(time.thread_time() - t0)
        scene.clearSelection()
        app.processEvents()
    size = viewport.size()
    # a 10,000-card diagram has a line under nearly every pixel of its middle: the band starts left of and above
    # the top-left card (the view scrolled there), and takes the cards in the corner
    corner = window.view.mapFromScene(scene.content_rect().topLeft())
    bars = window.view.horizontalScrollBar(), window.view.verticalScrollBar()
    for bar, at in zip(bars, (corner.x(), corner.y())):
        bar.setValue(bar.value() + at - 40)
    app.processEvents()
    start = empty_spot(QPoint(4, 4))
    end = start + QPoint(size.width() // 3, size.height() // 3)
    t0 = time.thread_time()
    mouse("press", start, True)
    for i in range(1, 5):
        mouse("move", start + (end - start) * (i / 4), True)
        app.processEvents()
    mouse("release", end, False)
    app.processEvents()
    band = time.thread_time() - t0
    taken = len(scene.selected_entity_ids())
    scene.clearSelection()
    app.processEvents()
    return statistics.median(clicks[1:]) * 1000, band * 1000, taken


def hover():
    # at 100 %: the pointer moves over the middle of a long line (Qt finds the items under it for hover)
    from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
    from PySide6.QtGui import QMouseEvent

    line = max(scene.relationship_items.values(), key=lambda item: item.chord.length() if item.chord else 0)
    spot = line.chord.pointAt(0.4)
    window.view.reset_zoom()
    window.view.centerOn(spot)
    for _ in range(5):
        app.processEvents()
    times = []
    for i in range(15):
        pos = window.view.mapFromScene(spot) + QPoint(i % 4, 0)
        event = QMouseEvent(
            QEvent.Type.MouseMove, QPointF(pos), QPointF(viewport.mapToGlobal(pos)),
            Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
        )
        t0 = time.thread_time()
        app.sendEvent(viewport, event)
        times.append(time.thread_time() - t0)
    return statistics.median(times[3:]) * 1000


def documents_toggle():
    # the Documents view turned on and off at fit zoom: wall and UI-thread CPU from the menu's call until the
    # view has taken its new look (the engine's analysis it needs is made first, outside the figure)
    from modeller.ui.analysis import engine_analyse

    result = engine_analyse()(window.document.project)
    window.analysis.latest = result
    window.analysis.analysed.emit(result)
    window.view.fit_to_window()
    for _ in range(5):
        app.processEvents()
    out = []
    for on in (True, False):
        t0, c0 = time.perf_counter(), time.thread_time()
        window.set_documents_view(on)
        while getattr(scene, "arranging", False):
            app.processEvents()
        app.processEvents()
        out += [(time.perf_counter() - t0) * 1000, (time.thread_time() - c0) * 1000]
    return out


fit = redraw_after_move(False)
fit_scroll, fit_zoom, fit_zoom_rest, fit_zoom_rest_total = scroll_and_zoom()
at_100 = redraw_after_move(True)
hover_ms = hover()
click_100, band_100, band_100_cards = click_and_band(True)
click_fit, band_fit, band_fit_cards = click_and_band(False)
window.analysis.run_now()
app.processEvents()
documents_on, documents_on_cpu, documents_off, documents_off_cpu = documents_toggle()
print(json.dumps({
    "first_frame_s": first_frame, "move_fit_ms": fit["move"], "move_100_ms": at_100["move"],
    "move_fit_cpu_ms": fit["move_cpu"], "move_100_cpu_ms": at_100["move_cpu"],
    "first_move_100_ms": at_100["first_move"], "first_move_100_cpu_ms": at_100["first_move_cpu"],
    "first_move_fit_cpu_ms": fit["first_move_cpu"], "full_fit_ms": fit["full"], "full_100_ms": at_100["full"],
    "fit_scroll_ms": fit_scroll, "fit_zoom_ms": fit_zoom, "fit_zoom_rest_ms": fit_zoom_rest,
    "fit_zoom_rest_total_ms": fit_zoom_rest_total, "hover_ms": hover_ms,
    "click_100_ms": click_100, "band_100_ms": band_100, "band_100_cards": band_100_cards,
    "click_fit_ms": click_fit, "band_fit_ms": band_fit, "band_fit_cards": band_fit_cards,
    "documents_on_ms": documents_on, "documents_on_cpu_ms": documents_on_cpu,
    "documents_off_ms": documents_off, "documents_off_cpu_ms": documents_off_cpu,
    "rss_mib": rss_mib(), "entities": entities, "relationships": relationships, "degree": at_100["degree"],
}))
window.document.undo_stack.setClean()
os._exit(0)
"""


def measure() -> dict[str, Any]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT)], capture_output=True, text=True, timeout=600, env=env, check=False
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"canvas benchmark failed ({done.returncode}): {done.stderr[-2000:]}")
    return dict(json.loads(lines[-1]))


#: DESIGN.md "Performance targets" per size: (first frame s, RSS MiB)
TARGETS = {1000: (0.5, 300), 10000: (3.0, 1024)}


def run() -> list[dict[str, Any]]:
    m = measure()
    frame_target, rss_target = TARGETS.get(m["entities"], (None, None))
    return [
        {"name": "canvas.first_frame", "value": round(m["first_frame_s"], 3), "unit": "s", "target": frame_target},
        {"name": "canvas.move_redraw_100pct", "value": round(m["move_100_ms"], 2), "unit": "ms", "target": 16},
        {"name": "canvas.move_redraw_fit", "value": round(m["move_fit_ms"], 2), "unit": "ms", "target": 16},
        {
            "name": "canvas.move_redraw_100pct_cpu",
            "value": round(m["move_100_cpu_ms"], 2),
            "unit": "ms",
            "target": None,
        },
        {"name": "canvas.move_redraw_fit_cpu", "value": round(m["move_fit_cpu_ms"], 2), "unit": "ms", "target": None},
        {"name": "canvas.first_move_100pct", "value": round(m["first_move_100_ms"], 2), "unit": "ms", "target": None},
        {
            "name": "canvas.first_move_100pct_cpu",
            "value": round(m["first_move_100_cpu_ms"], 2),
            "unit": "ms",
            "target": None,
        },
        {
            "name": "canvas.first_move_fit_cpu",
            "value": round(m["first_move_fit_cpu_ms"], 2),
            "unit": "ms",
            "target": None,
        },
        {"name": "canvas.full_repaint_100pct", "value": round(m["full_100_ms"], 2), "unit": "ms", "target": None},
        {"name": "canvas.full_repaint_fit", "value": round(m["full_fit_ms"], 2), "unit": "ms", "target": None},
        {"name": "canvas.scroll_step_fit_cpu", "value": round(m["fit_scroll_ms"], 2), "unit": "ms", "target": None},
        {"name": "canvas.zoom_step_fit_cpu", "value": round(m["fit_zoom_ms"], 2), "unit": "ms", "target": None},
        {"name": "canvas.zoom_rest_fit_cpu", "value": round(m["fit_zoom_rest_ms"], 2), "unit": "ms", "target": None},
        {
            "name": "canvas.zoom_rest_fit_total_cpu",
            "value": round(m["fit_zoom_rest_total_ms"], 2),
            "unit": "ms",
            "target": None,
        },
        {"name": "canvas.click_100pct_cpu", "value": round(m["click_100_ms"], 2), "unit": "ms", "target": None},
        {"name": "canvas.click_fit_cpu", "value": round(m["click_fit_ms"], 2), "unit": "ms", "target": None},
        {"name": "canvas.rubber_band_100pct_cpu", "value": round(m["band_100_ms"], 2), "unit": "ms", "target": None},
        {"name": "canvas.rubber_band_100pct_cards", "value": m["band_100_cards"], "unit": "cards", "target": None},
        {"name": "canvas.rubber_band_fit_cpu", "value": round(m["band_fit_ms"], 2), "unit": "ms", "target": None},
        {"name": "canvas.rubber_band_fit_cards", "value": m["band_fit_cards"], "unit": "cards", "target": None},
        {"name": "canvas.documents_on", "value": round(m["documents_on_ms"]), "unit": "ms", "target": None},
        {"name": "canvas.documents_on_cpu", "value": round(m["documents_on_cpu_ms"]), "unit": "ms", "target": None},
        {"name": "canvas.documents_off", "value": round(m["documents_off_ms"]), "unit": "ms", "target": None},
        {"name": "canvas.documents_off_cpu", "value": round(m["documents_off_cpu_ms"]), "unit": "ms", "target": None},
        {"name": "canvas.hover_100pct_cpu", "value": round(m["hover_ms"], 2), "unit": "ms", "target": None},
        {"name": "canvas.rss", "value": round(m["rss_mib"]), "unit": "MiB", "target": rss_target},
        {"name": "canvas.items", "value": m["entities"] + m["relationships"], "unit": "items", "target": None},
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
