"""``modeller check --rule ID --severity LEVEL --summary``: a check of 10,000 entities printed 180,499 lines
(issue 16); the filters keep a part, and the exit code looks at that part alone; the summary gives the counts."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from model_edits import changed

from modeller.cli.main import main
from modeller.persistence import dumps_project, load_project

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
ECOMMERCE = str(SAMPLES / "ecommerce.modeller.json")


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def findings(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    code, out, err = check(capsys, *args, "--format", "json")
    assert err == "" and code == 0
    return json.loads(out)["findings"]


@pytest.fixture
def warned(tmp_path: Path) -> str:
    """The ecommerce sample with reviews kept as an array of ids in each product: one warning (unbounded-array)."""
    project = load_project(SAMPLES / "ecommerce.modeller.json")
    project = changed(
        project, next(r for r in project.relationships if r.id == "product_reviews"), strategy="child-refs"
    )
    path = tmp_path / "warned.modeller.json"
    path.write_text(dumps_project(project), encoding="utf-8")
    return str(path)


def test_rule_keeps_its_findings_and_those_naming_it_as_the_same_advice(capsys: pytest.CaptureFixture[str]) -> None:
    every = findings(capsys, ECOMMERCE)
    esr = findings(capsys, ECOMMERCE, "--rule", "esr-compound-index")
    assert esr == [f for f in every if f["rule"] == "esr-compound-index" or "esr-compound-index" in f["also"]]
    assert {f["rule"] for f in esr} == {"esr-compound-index", "index-reference-fields"}  # one merged under another
    two = findings(capsys, ECOMMERCE, "--rule", "esr-compound-index", "--rule", "embed-one-to-few")
    assert two == [f for f in every if f in esr or f["rule"] == "embed-one-to-few"] and len(two) > len(esr)


def test_rule_takes_a_code_and_severity_a_list(capsys: pytest.CaptureFixture[str]) -> None:
    from modeller.rules import load_rules
    from modeller.rules.framework.registry import REGISTRY

    load_rules()
    code = REGISTRY.get("embed-one-to-few").code
    assert findings(capsys, ECOMMERCE, "--rule", code) == findings(capsys, ECOMMERCE, "--rule", "embed-one-to-few")
    every = findings(capsys, ECOMMERCE)
    infos = findings(capsys, ECOMMERCE, "--severity", "info")
    assert infos == [f for f in every if f["severity"] == "info"] and infos
    both = findings(capsys, ECOMMERCE, "--severity", "INFO,suggestion")
    assert both == findings(capsys, ECOMMERCE, "--severity", "info", "--severity", "suggestion") == every


def test_the_exit_code_looks_at_the_findings_kept(capsys: pytest.CaptureFixture[str], warned: str) -> None:
    assert check(capsys, warned, "--fail-on", "warning")[0] == 1
    assert check(capsys, warned, "--fail-on", "warning", "--rule", "unbounded-array")[0] == 1
    assert check(capsys, warned, "--fail-on", "warning", "--rule", "embed-one-to-few")[0] == 0
    assert check(capsys, warned, "--fail-on", "warning", "--severity", "info,suggestion")[0] == 0
    assert check(capsys, warned, "--fail-on", "warning", "--summary")[0] == 1  # the counts: the same exit code
    code, out, _ = check(capsys, warned, "--fail-on", "warning", "--severity", "error")
    assert code == 0
    total = len(findings(capsys, warned))
    assert out == f"no findings\nshown: 0 of {total:,} findings (--severity error)\n"


def test_a_filtered_text_check_says_what_it_left_out(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = check(capsys, ECOMMERCE, "--rule", "embed-one-to-few", "--severity", "warning,suggestion")
    assert code == 0
    kept = findings(capsys, ECOMMERCE, "--rule", "embed-one-to-few", "--severity", "warning,suggestion")
    total = len(findings(capsys, ECOMMERCE))
    lines = out.splitlines()
    assert (
        lines[-1] == f"shown: {len(kept)} of {total} findings (--rule embed-one-to-few; --severity suggestion, warning)"
    )
    assert lines[-2].startswith(f"{len(kept)} finding")
    assert "embed-one-to-few" in out and "esr-compound-index" not in out


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (
            ["--rule", "no-such-rule"],
            "modeller: error: --rule: no rule 'no-such-rule'; run 'modeller rules' for the list",
        ),
        (
            ["--severity", "warning,fatal"],
            "modeller: error: --severity: no severity 'fatal'; use one of info, suggestion, warning, error",
        ),
        (
            ["--summary", "--format", "sarif"],
            "modeller: error: --summary counts the findings in the text or json format; SARIF lists each result",
        ),
    ],
)
def test_bad_filters_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], args: list[str], problem: str) -> None:
    code, out, err = check(capsys, ECOMMERCE, *args)
    assert (code, out, err) == (2, "", problem + "\n")


def test_summary_counts_per_rule_and_severity_and_ends_as_a_check_does(
    capsys: pytest.CaptureFixture[str], warned: str
) -> None:
    every = findings(capsys, warned)
    _code, full, _ = check(capsys, warned)
    code, out, _ = check(capsys, warned, "--summary")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "findings by rule:" and lines[-1] == full.splitlines()[-1]
    rows = [line.split() for line in lines[1:-1]]
    assert Counter({(sev.lower(), rule): int(n) for sev, n, rule in rows}) == Counter(
        (f["severity"], f["rule"]) for f in every
    )
    assert rows[0] == ["WARNING", "1", "unbounded-array"]  # most severe first
    assert len(lines) < len(full.splitlines()) / 3
    data = json.loads(check(capsys, warned, "--summary", "--format", "json")[1])["summary"]
    assert data["findings"] == len(every) and data["overridden"] == sum(f["overridden"] for f in every)
    assert data["by_severity"] == dict(Counter(f["severity"] for f in every))
    assert {(r["severity"], r["rule"]): r["count"] for r in data["by_rule"]} == dict(
        Counter((f["severity"], f["rule"]) for f in every)
    )
    assert next(iter(data["by_severity"])) == "warning"


def test_sarif_lists_the_kept_results_and_several_files_each_count(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = check(capsys, ECOMMERCE, "--format", "sarif", "--severity", "info")
    results = json.loads(out)["runs"][0]["results"]
    infos = findings(capsys, ECOMMERCE, "--severity", "info")
    assert code == 0 and [r["ruleId"] for r in results] == [f["rule"] for f in infos] and results
    blog = str(SAMPLES / "blog.modeller.json")
    code, out, _ = check(capsys, ECOMMERCE, blog, "--summary")
    assert code == 0
    assert out.count("findings by rule:") == 2 and out.splitlines()[0].endswith("ecommerce.modeller.json:")
