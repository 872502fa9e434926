"""Shared helpers of the issue-6 GUI tests: a main window on a sample, and finding lookups."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import QSettings

from modeller.rules.findings import Finding
from modeller.ui.main_window import MainWindow

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

#: the debounce plus generous room for a slow CI machine
SETTLE_MS = 3000


def open_window(qtbot: object, tmp_path: Path, sample: str | None) -> MainWindow:
    """A main window (recovery and settings in ``tmp_path``) showing ``sample``, analysed."""
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window)  # type: ignore[attr-defined]
    if sample is not None:
        assert window.open_path(SAMPLES / sample, ask=False)
    window.analysis.run_now()
    return window


def shown(window: MainWindow) -> list[Finding]:
    return window.recommendations.visible_findings()


def rules_about(findings: Iterable[Finding], kind: str, ident: str) -> set[str]:
    return {f.rule for f in findings if f.subject.kind == kind and f.subject.id == ident}


def find(findings: Iterable[Finding], rule: str, kind: str | None = None, ident: str | None = None) -> Finding:
    for finding in findings:
        if finding.rule == rule and (kind is None or finding.subject.kind == kind):
            if ident is None or finding.subject.id == ident:
                return finding
    raise AssertionError(f"no {rule} finding about {kind} {ident}")
