"""``modeller validate``: exit 0 when all files are valid, 2 otherwise, every problem on stderr, no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from modeller.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "samples").glob("*.modeller.json"))

GOOD: dict[str, Any] = {
    "format": "mongo-schema-modeller",
    "format_version": 1,
    "name": "Tracker",
    "entities": [
        {"id": "person", "name": "Person", "fields": [{"name": "name", "type": "string"}]},
        {"id": "task", "name": "Task", "fields": [{"name": "due", "type": "date"}]},
    ],
    "relationships": [{"id": "pt", "one": "person", "many": "task", "cardinality": "one-to-many"}],
}


def write(folder: Path, name: str, content: str | bytes | dict[str, Any]) -> Path:
    path = folder / name
    if isinstance(content, dict):
        content = json.dumps(content, indent=2) + "\n"
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def bad(content: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(content))
    node = data
    for part in path[:-1]:
        node = node[part]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return data


def test_all_samples_are_valid(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", *map(str, SAMPLES)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert len(out.splitlines()) == len(SAMPLES)
    assert all(": valid (" in line for line in out.splitlines())


def test_valid_file_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "ok.modeller.json", GOOD)
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().out == f"{path}: valid (2 entities, 1 relationship, 0 queries)\n"


def test_quiet_prints_nothing_for_valid_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "-q", str(write(tmp_path, "ok.modeller.json", GOOD))]) == 0
    assert capsys.readouterr() == ("", "")


CASES: list[tuple[str, str | bytes | dict[str, Any], str]] = [
    ("not-utf8", b'{"format": "mongo-schema-modeller", "name": "\xff"}', ":1:46: not UTF-8 text: byte 0xff"),
    ("invalid-json", '{\n  "format": "mongo-schema-modeller",\n  "name": "x"\n  "entities": []\n}', ":4:3: invalid JSON: expecting ',' delimiter"),
    ("wrong-type", bad(GOOD, ["entities", 0, "fields", 0, "required"], "yes"), ": $.entities[0].fields[0].required: expected true or false, got 'yes'"),
    ("missing-key", bad(GOOD, ["relationships", 0, "cardinality"], KeyError), ": $.relationships[0]: missing required key 'cardinality'"),
    ("dangling", bad(GOOD, ["relationships", 0, "many"], "job"), ": $.relationships[0].many: no entity has id 'job'"),
    ("duplicate-id", bad(GOOD, ["entities", 1, "id"], "person"), ": $.entities[0].id: id 'person' is used by more than one of entities"),
    ("unknown-version", bad(GOOD, ["format_version"], 99), ":3:3: $.format_version: format_version 99 is newer than this Modeller supports"),
    ("unknown-key", bad(GOOD, ["entities", 0, "feilds"], []), ": $.entities[0].feilds: unknown key 'feilds'; did you mean 'fields'?"),
    ("deep", '{"format": "mongo-schema-modeller", "x": ' + "[" * 300 + "]" * 300 + "}", ":1:297: the file is nested more than 256 levels deep"),
    ("nan", json.dumps(bad(GOOD, ["entities", 0, "count"], float("nan"))), "NaN is not a number a project can hold"),
    ("huge-string", bad(GOOD, ["name"], "x" * 50_000), ": $.name: is too long: 50000 characters, at most 200 allowed"),
    ("huge-number", bad(GOOD, ["entities", 0, "count"], 10**20), ": $.entities[0].count: must be at most 1000000000000000, got 100000000000000000000"),
    ("not-a-project", '{"name": "left-pad"}', "not a Modeller project file"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "content", "expected"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_exit_2_with_located_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: Any, expected: str
) -> None:
    path = write(tmp_path, f"{name}.modeller.json", content)
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert lines[0].startswith(str(path))
    assert expected in lines[0]
    assert lines[-1] == "modeller: error: 1 of 1 file invalid"
    assert "Traceback" not in err


def test_missing_file_and_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "nope.json"), str(tmp_path)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"{tmp_path / 'nope.json'}: no such file",
        f"{tmp_path}: is a folder, not a project file",
        "modeller: error: 2 of 2 files invalid",
    ]


def test_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from modeller.persistence import load as load_module

    path = write(tmp_path, "locked.modeller.json", GOOD)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(load_module, "open", refuse, raising=False)  # chmod 000 means nothing to root
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err.splitlines()[0] == f"{path}: permission denied: cannot read this file"


def test_absurdly_large_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.modeller.json"
    with open(path, "wb") as handle:
        handle.truncate(51 * 1024 * 1024)  # sparse, never read
    assert main(["validate", str(path)]) == 2
    assert (
        capsys.readouterr().err.splitlines()[0] == f"{path}: the file is 51.0 MB; project files above 50 MB are refused"
    )


def test_loader_bug_is_reported_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import modeller.cli.sources as sources  # where validate finds the loader

    def broken(path: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(sources, "load_project", broken)
    path = write(tmp_path, "ok.modeller.json", GOOD)
    assert main(["validate", str(path)]) == 3
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert first.startswith(f"modeller: internal error while reading {path}: RuntimeError: boom — details in ")
    assert first.endswith(", please report it")
    assert "Traceback" not in err
    report = Path(first.split("details in ", 1)[1].removesuffix(", please report it"))
    assert report.parent == Path(os.environ["XDG_CACHE_HOME"]) / "modeller"
    assert 'raise RuntimeError("boom")' in report.read_text(encoding="utf-8")


def test_every_problem_of_every_file_is_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    many = bad(GOOD, ["queries"], [{"id": f"q{i}", "entity": "ghost"} for i in range(25)])
    one = write(tmp_path, "many.modeller.json", many)
    good = write(tmp_path, "good.modeller.json", GOOD)
    two = write(tmp_path, "two.modeller.json", bad(GOOD, ["relationships", 0, "one"], "x"))
    assert main(["validate", str(one), str(good), str(two)]) == 2
    out, err = capsys.readouterr()
    assert out == f"{good}: valid (2 entities, 1 relationship, 0 queries)\n"
    lines = err.splitlines()
    assert sum(line.startswith(str(one)) for line in lines) == 25  # not capped on the command line
    assert any(line.startswith(f"{two}:") and "$.relationships[0].one" in line for line in lines)
    assert lines[-1] == "modeller: error: 2 of 3 files invalid"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{\n  oops\n}", ":2:3: invalid JSON: expecting property name enclosed in double quotes"),
        (bad(GOOD, ["format_version"], 3), "$.format_version: format_version 3 is newer"),
    ],
)
def test_subprocess_no_traceback(tmp_path: Path, content: Any, expected: str) -> None:
    path = write(tmp_path, "bad.modeller.json", content)
    done = subprocess.run(
        [sys.executable, "-m", "modeller", "validate", str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert expected in done.stderr and done.stderr.startswith(str(path))
    assert "Traceback" not in done.stderr


def test_subprocess_missing_file(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "modeller", "validate", str(tmp_path / "x.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[0] == f"{tmp_path / 'x.json'}: no such file"
