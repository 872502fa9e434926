"""Tryout a15 items 7, 9 and 14: DESIGN.md and the advice say periods in days ("90 days", not "7776000 s") and a
shard count the project never gave as assumed."""

from __future__ import annotations

from pathlib import Path

from modeller.export import design_report
from modeller.persistence import load_project
from modeller.rules import analyse

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
NINETY_DAYS = 90 * 86_400


def _with_retention(native: bool):
    """The IoT sample's readings kept 90 days, in hand-made buckets (a TTL index) or a time series collection."""
    project = load_project(SAMPLES / "iot-sensors.modeller.json")
    change = {"retention_s": NINETY_DAYS, **({"bucket_size": None} if native else {})}
    entities = tuple(
        e.model_copy(update={"timeseries": e.timeseries.model_copy(update=change)}) if e.timeseries is not None else e
        for e in project.entities
    )
    return project.model_copy(update={"entities": entities})


def _report(project) -> tuple[str, list[str]]:
    analysis = analyse(project)
    messages = [f.message for f in analysis.findings if f.numbers.get("expire_after_s") == NINETY_DAYS]
    return design_report(analysis.design, project, analysis.findings), messages


def test_a_time_series_retention_reads_in_days_in_the_report_and_the_advice() -> None:
    report, messages = _report(_with_retention(native=True))
    assert "- Time-series collection: " in report and ", documents expire after 90 days." in report
    assert "7776000 s" not in report
    assert any("expires measurements after 90 days through" in m for m in messages), messages


def test_a_ttl_index_says_its_period_in_days_next_to_the_server_setting() -> None:
    report, messages = _report(_with_retention(native=False))
    assert "documents expire 90 days after end (retention)" in report
    assert "7776000 s" not in report
    assert any("with expireAfterSeconds 7776000 (90 days) on" in m for m in messages), messages


def test_the_report_says_a_shard_count_the_project_never_gave_is_assumed() -> None:
    """Tryout a15 item 7: DESIGN.md said "2 shards" for a project that gives no shard count."""
    sharded = load_project(SAMPLES / "saas-sharded.modeller.json")
    for project, expected in (
        (sharded, "; 4 shards)."),
        (sharded.model_copy(update={"shards": None}), "; 2 shards assumed: the project gives no shard count)."),
    ):
        analysis = analyse(project)
        lines = [
            line
            for line in design_report(analysis.design, project, analysis.findings).splitlines()
            if line.startswith("- Shard key: ")
        ]
        assert lines and all(line.endswith(expected) for line in lines), lines
