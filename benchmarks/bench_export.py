"""Export benchmark: the generated 1,000-entity project, 5 samples per collection.

Target (DESIGN.md "Performance"): full export without the Graphviz layout
<= 2 s, measured on an Analysis computed once (the engine has its own
benchmark). Also reported: the time per kind (generating the text), creating
the files (``files``: on this kind of VM creating a file costs 0.04-0.6 ms of
kernel time, so 2,600 files vary from 0.1 s to over 1 s with the machine's
load), CPU time, and end to end (analyse + export). The layout is measured
separately (``dot -Tsvg`` with a timeout) and reported without a target:
Graphviz's ``dot`` is super-linear on large graphs.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.generate import generate_project
from modeller.export import export_project
from modeller.rules import analyse

N_ENTITIES = 1000
ATTEMPTS = 5
DOT_TIMEOUT_S = 120.0
KINDS = ("setup", "validators", "schema", "indexes", "samples", "diagram", "report", "files")


def _row(name: str, value: float | None, target: float | None = None, unit: str = "s") -> dict[str, Any]:
    return {"name": name, "value": None if value is None else round(value, 3), "unit": unit, "target": target}


def run() -> list[dict[str, Any]]:
    project = generate_project(n_entities=N_ENTITIES)
    analysis = analyse(project)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="modeller-bench-export-") as tmp:
        root = Path(tmp)
        times: list[float] = []
        cpu: list[float] = []
        timings: dict[str, float] = {}
        for attempt in range(ATTEMPTS):
            started = time.perf_counter()
            cpu_started = time.process_time()
            result = export_project(project, analysis, root / f"out{attempt}", samples=5, seed=0, render_diagram=False)
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - cpu_started)
            if times[-1] == min(times):
                timings = dict(result.timings)
        results.append(_row(f"export {N_ENTITIES} entities, 5 samples, no graphviz layout", min(times), 2.0))
        results.append(_row("  same, median of the attempts", sorted(times)[len(times) // 2]))
        results.append(_row("  same, CPU time of this process (less sensitive to a busy machine)", min(cpu)))
        for kind in KINDS:
            if kind in timings:
                results.append(_row(f"  of which {kind}", timings[kind]))

        ends: list[float] = []
        for attempt in range(2):
            started = time.perf_counter()
            fresh = analyse(project)
            export_project(project, fresh, root / f"end{attempt}", samples=5, seed=0, render_diagram=False)
            ends.append(time.perf_counter() - started)
        results.append(_row("end to end: analyse + export, no graphviz layout", min(ends)))

        dot = shutil.which("dot")
        dot_file = root / "out0" / "diagram.dot"
        if dot is None:
            results.append(_row("graphviz layout (dot not installed)", None))
        else:
            started = time.perf_counter()
            try:
                subprocess.run(
                    [dot, "-Tsvg", "-o", str(root / "diagram.svg"), str(dot_file)],
                    check=True,
                    capture_output=True,
                    timeout=DOT_TIMEOUT_S,
                )
                results.append(
                    _row(f"graphviz dot -Tsvg layout of {N_ENTITIES} entities", time.perf_counter() - started)
                )
            except subprocess.TimeoutExpired:
                results.append(
                    _row(f"graphviz dot -Tsvg layout of {N_ENTITIES} entities: over {DOT_TIMEOUT_S:g} s", None)
                )
    return results


if __name__ == "__main__":
    for row in run():
        print(row)
