"""'The numbers' of a finding read as a person writes them: shares in percent, periods in days, candidates as lines."""

from __future__ import annotations

from pathlib import Path

from modeller.persistence import load_project
from modeller.rules import analyse
from modeller.rules.framework.findings import Finding, SubjectRef
from modeller.ui.panels.finding_item import detail_html, figure_text

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _numbers_table(html: str) -> str:
    start = html.index("The numbers.")
    return html[start : html.index("</table>", start)]


def _shard_summaries(project) -> list[Finding]:
    found = [f for f in analyse(project).findings if f.rule == "shard-key-distribution" and "candidates" in f.numbers]
    assert found
    return found


def test_shard_key_candidates_read_as_short_lines_not_python_values() -> None:
    project = load_project(SAMPLES / "saas-sharded.modeller.json")
    table = _numbers_table(detail_html(_shard_summaries(project)[0], project))
    assert "{tenant_id: 1} — score 1.00, targets 100% of queries<br>" in table
    assert "{_id: &quot;hashed&quot;} — score 0.60" in table
    assert "&#x27;key&#x27;" not in table and "scores" not in table and "[" not in table
    assert "<b>100%</b>" in table  # the targeted share, not "1"
    assert "<td style='padding-right:12px' valign='top'>shards</td><td align='right'><b>4</b>" in table


def test_an_unsharded_project_shows_no_shard_count_it_never_gave() -> None:
    sharded = load_project(SAMPLES / "saas-sharded.modeller.json")
    project = sharded.model_copy(update={"sharded": False, "shards": None})
    for finding in _shard_summaries(project):
        assert "shards" not in finding.numbers
        assert ">shards<" not in _numbers_table(detail_html(finding, project))


def test_periods_and_shares_are_said_in_the_units_people_use() -> None:
    assert figure_text("expire_after_s", 7_776_000) == "90 days"
    assert figure_text("interval_s", 10) == "10 seconds"
    assert figure_text("reads_per_s", 3_000) == "3,000"  # a rate, not a period
    assert figure_text("top_share", 0.0005) == "0.05%"
    assert figure_text("targeted_share", 0.75) == "75%"
    assert figure_text("documents", 1_500_000) == "1,500,000"
    finding = Finding(
        rule="shard-key-distribution",
        severity="warning",
        subject=SubjectRef("entity", "x"),
        message="one value holds too much",
        why="",
        tradeoff="",
        reference="",
        numbers={"top_share": 0.42, "limit": 0.3, "expire_after_s": 86_400},
    )
    project = load_project(SAMPLES / "saas-sharded.modeller.json")
    table = _numbers_table(detail_html(finding, project))
    assert "<b>42%</b>" in table and "<b>30%</b>" in table  # the limit in the unit of the share before it
    assert ">expire after<" in table and "<b>1 day</b>" in table
