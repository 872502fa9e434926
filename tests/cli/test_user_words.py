"""Issue 15: only the user's words reach the user — no catalog shorthand ("Zola-2", "CN seed", "ER-seed"),
model keys (``many_standalone``), generated ids, seed file paths or raw reST backticks in what the CLI
prints, what export writes, the rule reference, or the recommendations panel — on every sample."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from modeller.cli.main import main
from modeller.persistence import load_project
from modeller.rules.engine import analyse
from modeller.rules.framework.references import SOURCES, plain

SAMPLES = sorted(Path(__file__).resolve().parents[2].joinpath("samples").glob("*.modeller.json"))

#: internal words: each pattern must never match user-facing text
INTERNAL = {
    "source key": re.compile(
        r"\b(?:Zola-[0-9]|ER-seed|CN seed|Manual-[A-Za-z]|AP-[a-z]|BwP-[a-z]|Atlas-PA)|\[CN\]|\(CN\)"
    ),
    "seed path": re.compile(r"<?seeds/\d+|shared/seeds"),
    "seed or scenario number": re.compile(r"\bSeed \d{3}\b|\(Zola parts?\b|\bSD\d\d\b"),
    "file not in the repository": re.compile(r"RULES\.md"),
    "model key": re.compile(r"\bmany_standalone\b"),
    "generated id": re.compile(r"\bentity_(?:entity_)?\d+\b"),
    "raw reST code": re.compile(r"(?<!`)``(?!`)"),
    # tryout a14 item 11: a part of a series, an engine default and a repository path are not how people cite
    "engine jargon": re.compile(r"\(\d of \d\)|\bengine \d"),
    "repository path as a title": re.compile(r"mongodb/agent-skills,|\(mongodb-js/"),
}


def leaks(text: str) -> list[str]:
    return [
        f"{what}: {m.group(0)!r} in …{text[max(0, m.start() - 40) : m.end() + 40]}…"
        for what, pattern in INTERNAL.items()
        for m in pattern.finditer(text)
    ]


def test_the_word_list_catches_what_it_is_for() -> None:
    assert leaks("as the CN seed says (Zola-2), see <seeds/002> and RULES.md; ``code``; entity_entity_2")
    assert len(leaks("Seed 002 (Zola parts 1-2): expected advice SD12")) == 3
    assert len(leaks("``x``")) == 2 and not leaks("```js\nfence\n```")
    assert len(leaks("(Zola's 6 Rules of Thumb (3 of 3), engine 2,000)")) == 2
    assert leaks("MongoDB Compass performance insights (mongodb-js/compass)")
    assert plain("Zola-3 adds: x; [CN] seed; the ER-seed") == (
        "Zola's 6 Rules of Thumb, part 3 adds: x; the article MongoDB Schema Design Best Practices; "
        "the article Extended Reference Pattern"
    )
    # every source is a title with a web address
    assert all(where.startswith("https://") for _title, where in SOURCES.values())


@pytest.mark.slow
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name.split(".")[0])
def test_no_internal_word_in_cli_output_or_exports(sample: Path, tmp_path: Path, capsys) -> None:
    found: list[str] = []
    for args in (["check", "--format", fmt, str(sample)] for fmt in ("text", "json", "sarif")):
        main(args)
        found += leaks(capsys.readouterr().out)
    main(["design", str(sample)])
    found += leaks(capsys.readouterr().out)
    out = tmp_path / "out"
    assert main(["export", "--no-render", "--with-samples", "--out", str(out), str(sample)]) == 0
    capsys.readouterr()
    files = [p for p in out.rglob("*") if p.is_file() and p.suffix != ".py"]  # generated Python keeps docstrings
    assert len(files) >= 6
    for path in files:
        found += [f"{path.name}: {leak}" for leak in leaks(path.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


def test_no_internal_word_in_the_rule_reference(capsys) -> None:
    main(["rules", "--markdown"])
    found = leaks(capsys.readouterr().out)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name.split(".")[0])
def test_no_internal_word_in_the_panel_texts(sample: Path) -> None:
    pytest.importorskip("PySide6")
    from modeller.ui.panels.finding_item import detail_html, subject_label

    project = load_project(sample)
    found: list[str] = []
    for finding in analyse(project).findings:
        found += leaks(subject_label(project, finding.subject) + " " + detail_html(finding, project))
    assert not found, "\n".join(found)
