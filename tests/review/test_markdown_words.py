"""``diff --format markdown`` reads as words: arrows are arrows (not ``-&gt;``; ``<`` and ``>`` of a type stay escaped for safety), counts have proper plurals."""

from __future__ import annotations

import json
from pathlib import Path

from modeller.cli.main import main

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def test_the_markdown_diff_shows_arrows_and_plurals(tmp_path: Path, capsys) -> None:
    data = json.loads((SAMPLES / "blog.modeller.json").read_text(encoding="utf-8"))
    data["relationships"][0]["strategy"] = "two-way"
    new = tmp_path / "new.modeller.json"
    new.write_text(json.dumps(data), encoding="utf-8")
    main(["diff", "--format", "markdown", str(SAMPLES / "blog.modeller.json"), str(new)])
    out = capsys.readouterr().out
    assert "-&gt;" not in out and "(s)" not in out
    assert '`strategy-changed` "User → Post": extended-ref → two-way' in out
    # author_id appears (the extended reference kept the id only in author._id): a fourth breaking change
    assert "schema changes in 2 collections, 4 breaking, 3 findings appear or disappear**" in out
