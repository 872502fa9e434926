"""resources/schema/project.schema.json is generated from the models and must not go stale."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from modeller.persistence.schema import REGENERATE, SCHEMA_PATH, main, schema_text

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "samples").glob("*.modeller.json"))


def test_schema_file_is_up_to_date() -> None:
    on_disk = SCHEMA_PATH.read_text(encoding="utf-8") if SCHEMA_PATH.exists() else ""
    assert on_disk == schema_text(), f"{SCHEMA_PATH} is stale; regenerate it with: {REGENERATE}"


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_samples_match_the_schema(sample: Path, validator: jsonschema.Draft202012Validator) -> None:
    errors = [e.message for e in validator.iter_errors(json.loads(sample.read_text(encoding="utf-8")))]
    assert errors == []


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"format_version": 1}, "2 was expected"),
        ({"format": "other"}, "'mongo-schema-modeller' was expected"),
        ({"entities": [{"id": "a", "name": "A", "fields": [], "feilds": []}]}, "'feilds' was unexpected"),
        ({"relationships": [{"id": "r", "one": "a", "many": "b", "cardinality": "lots"}]}, "'lots' is not one of"),
    ],
)
def test_schema_refuses_what_the_loader_refuses(
    validator: jsonschema.Draft202012Validator, change: dict[str, Any], fragment: str
) -> None:
    data = {"format": "mongo-schema-modeller", "format_version": 1, "name": "P", **change}
    messages = [e.message for e in validator.iter_errors(data)]
    assert any(fragment in m for m in messages), messages


def test_schema_documents_the_additions() -> None:
    schema = json.loads(schema_text())
    assert "inverse" in schema["$defs"]["Relationship"]["properties"]
    assert "bucket_size" in schema["$defs"]["TimeSeries"]["properties"]
    assert "overrides" in schema["properties"]


def test_check_mode_reports_stale_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "schema.json"
    out.write_text("{}\n")
    assert main(["--check", "--out", str(out)]) == 1
    assert REGENERATE in capsys.readouterr().err
    assert main(["--out", str(out)]) == 0
    assert main(["--check", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == schema_text()
