"""``modeller check A B``: each file's findings under its name (the pre-commit hook passes several files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from modeller.cli.main import main

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
BLOG = SAMPLES / "blog.modeller.json"
TRACKER = SAMPLES / "task-tracker.modeller.json"


def test_several_files_are_each_named_before_their_findings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(TRACKER)]) == 0
    alone = capsys.readouterr().out
    assert not alone.startswith(str(TRACKER))  # one file: no header, as before
    assert main(["check", str(BLOG), str(TRACKER)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{BLOG}:\n")
    second = out.index(f"\n{TRACKER}:\n")
    assert out[second + len(f"\n{TRACKER}:\n") :] == alone  # the second block is that file's own output
    assert out.count(" findings: ") + out.count("no findings") == 2


def test_the_worst_result_is_the_exit_code_and_machine_formats_take_one_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    broken = tmp_path / "broken.modeller.json"
    broken.write_text("{", encoding="utf-8")
    assert main(["check", str(broken), str(TRACKER)]) == 2
    captured = capsys.readouterr()
    assert "broken.modeller.json" in captured.err and f"\n{TRACKER}:\n" in captured.out
    assert main(["check", "--format", "json", str(BLOG), str(TRACKER)]) == 2
    assert "--format json takes one FILE" in capsys.readouterr().err
