"""Exporter test support: the seed samples analysed once per session; golden-file comparison.

Golden files change only when ``MODELLER_UPDATE_GOLDEN=1`` is set; a normal run
fails with a unified diff.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from modeller.model.project import Project
from modeller.persistence import load_project
from modeller.rules import analyse
from modeller.rules.framework.analysis import Analysis

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "samples").glob("*.modeller.json"))
GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("MODELLER_UPDATE_GOLDEN") == "1"

_CACHE: dict[str, tuple[Project, Analysis]] = {}


def sample_ids() -> list[str]:
    return [path.name.removesuffix(".modeller.json") for path in SAMPLES]


def analysed(sample: str) -> tuple[Project, Analysis]:
    """The sample project and its analysis (cached: analyse is pure)."""
    if sample not in _CACHE:
        project = load_project(ROOT / "samples" / f"{sample}.modeller.json")
        _CACHE[sample] = (project, analyse(project))
    return _CACHE[sample]


def check_golden(relative: str, actual: str) -> None:
    """Compare with ``golden/<relative>``; rewrite it only when MODELLER_UPDATE_GOLDEN=1."""
    path = GOLDEN / relative
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8", newline="\n")
        return
    if not path.exists():
        pytest.fail(f"golden file {relative} is missing; create it with MODELLER_UPDATE_GOLDEN=1 pytest tests/export")
    expected = path.read_text(encoding="utf-8")
    if expected != actual:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), actual.splitlines(True), f"golden/{relative}", "generated", n=2
            )
        )
        pytest.fail(f"{relative} differs from its golden file (MODELLER_UPDATE_GOLDEN=1 to accept):\n{diff[:6000]}")


def check_golden_folder(relative: str, names: set[str]) -> None:
    """``golden/<relative>`` holds exactly ``names``: a golden file of something the export no longer writes (a
    collection the design dropped) is removed only when MODELLER_UPDATE_GOLDEN=1 is set, else the test fails."""
    folder = GOLDEN / relative
    stale = sorted({path.name for path in folder.glob("*") if path.is_file()} - names)
    if UPDATE:
        for name in stale:
            (folder / name).unlink()
        return
    if stale:
        pytest.fail(
            f"golden/{relative} holds {', '.join(stale)}, which the export no longer writes "
            "(MODELLER_UPDATE_GOLDEN=1 to remove)"
        )
