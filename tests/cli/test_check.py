"""``modeller check``: DESIGN.md's JSON shape, the --fail-on exit codes, readable text, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from model_edits import changed

from modeller.cli.cmd_check import render_text
from modeller.cli.main import main
from modeller.model.text import neutralize
from modeller.persistence import dumps_project, load_project
from modeller.rules import analyse
from modeller.rules.framework.sections import count_sections, said_summary, section_of

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
KEYS = {"rule", "severity", "subject", "message", "why", "reference", "fix", "decision", "also", "decided"}


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_findings_have_the_contract_keys(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = check(capsys, str(SAMPLES / "ecommerce.modeller.json"), "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["findings"]
    # the ESR index of active_orders_of_user is one decision: one finding, the reference rule first
    esr = next(f for f in data["findings"] if "esr-compound-index" in f["also"])
    assert set(esr) >= KEYS
    assert esr["rule"] == "index-reference-fields" and esr["subject"] == {"kind": "entity", "id": "order"}
    assert esr["decision"] == {"kind": "index", "id": "orders#user._id_1_status_1_created_at_-1_amount_1"}
    assert esr["decided"] is True
    assert not any(
        f["rule"] == "esr-compound-index" and f["subject"]["id"] == "active_orders_of_user" for f in data["findings"]
    )
    assert esr["fix"] is None  # the design creates the index: nothing for the user to add
    phones = next(f for f in data["findings"] if f["rule"] == "esr-compound-index")
    assert phones["subject"] == {"kind": "query", "id": "phones_with_ram"}
    assert phones["fix"]["changes"][0] == {
        "op": "append",
        "subject": {"kind": "entity", "id": "product"},
        "key": "indexes",
        "value": {"keys": [["type", 1], ["specs.ram", 1]]},
    }
    assert all(f["severity"] in ("info", "suggestion", "warning", "error") for f in data["findings"])


@pytest.mark.parametrize(("level", "expected"), [("error", 0), ("warning", 1), ("suggestion", 1), ("info", 1)])
def test_fail_on_levels(capsys: pytest.CaptureFixture[str], tmp_path: Path, level: str, expected: int) -> None:
    # reviews kept as an array of ids in each product: an unbounded array (warning), no error
    project = load_project(SAMPLES / "ecommerce.modeller.json")
    project = changed(
        project, next(r for r in project.relationships if r.id == "product_reviews"), strategy="child-refs"
    )
    path = tmp_path / "warned.modeller.json"
    path.write_text(dumps_project(project), encoding="utf-8")
    code, out, _ = check(capsys, str(path), "--fail-on", level, "--format", "json")
    assert [
        (f["rule"], f["severity"]) for f in json.loads(out)["findings"] if f["severity"] in ("warning", "error")
    ] == [("unbounded-array", "warning")]
    assert code == expected


def test_seed_samples_pass_fail_on_warning(capsys: pytest.CaptureFixture[str]) -> None:
    # the samples are the seeds' recommended designs: nothing at warning level or above
    for path in sorted(SAMPLES.glob("*.modeller.json")):
        code, _, _ = check(capsys, str(path), "--fail-on", "warning")
        assert code == 0, path.name


def _embedded_squillions(tmp_path: Path) -> Path:
    project = load_project(SAMPLES / "host-logs.modeller.json")
    project = changed(project, project.relationships[0], strategy="embed")
    path = tmp_path / "bad.modeller.json"
    path.write_text(dumps_project(project), encoding="utf-8")
    return path


def test_error_finding_fails_by_default_and_overrides_do_not(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _embedded_squillions(tmp_path)
    code, out, _ = check(capsys, str(path))
    assert code == 1 and "ERROR unbounded-array" in out and "16 MiB" in out
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    data["relationships"][0]["decision"] = {"strategy": "embed", "note": "demo only, never more than 100 lines"}
    data["overrides"] = [
        {
            "rule": "document-size-and-nesting",
            "subject": {"kind": "entity", "id": "host"},
            "note": "demo only, never more than 100 lines",
        }
    ]
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, _ = check(capsys, str(path), "--format", "json")
    assert code == 0
    overridden = [f for f in json.loads(out)["findings"] if f["overridden"]]
    assert overridden and all(f["note"] == "demo only, never more than 100 lines" for f in overridden)


def test_text_groups_by_subject_with_reason_and_reference(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = check(capsys, str(SAMPLES / "person-addresses.modeller.json"))
    assert code == 0
    assert out.startswith("relationship Person → Address\n  SUGGESTION embed-one-to-few: embed — each Person")
    assert "fix: embed the Addresses in their Person\n" in out and "person_addresses" not in out
    assert "(embed-one-to-few)" not in out  # a fix says what the documents hold, not a rule id
    assert "      why: a handful of Addresses per Person, never needed on their own" in out
    assert "      reference: W. Zola, 6 Rules of Thumb" in out
    assert "\033[" not in out  # captured output is not a terminal: no colour
    # the engine's own choice, which the design already holds: a decision, as the panel files it
    assert out.rstrip().endswith("\n1 finding: no errors or warnings; 1 decision already in the design")


def test_text_colour_only_when_asked_and_control_characters_escaped() -> None:
    from modeller.rules.framework.findings import Finding, SubjectRef

    f = Finding("unbounded-array", "error", SubjectRef("relationship", "r\x1b[2J"), "m\nx", "w", "t", "[X] ref")
    plain = render_text([f], colour=False)
    assert "\x1b" not in plain and "r\\x1b[2J" in plain and "m\\nx" in plain
    assert "\033[31;1mERROR\033[0m" in render_text([f], colour=True)


@pytest.mark.parametrize("content", [None, "{not json", '{"format": "mongo-schema-modeller", "format_version": 99}'])
def test_bad_input_exits_2_with_one_message(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str | None
) -> None:
    path = tmp_path / "p.modeller.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    code, out, err = check(capsys, str(path))
    assert code == 2 and out == ""
    assert err.startswith("modeller: error: ") and str(path) in err and "Traceback" not in err


def test_text_summary_counts_in_the_singular_and_the_plural() -> None:
    findings = analyse(load_project(SAMPLES / "ecommerce.modeller.json")).findings
    one = findings[0]
    assert (one.severity, one.decided) == ("suggestion", True)
    last_of_one = render_text([one], colour=False).splitlines()[-1]
    assert last_of_one == "1 finding: no errors or warnings; 1 decision already in the design"
    last = render_text(findings, colour=False).splitlines()[-1]
    decisions = sum(1 for f in findings if section_of(f) == "decisions")
    assert decisions == len(findings)
    assert last == f"{len(findings)} findings: no errors or warnings; {decisions} decisions already in the design"


def test_text_counts_as_the_panel_does_in_its_words() -> None:
    """One counting: ``check`` ends with the panel's counts (tryout item 9), said plainly under SUGGESTION lines: no
    "Nothing to do" after suggestions (tryout a14 item 11)."""
    findings = analyse(load_project(SAMPLES / "blog.modeller.json")).findings
    last = render_text(findings, colour=False).splitlines()[-1]
    todo, decisions = count_sections(findings)
    assert last == f"{len(findings)} findings: {said_summary(todo, decisions)}"
    assert (
        " info" not in last and "Nothing to do" not in last and f"{decisions} decisions already in the design" in last
    )


def test_the_summary_says_what_is_wrong_what_to_do_and_what_is_done() -> None:
    assert said_summary({}, 9) == "no errors or warnings; 9 decisions already in the design"
    assert said_summary({"suggestion": 2}, 1) == (
        "no errors or warnings; to do: 2 suggestions; 1 decision already in the design"
    )
    assert said_summary({"error": 1, "warning": 2, "suggestion": 3}, 0) == (
        "to do: 1 error · 2 warnings · 3 suggestions"
    )


def test_text_prints_each_why_trade_off_and_reference_once(capsys: pytest.CaptureFixture[str]) -> None:
    """The same paragraphs under every finding of one rule made a check of five collections 114 lines long:
    each is printed once, later findings point back to it (tryout item 9)."""
    findings = analyse(load_project(SAMPLES / "ecommerce.modeller.json")).findings
    out = render_text(findings, colour=False)
    paragraphs = [line.strip() for line in out.splitlines() if line.startswith("      ")]
    said = [p for p in paragraphs if p.startswith(("why: ", "trade-off: ", "reference: ")) and " above" not in p]
    assert said and len(said) == len(set(said)), [p for p in said if said.count(p) > 1][:3]
    pointers = [p for p in paragraphs if p.endswith(" above")]
    assert pointers and all(" as for " in p for p in pointers)
    # every paragraph of every finding is still there, printed or pointed at
    for f in findings:
        for text in (f.why, f.tradeoff, f.reference):
            assert not text or neutralize(text) in out


def test_a_query_group_names_its_query_once(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = check(capsys, str(SAMPLES / "ecommerce.modeller.json"))
    lines = out.splitlines()
    heading = lines.index("query 'All products of a brand, whatever their type'")
    message = lines[heading + 1]
    assert message.startswith("  SUGGESTION index-hot-queries: this hot-path query (50/s) needs {brand: 1}")
    assert "All products of a brand" not in "\n".join(lines[heading + 1 : lines.index("", heading)])


UNNAMED: dict[str, Any] = {
    "format": "mongo-schema-modeller",
    "format_version": 2,
    "name": "Shop",
    "entities": [
        {
            "id": "order",
            "name": "Orders",
            "collection": "orders",
            "count": 1_000_000,
            "fields": [{"name": "status", "type": "string"}, {"name": "created", "type": "date"}],
        }
    ],
    "queries": [
        {"id": "q_a", "entity": "order", "filter": {"status": "eq"}, "sort": [["created", -1]], "per_sec": 50},
        # the same fields, read another way: without a number both would be "query on Orders by status, created"
        {"id": "q_b", "entity": "order", "filter": {"status": "regex"}, "sort": [["created", 1]], "per_sec": 40},
    ],
}


def test_unnamed_queries_on_the_same_fields_read_apart(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "shop.modeller.json"
    path.write_text(json.dumps(UNNAMED))
    _, out, _ = check(capsys, str(path), "--format", "json")
    said = {f["subject"]["id"]: f["message"] for f in json.loads(out)["findings"] if f["subject"]["kind"] == "query"}
    assert said["q_a"].startswith("an index for query 1 on Orders by status, created: ")
    assert said["q_b"].startswith("an index for query 2 on Orders by status, created: ")
    _, text, _ = check(capsys, str(path))
    headings = [line for line in text.splitlines() if line.startswith("query ")]
    assert headings == ["query 1 on Orders by status, created", "query 2 on Orders by status, created"]
    assert "q_a" not in text and "q_b" not in text and text.count("on Orders by") == 2  # each said once


def test_the_other_rules_of_one_decision_are_named_in_words_under_it(capsys: pytest.CaptureFixture[str]) -> None:
    """Tryout a14 item 11: "(also: esr-compound-index)" in the headline was a rule id where a sentence goes."""
    _code, out, _ = check(capsys, str(SAMPLES / "ecommerce.modeller.json"))
    assert "(also:" not in out
    assert "  SUGGESTION index-reference-fields: " in out
    assert "\n      same advice: Order a compound index Equality, Sort, Range (esr-compound-index)\n" in out
