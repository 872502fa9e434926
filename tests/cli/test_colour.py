"""``--color auto|always|never`` and ``NO_COLOR`` decide whether ``check`` and ``design`` colour their text."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from modeller.cli.main import main
from modeller.cli.output import use_colour

BLOG = str(Path(__file__).resolve().parents[2] / "samples" / "blog.modeller.json")
ESC = "\x1b["


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_auto_colours_a_terminal_only() -> None:
    assert use_colour("auto", Terminal(), environ={})
    assert not use_colour("auto", io.StringIO(), environ={})


@pytest.mark.parametrize("value", ["1", "true", "0"])  # any non-empty value, even "0" (no-color.org)
def test_no_color_turns_auto_off(value: str) -> None:
    assert not use_colour("auto", Terminal(), environ={"NO_COLOR": value})


def test_empty_no_color_is_not_set() -> None:
    assert use_colour("auto", Terminal(), environ={"NO_COLOR": ""})


def test_explicit_mode_wins_over_terminal_and_no_color() -> None:
    assert use_colour("always", io.StringIO(), environ={"NO_COLOR": "1"})
    assert not use_colour("never", Terminal(), environ={})


@pytest.mark.parametrize("command", ["check", "design"])
def test_color_option_reaches_the_output(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    main([command, BLOG, "--color", "always"])
    coloured = capsys.readouterr().out
    main([command, BLOG, "--color", "never"])
    plain = capsys.readouterr().out
    assert ESC in coloured
    assert ESC not in plain
    assert plain.splitlines()[0] in coloured


def test_no_color_env_reaches_check_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    for no_color, expect_colour in (("", True), ("1", False)):
        terminal = Terminal()
        monkeypatch.setattr("sys.stdout", terminal)
        monkeypatch.setenv("NO_COLOR", no_color)
        main(["check", BLOG])
        assert (ESC in terminal.getvalue()) is expect_colour
