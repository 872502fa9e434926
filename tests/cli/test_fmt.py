"""``modeller fmt``: rewrite canonically; ``--check`` exits 1 naming the files that would change."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from modeller.cli.main import main
from modeller.persistence import dumps_project, load_project

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "samples").glob("*.modeller.json"))

DATA: dict[str, Any] = {
    "format": "mongo-schema-modeller",
    "format_version": 1,
    "name": "Tracker",
    "entities": [{"id": "task", "name": "Task", "fields": [{"name": "due", "type": "date", "required": False}]}],
    "layout": {"task": {"x": 1, "y": 2}},
}


def messy(folder: Path, name: str = "messy.modeller.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(DATA, indent=4))
    return path


def test_check_passes_on_canonical_samples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copies = [Path(shutil.copy(p, tmp_path)) for p in SAMPLES]
    assert main(["fmt", "--check", *map(str, copies)]) == 0
    assert capsys.readouterr().out == f"0 files would reformat, {len(copies)} files already canonical\n"


def test_check_names_files_and_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = messy(tmp_path)
    before = path.read_bytes()
    good = tmp_path / "good.modeller.json"
    shutil.copy(SAMPLES[0], good)
    assert main(["fmt", "--check", str(path), str(good)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [f"would reformat {path}", "1 file would reformat, 1 file already canonical"]
    assert err == ""
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.modeller.json", "messy.modeller.json"]


def test_fmt_rewrites_canonically_without_bak(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = messy(tmp_path)
    assert main(["fmt", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"reformatted {path}", "1 file reformatted"]
    text = path.read_text(encoding="utf-8")
    assert text == dumps_project(load_project(path))
    assert '"required": false' not in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["messy.modeller.json"]
    # idempotent
    assert main(["fmt", "--check", str(path)]) == 0


def test_bad_file_exit_2_others_still_formatted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.modeller.json"
    broken.write_text('{"format": "mongo-schema-modeller", "format_version": 1,\n "name": }')
    path = messy(tmp_path)
    assert main(["fmt", str(broken), str(path)]) == 2
    out, err = capsys.readouterr()
    assert f"reformatted {path}" in out
    assert err.splitlines() == [
        f"{broken}:2:10: invalid JSON: expecting value",
        "modeller: error: 1 file could not be read",
    ]
    assert broken.read_text().endswith('"name": }')


def test_bad_file_with_check_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fmt", "--check", str(tmp_path / "nope.json"), str(messy(tmp_path))]) == 2
    assert f"{tmp_path / 'nope.json'}: no such file" in capsys.readouterr().err


def test_subprocess_check(tmp_path: Path) -> None:
    path = messy(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "modeller", "fmt", "--check", str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == f"would reformat {path}"
    assert "Traceback" not in done.stderr
