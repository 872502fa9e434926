"""``modeller infer FILE...``: mongoexport files (JSON lines, arrays, Extended JSON) to a canonical project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from modeller.cli.main import main
from modeller.persistence import dumps_project, load_project


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_json_lines_and_arrays_in_extended_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    owner = "65225c05664bf961754a683b"
    people = _write(tmp_path / "people.json", json.dumps([{"_id": {"$oid": owner}, "name": "Ann"}]))
    tasks = _write(
        tmp_path / "tasks.jsonl",
        "\n".join(
            json.dumps(
                {
                    "_id": {"$oid": f"6589c0d631483a3437a6fb4{i}"},
                    "due": {"$date": f"2024-01-0{i}T00:00:00Z"},
                    "owner_id": {"$oid": owner},
                }
            )
            for i in range(1, 4)
        )
        + "\n\n",
    )
    out = tmp_path / "inferred.modeller.json"
    assert main(["infer", str(people), str(tasks), "--name", "Tracker", "-o", str(out)]) == 0
    project = load_project(out)
    assert out.read_text(encoding="utf-8") == dumps_project(project)  # canonical
    assert [(e.collection, [f.name for f in e.fields]) for e in project.entities] == [
        ("people", ["name"]),
        ("tasks", ["due"]),
    ]
    assert project.entities[1].fields[0].type == "date"
    (rel,) = project.relationships
    assert (rel.one, rel.many, rel.strategy, rel.inverse, rel.max) == ("person", "task", "parent-ref", "owner", 3)
    assert "wrote" in capsys.readouterr().err


def test_standard_output_when_no_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    things = _write(tmp_path / "things.json", '{"_id": 1, "n": {"$numberLong": "5"}}\n')
    assert main(["infer", str(things)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["entities"][0]["fields"] == [
        {"name": "_id", "type": "int", "required": True, "bytes": 4, "distinct": 1},
        {"name": "n", "type": "long", "required": True, "bytes": 8, "distinct": 1},
    ]


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("bad.json", '{"a": 1}\n{oops\n', "bad.json:2: not valid Extended JSON"),
        ("list.json", "[1, 2]", "element 0 of the array is not a document"),
        ("system.users.json", "{}\n", "starts with 'system.'"),
    ],
)
def test_broken_files_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, expected: str
) -> None:
    path = _write(tmp_path / name, text)
    assert main(["infer", str(path), "-o", str(tmp_path / "out.modeller.json")]) == 2
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 1
    assert not (tmp_path / "out.modeller.json").exists()


def test_a_uri_needs_a_database(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["infer", "mongodb://ann:pw@localhost"]) == 2
    err = capsys.readouterr().err
    assert "add --db NAME" in err and "ann:***@" in err and ":pw@" not in err
