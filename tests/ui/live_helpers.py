"""Shared helpers of the issue-6 GUI tests: findings shown by the recommendations panel."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from modeller.rules.framework.findings import Finding
from modeller.ui.main_window import MainWindow

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

#: the debounce plus generous room for a slow CI machine
SETTLE_MS = 3000


def open_sample(make_window, name: str) -> MainWindow:
    """A main window with the real engine showing ``samples/<name>.modeller.json``, analysed."""
    window = make_window(use_engine=True)
    assert window.open_path(SAMPLES / f"{name}.modeller.json", ask=False)
    window.analysis.run_now()
    return window


def shown(window: MainWindow) -> list[Finding]:
    return window.recommendations.visible_findings()


def rules_about(findings: Iterable[Finding], kind: str, ident: str) -> set[str]:
    return {f.rule for f in findings if f.subject.kind == kind and f.subject.id == ident}


def find(findings: Iterable[Finding], rule: str, kind: str | None = None, ident: str | None = None) -> Finding:
    for finding in findings:
        wanted_kind = kind is None or finding.subject.kind == kind
        if finding.rule == rule and wanted_kind and (ident is None or finding.subject.id == ident):
            return finding
    raise AssertionError(f"no {rule} finding about {kind} {ident}")
