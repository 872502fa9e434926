"""Tryout item 10: `export --help` named only some `--only` kinds, and README's command list left out
`--with-samples` (the export dialog's "Insert the sample documents")."""

from __future__ import annotations

from pathlib import Path

import pytest

from modeller.cli.cmd_export import KINDS_TEXT
from modeller.cli.main import main
from modeller.export import KINDS

README = Path(__file__).resolve().parents[2] / "README.md"


def test_export_help_names_every_kind(capsys: pytest.CaptureFixture[str]) -> None:
    assert ", ".join(KINDS) == KINDS_TEXT
    with pytest.raises(SystemExit) as exit_:
        main(["export", "--help"])
    assert exit_.value.code == 0
    help_text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    for kind in KINDS:
        assert kind in help_text
    assert "pydantic, typescript" in help_text


def test_readme_command_list_has_every_export_option() -> None:
    text = README.read_text(encoding="utf-8")
    block = text[text.index("## Command line") :]
    block = block[: block.index("```", block.index("```") + 3)]
    export = block[block.index("modeller export") : block.index("modeller diff")]
    for option in ("--only", "--samples", "--seed", "--with-samples", "--with-sharding", "--no-render"):
        assert option in export, option
