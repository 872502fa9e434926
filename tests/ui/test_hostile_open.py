"""The hostile-input reproducers open in the desktop app: analysed, advice shown, nothing reported as failed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from modeller.persistence import load_project
from modeller.rules import analyse

from .live_helpers import shown

HOSTILE = sorted((Path(__file__).resolve().parents[1] / "export" / "hostile").glob("*.modeller.json"))


@pytest.mark.parametrize("path", HOSTILE, ids=[p.name.removesuffix(".modeller.json") for p in HOSTILE])
def test_a_reproducer_opens_and_its_advice_is_shown(make_window: Any, path: Path) -> None:
    window = make_window(use_engine=True)
    failures: list[str] = []
    window.analysis.failed.connect(failures.append)
    assert window.open_path(path, ask=False)
    window.analysis.run_now()
    assert failures == []
    expected = analyse(load_project(path)).findings
    assert expected, f"{path.name}: the engine gives no advice at all"
    assert {(f.rule, f.subject.id) for f in shown(window)} <= {(f.rule, f.subject.id) for f in expected}
    assert shown(window), f"{path.name}: nothing is shown in the recommendations panel"


def test_there_are_reproducers_to_open() -> None:
    assert len(HOSTILE) >= 5
