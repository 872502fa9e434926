"""The advice never promises an index the design leaves out (tryout item 3).

Over every sample (and a shop with a many-to-many, where no query reads the arrays): the advice a user reads about a
relationship (findings, the design's why, DESIGN.md) says whether each reference is indexed, naming the index, and
that index is one the export creates (``indexes.mongosh.js``); a reference it calls not indexed has no index leading
with it; and no text promises an index in general words ("and index it", "each indexed").
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_cases import build

from modeller.export.mongosh import indexes_script
from modeller.export.report import design_report
from modeller.model.project import Project
from modeller.persistence import load_project
from modeller.rules import analyse
from modeller.rules.framework.analysis import Analysis
from modeller.rules.physical.naming import keys_text

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
#: words that promise an index without naming it
PROMISES = ("and index it", "each indexed", "indexed reference", "second, indexed query", ", indexed with the sort")
INDEXED = re.compile(r"(\S+) in (\S+) is indexed \((\{[^}]+\})\)")
NOT_INDEXED = re.compile(r"(\S+) in (\S+) is not indexed")


def _shop() -> Project:
    return build(
        {
            "database": "shop",
            "entities": [
                {"id": "category", "name": "Category", "fields": [{"name": "title", "type": "string"}]},
                {"id": "product", "name": "Product", "fields": [{"name": "title", "type": "string"}]},
            ],
            "relationships": [
                {"id": "cp", "one": "category", "many": "product", "cardinality": "many-to-many", "max": 10}
            ],
            "queries": [{"id": "q", "entity": "product", "filter": {"title": "eq"}}],
        }
    )


def _texts(analysis: Analysis, project: Project) -> list[str]:
    out = [
        analysis_text
        for f in analysis.findings
        if f.subject.kind == "relationship"
        for analysis_text in (f.message, f.why or "", f.tradeoff or "")
    ]
    out += [t for r in analysis.design.relationships for t in (r.why, r.tradeoff)]
    out.append(design_report(analysis.design, project, analysis.findings).replace("\\", ""))  # markdown escapes
    return out


def _cases() -> list[tuple[str, Project]]:
    return [(p.name.split(".")[0], load_project(p)) for p in sorted(SAMPLES.glob("*.modeller.json"))] + [
        ("many-to-many shop", _shop())
    ]


@pytest.mark.parametrize(("name", "project"), _cases(), ids=[c[0] for c in _cases()])
def test_each_index_the_advice_names_is_created_and_none_is_promised_in_general(name: str, project: Project) -> None:
    analysis = analyse(project)
    script = indexes_script(analysis.design, project, analysis.findings)
    colls = {c.name: c for c in analysis.design.collections}
    texts = _texts(analysis, project)
    for text in texts:
        for words in PROMISES:
            assert words not in text, f"{name}: '{words}' promises an index: {text[:300]}"
    named = [m.groups() for text in texts for m in INDEXED.finditer(text)]
    for path, coll, keys in named:  # the keys in the user's field names, never the generated index name
        index = next((i for i in colls[coll].indexes if keys_text(i.keys) == keys), None)
        assert index is not None and index.keys[0][0] == path, f"{name}: {coll} has no index {keys} on {path}"
        assert f'"name": "{index.name}"' in script, f"{name}: the export does not create {keys}"
    for path, coll in (m.groups() for text in texts for m in NOT_INDEXED.finditer(text)):
        assert all(i.keys[0][0] != path for i in colls[coll].indexes), f"{name}: {path} in {coll} is indexed"
    for copy in (c for r in analysis.design.relationships for c in r.denormalized):
        found = re.search(r"by the index (\{[^}]+\})$", copy.sync_advice)
        leading = [
            keys_text(i.keys)
            for i in colls[copy.collection].indexes
            if copy.update and i.keys[0][0] == copy.update.filter_path
        ]
        if found is not None:
            assert found.group(1) in leading, f"{name}: the sync of {copy.path} names {found.group(1)}"
        if " is not indexed: " in copy.sync_advice:
            assert not leading, f"{name}: the sync of {copy.path} says it scans, but {leading} serve it"


def test_the_shop_ecommerce_and_product_parts_say_which_references_are_not_indexed() -> None:
    shop = analyse(_shop())
    rel = shop.design.relationships[0]
    assert rel.strategy == "two-way"
    assert "category_ids in product is not indexed" in rel.why and "product_ids in category is not indexed" in rel.why
    ecommerce = analyse(load_project(SAMPLES / "ecommerce.modeller.json"))
    why = {r.id: r.why for r in ecommerce.design.relationships}
    assert "product_id in reviews is not indexed" in why["product_reviews"]
    assert "items.product_id in orders is indexed ({items.product_id: 1})" in why["product_order_items"]
    parts = analyse(load_project(SAMPLES / "product-parts.modeller.json")).design
    copy = next(c for r in parts.relationships for c in r.denormalized if c.path == "parts.name")
    assert copy.sync_advice.endswith(
        "; parts.id is not indexed: Part.name changes rarely enough that scanning products on each change costs less "
        "than keeping an index"
    )
    blog = {r.id: r.why for r in analyse(load_project(SAMPLES / "blog.modeller.json")).design.relationships}
    assert blog["user_comments"].endswith("comments.user._id in posts is indexed ({comments.user._id: 1})")
