"""``modeller design``: the DESIGN.md JSON shape and a readable text view."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from modeller.cli.main import main

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
COLLECTION_KEYS = {"name", "entities", "shape", "indexes", "validator", "timeseries", "shard_key"}
INDEX_KEYS = {"keys", "name", "unique", "expire_after_s", "partial", "collation", "why"}
REL_KEYS = {"id", "strategy", "chosen_by", "rules", "denormalized", "why"}


def design(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["design", *args])
    out, _ = capsys.readouterr()
    return code, out


def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = design(capsys, str(SAMPLES / "host-logs.modeller.json"), "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["collections", "relationships"]
    logmsg = next(c for c in data["collections"] if c["name"] == "logmsg")
    assert set(logmsg) >= COLLECTION_KEYS
    idx = next(i for i in logmsg["indexes"] if i["keys"] == [["host_id", 1], ["time", -1]])
    assert set(idx) >= INDEX_KEYS and "Equality" in idx["key_reasons"][0]
    assert logmsg["validator"]["$jsonSchema"]["required"][:3] == ["_id", "time", "message"]
    (rel,) = data["relationships"]
    assert set(rel) >= REL_KEYS
    assert rel["strategy"] == "subset" and rel["chosen_by"] == "engine"
    assert {d["path"] for d in rel["denormalized"]} == {"ipaddr", "recent_logmsgs.time", "recent_logmsgs.message"}


def test_text_view(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = design(capsys, str(SAMPLES / "iot-sensors.modeller.json"))
    assert code == 0
    assert "collection sensor_data  (reading)" in out
    assert "readings: array  (bucket-items, required, maxItems 60)" in out
    assert "{sensor_id: 1, start: -1}  [engine]" in out
    assert "relationship sensor_readings: bucket (chosen by engine;" in out


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["design", str(tmp_path / "nope.modeller.json")])
    _, err = capsys.readouterr()
    assert code == 2 and "nope.modeller.json" in err
