"""Hostile text on the command line: ESC sequences and bidi overrides never reach the terminal raw,
and a bug is one line plus a crash report (exit 3), never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from modeller.cli import cmd_check
from modeller.cli.main import main

# retitles the terminal, clears it, then reverses what follows; a newline would fake another message line
EVIL = "evil\x1b]0;pwned\x07\x1b[2J\u202egnp.\u2066x\u2069\x9b31m\x7f\nfake"
BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

PROJECT: dict[str, Any] = {
    "format": "mongo-schema-modeller",
    "format_version": 1,
    "name": f"Tracker {EVIL}",
    "entities": [
        {
            "id": "person",
            "name": f"Person {EVIL}",
            "fields": [{"name": "name" + EVIL.replace(".", ""), "type": "string"}],
        },
        {"id": "task", "name": "Task", "fields": [{"name": "due", "type": "date"}]},
    ],
    "relationships": [{"id": "pt", "one": "person", "many": "task", "cardinality": "one-to-many"}],
}


def unsafe_characters(text: str) -> list[str]:
    """Every character a terminal or a bidi renderer would act on (newlines between lines are fine)."""
    return [
        repr(c)
        for c in text
        if (unicodedata.category(c) == "Cc" and c != "\n") or c in BIDI or unicodedata.category(c) in ("Zl", "Zp")
    ]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as done:  # argparse usage errors
        code = int(done.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def evil_file(tmp_path: Path) -> Path:
    path = tmp_path / f"{EVIL}.modeller.json"
    path.write_text(json.dumps(PROJECT), encoding="utf-8")
    return path


@pytest.fixture
def broken_file(tmp_path: Path) -> Path:
    path = tmp_path / f"broken {EVIL}.modeller.json"
    path.write_text('{"format": "mongo-schema-modeller", "format_version": 1, "name": ', encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["validate", "check", "design"])
def test_a_valid_file_with_escapes_in_its_name_and_names(
    evil_file: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, command, str(evil_file))
    assert code in (0, 1)
    assert out and unsafe_characters(out + err) == []
    if command == "validate":
        # the file name is echoed, escaped, and stays on the one line it belongs to
        assert out.splitlines() == [
            f"{evil_file.parent}/evil\\x1b]0;pwned\\x07\\x1b[2J\\u202egnp.\\u2066x\\u2069"
            f"\\x9b31m\\x7f\\nfake.modeller.json: valid (2 entities, 1 relationship, 0 queries)"
        ]
    if command == "design":
        assert "Person evil\\x1b]0;pwned\\x07\\x1b[2J" in out


@pytest.mark.parametrize("command", ["validate", "check", "design", "export", "fmt"])
def test_a_broken_file_with_escapes_in_its_name(
    broken_file: Path, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = ["--out", str(tmp_path / "out")] if command == "export" else []
    code, out, err = run(capsys, command, str(broken_file), *extra)
    assert code == 2
    assert unsafe_characters(out + err) == []
    assert "broken evil\\x1b]0;pwned\\x07\\x1b[2J\\u202e" in err
    assert not any(line.startswith("fake") for line in err.splitlines())


@pytest.mark.parametrize("command", ["check", "design"])
def test_json_output_escapes_what_a_terminal_would_act_on(
    evil_file: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, command, str(evil_file), "--format", "json")
    assert code in (0, 1) and err == ""
    assert unsafe_characters(out) == []
    assert "\\u202e" in out and "\\u009b" in out
    # the escapes decode to the exact text: the JSON still carries the data
    assert any("\x1b]0;pwned\x07\x1b[2J\u202egnp" in text for text in strings(json.loads(out)))


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*strings(k), *strings(v))]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


def test_export_errors_and_written_paths_are_escaped(
    evil_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / f"file {EVIL}"
    blocker.write_text("not a folder", encoding="utf-8")
    code, out, err = run(capsys, "export", str(evil_file), "--out", str(blocker / "out"), "--no-render")
    assert code == 2
    assert err.startswith("modeller: error: cannot write the export to ") and len(err.splitlines()) == 1
    assert unsafe_characters(out + err) == []
    code, out, err = run(capsys, "export", str(evil_file), "--out", str(tmp_path / f"out {EVIL}"), "--no-render")
    assert code == 0 and "wrote " in out
    assert unsafe_characters(out + err) == []
    assert all(line.startswith(("wrote ", "note: ")) for line in out.splitlines())


def test_usage_errors_do_not_echo_arguments_raw(evil_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", str(evil_file), f"--{EVIL}")
    assert code == 2
    assert "unrecognized arguments: --evil\\x1b]0;pwned" in err
    assert unsafe_characters(out + err) == []
    code, out, err = run(capsys, "rules", EVIL)
    assert code == 2 and unsafe_characters(out + err) == []


def test_an_unexpected_exception_is_one_line_exit_3_and_a_crash_report(
    evil_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    secret_uri = "mongodb://admin:hunter2@db.example.com/prod"

    def broken(args: Any) -> int:
        raise KeyError(f"lost {EVIL} while talking to {secret_uri} " + "x" * 100_000)

    monkeypatch.setattr(cmd_check, "run", broken)
    code, out, err = run(capsys, "check", str(evil_file))
    assert code == 3
    assert out == ""
    assert len(err.splitlines()) == 1 and len(err) < 1000
    assert err.startswith("modeller: internal error: KeyError: ")
    assert err.rstrip("\n").endswith(", please report it")
    assert unsafe_characters(err) == [] and "Traceback" not in err and "hunter2" not in err
    report = Path(err.split(" — details in ", 1)[1].removesuffix(", please report it\n"))
    assert report.parent == Path(os.environ["XDG_CACHE_HOME"]) / "modeller"
    assert report.name.startswith("crash-") and report.suffix == ".txt"
    text = report.read_text(encoding="utf-8")
    assert "Traceback (most recent call last):" in text
    assert 'raise KeyError(f"lost {EVIL} while talking to' in text and "KeyError: " in text
    assert "where: modeller check" in text
    assert "hunter2" not in text and "mongodb://***@db.example.com/prod" in text
    assert unsafe_characters(text) == []
    assert max(len(line) for line in text.splitlines()) < 3000  # a huge message is cut, not copied
    assert "HOME=" not in text and "PATH=" not in text  # no environment dump
    assert report.stat().st_mode & 0o077 == 0  # readable by the user only


def test_no_crash_report_possible_still_one_line_exit_3(
    evil_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "cache-is-a-file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))

    def broken(args: Any) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(cmd_check, "run", broken)
    code, out, err = run(capsys, "check", str(evil_file))
    assert code == 3 and out == ""
    assert err.startswith("modeller: internal error: RuntimeError: boom — no crash report could be written (")
    assert len(err.splitlines()) == 1


def test_help_documents_exit_code_3(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "3 internal error" in out


@pytest.mark.parametrize("where", ["root", "layout", "enum"])
def test_a_10_mb_key_or_value_is_cut_in_the_message(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = "K" * 10_000_000 + "\x1b[2J"
    data = json.loads(json.dumps(PROJECT))
    if where == "root":
        data[huge] = 1
    elif where == "layout":
        data["layout"] = {huge: {"x": 1, "y": 2}}
    else:
        data["relationships"][0]["cardinality"] = huge
    path = tmp_path / "huge.modeller.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, _out, err = run(capsys, "validate", str(path))
    assert code == 2
    first = err.splitlines()[0]
    assert first.startswith(f"{path}:") and "KKKKKKKKKK" in first
    assert len(err) < 3000 and unsafe_characters(err) == []


def test_a_terminal_that_cannot_show_a_name_gets_escapes_not_a_crash(evil_file: Path) -> None:
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    done = subprocess.run(
        [sys.executable, "-m", "modeller", "design", str(evil_file)], capture_output=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode("ascii")  # every byte is ASCII: the em dash and the names became \\u escapes
    assert "collection person_" in out and "\\u202e" in out and "internal error" not in done.stderr.decode()


def test_an_exception_that_cannot_even_print_itself_is_still_one_line(
    evil_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no str")

    def broken(args: Any) -> int:
        raise Unprintable

    monkeypatch.setattr(cmd_check, "run", broken)
    code, out, err = run(capsys, "check", str(evil_file))
    assert code == 3 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("modeller: internal error: Unprintable: (the error message could not be read) — details in ")
