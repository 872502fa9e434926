"""``benchmarks/run.py`` lists the design's targets next to the figures that measure them."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root holds benchmarks/

from benchmarks.run import DESIGN_TARGETS, format_design_targets


def _line(text: str, label: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(label))


def test_each_target_is_shown_with_its_figure_or_as_not_run() -> None:
    rows = [
        {"name": "live.open_to_findings", "value": 1.25, "unit": "s"},
        {"name": "check.1000_entities.wall", "value": 0.9, "unit": "s"},
    ]
    text = format_design_targets(rows)
    assert len(text.splitlines()) == 2 + len(DESIGN_TARGETS)
    opened = _line(text, "open -> findings on screen")
    assert "<= 1 s" in opened and "1.25 s" in opened and "MISSED" in opened
    check = _line(text, "modeller check")
    assert "<= 1.5 s" in check and "0.9 s" in check and " ok " in check
    edit = _line(text, "edit -> findings on screen")
    assert "<= 100 ms" in edit and "not run" in edit and "live.edit_to_findings" in edit


def test_the_four_targets_of_the_engine_issue_are_listed() -> None:
    names = {name for _, _, _, name in DESIGN_TARGETS}
    assert {
        "live.open_to_findings",
        "live.edit_to_findings",
        "analyse.full.1000_entities.cpu",
        "check.1000_entities.wall",
    } <= names
