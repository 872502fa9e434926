"""Run every ``benchmarks/bench_*.py`` module, print a table, write ``benchmarks/results/latest.json``.

Each module exposes ``run() -> list[dict]`` whose items have ``name``,
``value``, ``unit`` and ``target`` (the value must not exceed the target;
``None`` means informational). ``--only NAME`` runs one module
(``files`` or ``bench_files``). Exit 1 when a figure misses its target,
2 when a module fails to run.
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
