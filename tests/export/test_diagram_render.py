"""The Graphviz step of an export: one layout for every format, and no layout started past the size dot can do."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hand_designs import tracker_design, tracker_findings, tracker_project

import modeller.export as export_module
from modeller.export import export_project
from modeller.export.diagram import LAYOUT_LIMIT, layout_skipped, render
from modeller.export.manifest import MANIFEST
from modeller.rules.framework.analysis import Analysis


def fake_dot(folder: Path, refuse_two_formats: bool = False) -> tuple[Path, Path]:
    """A ``dot`` that logs each run's arguments and writes every ``-o`` file (or refuses two formats in one run)."""
    log = folder / "runs.log"
    script = folder / "fakedot"
    refuse = 'if [ "$(echo "$@" | grep -o -- "-T" | wc -l)" -gt 1 ]; then echo "Format: png not recognized" >&2; exit 1; fi\n'
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> "{log}"\n'
        + (refuse if refuse_two_formats else "")
        + 'while [ $# -gt 1 ]; do if [ "$1" = "-o" ]; then echo drawn > "$2"; fi; shift; done\n'
    )
    script.chmod(0o755)
    return script, log


def test_one_dot_run_writes_svg_and_png(tmp_path: Path) -> None:
    binary, log = fake_dot(tmp_path)
    dot = tmp_path / "diagram.dot"
    dot.write_text("digraph { a -> b }\n")
    outcome = render(dot, dot_binary=str(binary))
    assert outcome.notice is None
    assert outcome.written == [tmp_path / "diagram.svg", tmp_path / "diagram.png"]
    runs = log.read_text().splitlines()
    assert runs == [f"-Tsvg -o {tmp_path / 'diagram.svg'} -Tpng -o {tmp_path / 'diagram.png'} {dot}"]


def test_a_format_dot_lacks_keeps_the_others(tmp_path: Path) -> None:
    binary, log = fake_dot(tmp_path, refuse_two_formats=True)
    dot = tmp_path / "diagram.dot"
    dot.write_text("digraph { a -> b }\n")
    outcome = render(dot, dot_binary=str(binary))
    # the joint run is refused, then each format alone: the fake accepts single runs, so both are made
    assert len(log.read_text().splitlines()) == 3
    assert outcome.notice is None and [p.name for p in outcome.written] == ["diagram.svg", "diagram.png"]


def test_past_the_layout_limit_dot_is_not_started_and_the_notice_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary, log = fake_dot(tmp_path)
    monkeypatch.setattr(shutil, "which", lambda name: str(binary))
    design = tracker_design()
    monkeypatch.setattr(export_module, "LAYOUT_LIMIT", len(design.collections) - 1)
    out = tmp_path / "out"
    result = export_project(tracker_project(), Analysis(tracker_findings(), design), out, kinds="diagram")
    assert not log.exists()  # no run at all
    assert sorted(p.name for p in out.iterdir() if p.name != MANIFEST) == ["diagram.dot"]
    (notice,) = result.notices
    assert notice == layout_skipped(len(design.collections))
    assert f"{len(design.collections)} collections" in notice and "diagram.dot was written" in notice
    assert "dot -Tsvg diagram.dot -o diagram.svg" in notice and "leave the diagram out" in notice
    assert "graphviz" not in result.timings


def test_at_the_layout_limit_dot_still_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    binary, log = fake_dot(tmp_path)
    monkeypatch.setattr(shutil, "which", lambda name: str(binary))
    design = tracker_design()
    monkeypatch.setattr(export_module, "LAYOUT_LIMIT", len(design.collections))
    result = export_project(tracker_project(), Analysis(tracker_findings(), design), tmp_path / "out", kinds="diagram")
    assert result.notices == [] and len(log.read_text().splitlines()) == 1
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.name != MANIFEST) == [
        "diagram.dot",
        "diagram.png",
        "diagram.svg",
    ]


def test_the_skip_notice_names_the_size_in_the_users_numbers() -> None:
    text = layout_skipped(8772)
    assert text.startswith("diagram.svg and diagram.png were not made: 8,772 collections are more than Graphviz")
    assert f"about {LAYOUT_LIMIT:,} at most" in text and "\n" not in text
