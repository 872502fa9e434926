"""``-`` reads a project from standard input for ``validate``, ``check`` and ``design``; messages name it ``<stdin>``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from modeller.cli.main import main

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
BLOG = SAMPLES / "blog.modeller.json"


def feed(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_validate_reads_stdin_and_names_it(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    feed(monkeypatch, BLOG.read_bytes())
    assert main(["validate", "-"]) == 0
    assert capsys.readouterr().out == "<stdin>: valid (3 entities, 3 relationships, 2 queries)\n"


def test_check_from_stdin_equals_check_of_the_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(BLOG), "--format", "json"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    feed(monkeypatch, BLOG.read_bytes())
    assert main(["check", "-", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == from_file
    assert from_file["findings"], "the sample has findings, so the comparison means something"


def test_design_from_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    feed(monkeypatch, BLOG.read_bytes())
    assert main(["design", "-", "--format", "json"]) == 0
    names = [c["name"] for c in json.loads(capsys.readouterr().out)["collections"]]
    assert "posts" in names


def test_broken_stdin_is_one_line_naming_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    feed(monkeypatch, b'{"format_version": 1,\n  "entities": [')
    assert main(["check", "-"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("modeller: error: <stdin>:")
    assert "Traceback" not in err


def test_empty_stdin_says_what_to_do(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    feed(monkeypatch, b"")
    assert main(["design", "-"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "modeller: error: <stdin>: is empty; pipe a project into it (modeller check - < FILE)"
