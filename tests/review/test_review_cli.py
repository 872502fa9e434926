"""``modeller diff OLD NEW``: formats, ``--fail-on breaking``, Git revisions, ``--migration`` and one-line errors."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from review_projects import BASE, edited, field, project

from modeller.cli.main import main
from modeller.persistence import dumps_project


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(dumps_project(project(data)), encoding="utf-8")
    return path


def _renamed(d: dict[str, Any]) -> None:
    field(d, "shop", "city")["name"] = "town"


def _optional_added(d: dict[str, Any]) -> None:
    d["entities"][0]["fields"].append({"name": "phone", "type": "string"})


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    return _write(tmp_path / "old.modeller.json", BASE), _write(tmp_path / "new.modeller.json", edited(_renamed))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["diff", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_text_lists_the_change_with_its_risk(capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path]) -> None:
    code, out, _ = run(capsys, str(pair[0]), str(pair[1]))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "1 schema change in 1 collection, 1 breaking"
    assert "collection shops" in lines
    assert '  BREAKING field-renamed: "city" renamed to "town"' in lines
    assert any(line.startswith("    risk: existing documents fail the new validator until renamed") for line in lines)


def test_markdown_for_a_pull_request(capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path]) -> None:
    code, out, _ = run(capsys, str(pair[0]), str(pair[1]), "--format", "markdown")
    assert code == 0
    assert out.startswith("## Schema changes\n\n**1 schema change in 1 collection, 1 breaking**\n")
    assert "### Collection `shops`" in out
    assert '- **breaking** `field-renamed` "city" renamed to "town"' in out
    assert "  - risk: existing documents fail the new validator until renamed" in out


def test_json_and_fail_on_breaking(capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path], tmp_path: Path) -> None:
    code, out, _ = run(capsys, str(pair[0]), str(pair[1]), "--format", "json", "--fail-on", "breaking")
    assert code == 1
    data = json.loads(out)
    assert data["breaking"] == 1
    assert data["changes"][0]["kind"] == "field-renamed"
    assert data["changes"][0]["details"] == {"old": "city", "new": "town", "type": "string", "in_array": False}
    harmless = _write(tmp_path / "harmless.modeller.json", edited(_optional_added))
    code, _, _ = run(capsys, str(pair[0]), str(harmless), "--fail-on", "breaking")
    assert code == 0


def test_migration_is_written_and_never_over_a_project(
    capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path], tmp_path: Path
) -> None:
    out_file = tmp_path / "shop v2.mongosh.js"
    code, _, err = run(capsys, str(pair[0]), str(pair[1]), "--migration", str(out_file))
    assert code == 0 and "migration script written" in err
    assert '"$rename": {"city": "town"}' in out_file.read_text()
    assert "// Run it with: mongosh \"mongodb://HOST:PORT\" 'shop v2.mongosh.js'" in out_file.read_text()
    before = pair[0].read_bytes()
    code, _, err = run(capsys, str(pair[0]), str(pair[1]), "--migration", str(pair[0]))
    assert code == 2 and "refusing to write the migration script over a project file" in err
    assert pair[0].read_bytes() == before


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, timeout=60)


def test_git_revisions(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("git") is None:
        pytest.fail("git is not installed; the revision tests need it")
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "t@example.com")
    _git(repo, "config", "user.name", "T")
    schema = _write(repo / "schema.modeller.json", BASE)
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "one")
    _write(schema, edited(_renamed))
    monkeypatch.chdir(repo)
    code, out, _ = run(capsys, "HEAD:schema.modeller.json", "schema.modeller.json")
    assert code == 0 and 'BREAKING field-renamed: "city" renamed to "town"' in out
    code, _, err = run(capsys, "HEAD~5:schema.modeller.json", "schema.modeller.json")
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "HEAD~5:schema.modeller.json: git cannot show this revision" in err and "Traceback" not in err
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    code, _, err = run(capsys, "HEAD:schema.modeller.json", "schema.modeller.json")
    assert code == 2 and "git is not installed; give a file instead" in err


def test_missing_file_is_one_line(capsys: pytest.CaptureFixture[str], pair: tuple[Path, Path], tmp_path: Path) -> None:
    code, _, err = run(capsys, str(tmp_path / "nope.modeller.json"), str(pair[1]))
    assert code == 2 and err.count("\n") == 1 and "no such file" in err
