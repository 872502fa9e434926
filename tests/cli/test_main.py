"""The ``modeller`` dispatcher: --version, --help for everything, usage errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

from modeller import __version__
from modeller.cli.main import COMMANDS, build_parser, main


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"modeller {__version__}\n"


def test_top_level_help_lists_every_command_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert name in out
    assert "exit codes: 0 fine" in out and "2 bad input" in out


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: modeller {command}")
    assert "exit codes" in out


def test_validate_and_fmt_are_registered() -> None:
    assert COMMANDS["validate"] == "modeller.cli.cmd_validate"
    assert COMMANDS["fmt"] == "modeller.cli.cmd_fmt"
    choices = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert {"validate", "fmt"} <= set(choices)


def test_fmt_help_mentions_check(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["fmt", "--help"])
    assert "--check" in capsys.readouterr().out


def test_missing_file_argument_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["validate"])
    assert info.value.code == 2
    assert "the following arguments are required: FILE" in capsys.readouterr().err


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    assert capsys.readouterr().out.startswith("usage: modeller")


def test_program_version_in_a_subprocess() -> None:
    done = subprocess.run([sys.executable, "-m", "modeller", "--version"], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, f"modeller {__version__}")
