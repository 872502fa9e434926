"""Everything the engine's results reach, dumped to files: to show a speed change leaves the outputs alone.

For every sample project and generated projects of 60, 300 and 1,000 entities
this writes the findings (``check --format json`` and the text, plus every
finding each rule reported before folding), the design (``design --format
json`` and the text) and every export kind (without the Graphviz layout; the
setup script once more with sample documents and sharding). Run it at the base
commit and after the change, then compare:

    .venv/bin/python -m benchmarks.outputs dump /tmp/before
    .venv/bin/python -m benchmarks.outputs dump /tmp/after
    .venv/bin/python -m benchmarks.outputs compare /tmp/before /tmp/after

``compare`` lists each file that differs or exists on one side only and exits
1 when there is one. Not part of ``run.py``: it writes files, it measures
nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from benchmarks.generate import generate_project
from modeller.cli.cmd_check import render_text as check_text
from modeller.cli.cmd_design import design_json
from modeller.cli.cmd_design import render_text as design_text
from modeller.export import export_project
from modeller.model import Project
from modeller.model.labels import Labels
from modeller.persistence import load_project
from modeller.rules import analyse

ROOT = Path(__file__).resolve().parent.parent
GENERATED = (60, 300, 1000)


def projects() -> Iterator[tuple[str, Project]]:
    """Every sample, then the generated projects, each with the folder name its outputs go under."""
    for path in sorted((ROOT / "samples").glob("*.modeller.json")):
        yield path.name.removesuffix(".modeller.json"), load_project(path)
    for n in GENERATED:
        yield f"generated-{n}", generate_project(n, 1.5, 0.5, seed=0)


def _json(data: object) -> str:
    return json.dumps(data, indent=1, sort_keys=False, ensure_ascii=False) + "\n"


def dump_one(project: Project, out: Path) -> None:
    """The findings, the design and every export of ``project`` under ``out``."""
    analysis = analyse(project)
    labels = Labels(project)
    out.mkdir(parents=True, exist_ok=True)
    (out / "check.json").write_text(_json({"findings": [f.to_json() for f in analysis.findings]}))
    (out / "check.txt").write_text(check_text(analysis.findings, False, labels))
    (out / "reported.json").write_text(_json([f.to_json() for f in analysis.reported]))
    (out / "design.json").write_text(_json(design_json(analysis.design, labels)))
    (out / "design.txt").write_text(design_text(analysis.design, False, labels))
    export_project(project, analysis, out / "export", render_diagram=False)
    with tempfile.TemporaryDirectory() as folder:
        result = export_project(
            project, analysis, folder, kinds="setup", with_samples=True, with_sharding=True, render_diagram=False
        )
        for path in result.files:
            (out / f"full-{path.name}").write_text(path.read_text(encoding="utf-8"))


def dump(target: Path) -> None:
    for name, project in projects():
        dump_one(project, target / name)
        print(name, flush=True)


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def compare(before: Path, after: Path) -> int:
    """1 and the differing files when the two dumps differ, else 0."""
    old, new = _files(before), _files(after)
    differ = [f"only in {before}: {name}" for name in sorted(old - new)]
    differ += [f"only in {after}: {name}" for name in sorted(new - old)]
    differ += [
        f"differs: {name}" for name in sorted(old & new) if (before / name).read_bytes() != (after / name).read_bytes()
    ]
    for line in differ:
        print(line)
    print(f"{len(old & new)} files compared, {len(differ)} difference(s)")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("dump").add_argument("target", type=Path)
    compared = sub.add_parser("compare")
    compared.add_argument("before", type=Path)
    compared.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "dump":
        dump(args.target)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
