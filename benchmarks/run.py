"""Run every ``benchmarks/bench_*.py`` module, print a table, write ``benchmarks/results/latest.json``.

Each module exposes ``run() -> list[dict]`` whose items have ``name``,
``value``, ``unit`` and ``target`` (the value must not exceed the target;
``None`` means informational), and may have a ``note`` (printed under the table). ``--only NAME`` runs one module
(``files`` or ``bench_files``). Exit 1 when a figure misses its target,
2 when a module fails to run. After the table, the design's targets (what a
user feels, DESIGN.md "Performance targets") are listed next to the figure
that measures each.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "latest.json"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


#: DESIGN.md "Performance targets" on the generated 1,000-entity project: (what a user feels, limit, unit,
#: the figure that measures it, in the figure's unit)
DESIGN_TARGETS: tuple[tuple[str, float, str, str], ...] = (
    ("open -> findings on screen", 1.0, "s", "live.open_to_findings"),
    ("edit -> findings on screen", 100, "ms", "live.edit_to_findings"),
    ("cold full analysis (keep near)", 250, "ms", "analyse.full.1000_entities.cpu"),
    ("modeller check, interpreter start included", 1.5, "s", "check.1000_entities.wall"),
    ("first frame", 0.5, "s", "canvas.first_frame"),
    ("redraw after a move", 16, "ms", "canvas.move_redraw_100pct"),
    ("RSS", 300, "MiB", "canvas.rss"),
    ("load + validate", 300, "ms", "files.load_validate"),
    ("save", 200, "ms", "files.save"),
    ("export without graphviz layout", 2.0, "s", "export 1000 entities, 5 samples, no graphviz layout"),
)


def discover() -> list[str]:
    """Module names of every benchmark, in file-name order."""
    return [p.stem for p in sorted(HERE.glob("bench_*.py"))]


def _module_name(name: str) -> str:
    return name if name.startswith("bench_") else f"bench_{name}"


def run_module(name: str) -> list[dict[str, Any]]:
    """Import ``benchmarks.NAME`` and return its rows, each marked ok or not."""
    module = importlib.import_module(f"benchmarks.{name}")
    rows: list[dict[str, Any]] = []
    for row in module.run():
        missing = {"name", "value", "unit", "target"} - set(row)
        if missing:
            raise ValueError(f"{name}: result {row!r} lacks {sorted(missing)}")
        target = row["target"]
        rows.append({**row, "module": name, "ok": None if target is None else bool(row["value"] <= target)})
    return rows


def format_table(rows: list[dict[str, Any]]) -> str:
    header = ("name", "value", "unit", "target", "ok?")
    lines = [
        (
            str(r["name"]),
            f"{r['value']:.1f}" if isinstance(r["value"], float) else str(r["value"]),
            str(r["unit"]),
            "-" if r["target"] is None else f"<= {r['target']}",
            {True: "ok", False: "MISSED", None: "-"}[r["ok"]],
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in [header, *lines]) for i in range(len(header))]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i in (0, 2) else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    notes = [f"  {r['name']}: {r['note']}" for r in rows if r.get("note")]
    return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *map(fmt, lines), *notes])


def format_design_targets(rows: list[dict[str, Any]]) -> str:
    """The design's targets, each next to the figure measuring it ("not run" when its module did not run)."""
    figures = {r["name"]: r for r in rows}
    header = ("DESIGN.md target, 1,000 entities", "target", "figure", "ok?", "measured by")
    lines = []
    for label, limit, unit, name in DESIGN_TARGETS:
        row = figures.get(name)
        value = None if row is None else row["value"]
        shown = "not run" if value is None else f"{value:g} {row['unit'] if row else unit}"
        ok = "-" if value is None else ("ok" if value <= limit else "MISSED")
        lines.append((label, f"<= {limit:g} {unit}", shown, ok, name))
    widths = [max(len(line[i]) for line in [header, *lines]) for i in range(len(header))]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(
            c.rjust(w) if i in (1, 2) else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *map(fmt, lines)])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the Modeller benchmarks.")
    parser.add_argument("--only", metavar="NAME", help="run one module, e.g. 'files' or 'bench_files'")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON results")
    args = parser.parse_args(argv)

    names = discover()
    if args.only:
        wanted = _module_name(args.only)
        if wanted not in names:
            print(
                f"no benchmark {args.only!r}; known: {', '.join(n.removeprefix('bench_') for n in names)}",
                file=sys.stderr,
            )
            return 2
        names = [wanted]

    rows: list[dict[str, Any]] = []
    failed: list[str] = []
    for name in names:
        started = time.perf_counter()
        try:
            rows.extend(run_module(name))
        except Exception:
            failed.append(name)
            print(f"{name} failed:\n{traceback.format_exc()}", file=sys.stderr)
        print(f"# {name}: {time.perf_counter() - started:.1f} s", file=sys.stderr)

    print(format_table(rows))
    print()
    print(format_design_targets(rows))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "failed_modules": failed,
        "results": rows,
    }
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if failed:
        return 2
    return 1 if any(r["ok"] is False for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
