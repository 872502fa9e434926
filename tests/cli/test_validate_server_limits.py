"""``modeller validate`` refuses what the server would refuse: exit 2, one located line per problem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from modeller.cli.main import main

BAD: dict[str, Any] = {
    "format": "mongo-schema-modeller",
    "format_version": 1,
    "name": "Bad",
    "entities": [
        {
            "id": "post",
            "name": "Post",
            "fields": [
                {"name": "nick", "type": "string", "faker": "seed"},
                {"name": "views", "type": "int", "enum": [1, "2"]},
                {"name": "created", "type": "date", "expire_after_s": 99999999999},
                {"name": "owner", "type": "objectId"},
            ],
            "indexes": [{"keys": [["owner", "hashed"], ["nick", "hashed"]]}],
            "timeseries": {"time_field": "nick"},
        }
    ],
}

EXPECTED = [
    ("$.entities[0].fields[0].faker", "faker 'seed' is not one of the supported Faker providers"),
    ("$.entities[0].fields[1].enum[1]", "enum value '2' is a string, but the field is 'int'"),
    ("$.entities[0].fields[2].expire_after_s", "above MongoDB's limit of 2147483647 s"),
    ("$.entities[0].indexes[0].keys", "MongoDB allows one hashed field per index"),
    ("$.entities[0].timeseries.time_field", "field 'nick' is 'string'"),
]


def test_each_refusal_is_one_located_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.modeller.json"
    path.write_text(json.dumps(BAD, indent=2) + "\n", encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert lines[-1] == "modeller: error: 1 of 1 file invalid"
    assert len(lines) == len(EXPECTED) + 1
    for line, (json_path, words) in zip(lines, EXPECTED, strict=False):
        assert line.startswith(f"{path}:")
        assert f": {json_path}: " in line and words in line
    assert "Traceback" not in err


def test_the_fixed_file_is_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixed = json.loads(json.dumps(BAD))
    entity = fixed["entities"][0]
    entity["fields"][0]["faker"] = "user_name"
    entity["fields"][1]["enum"] = [1, 2]
    entity["fields"][2]["expire_after_s"] = 86400
    entity["indexes"][0]["keys"][1][1] = 1
    entity["timeseries"]["time_field"] = "created"
    path = tmp_path / "fixed.modeller.json"
    path.write_text(json.dumps(fixed), encoding="utf-8")
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().out.startswith(f"{path}: valid (1 entity")
