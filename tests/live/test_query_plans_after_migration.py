"""The NEW design's query plans find the migrated documents: run in the real mongosh against the live server.

Documents of the OLD design (each review named and tied to one product, ``plan_checks.link``) are inserted;
the OLD design's plans run over them, then ``modeller diff --migration`` runs, then the NEW design's plans run
over what it left. Each run of a plan (the exported mongosh, ``modeller.export.query_plans``) with parameters
taken from the stored documents finds exactly the records the OLD samples say it should, named by id, and both
designs find the same groups of records.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from live_support import LiveServer, print_server
from mongosh_support import mongosh, ran
from plan_checks import Truth, compare, link, planned, rename_city, with_queries
from test_mongosh_migration import HOSTILE, Migration, _remove_index, _required_with_default, _to

from modeller.model.project import Project
from modeller.rules import analyse

pytestmark = [pytest.mark.node, pytest.mark.slow]

Edit = Callable[[dict[str, Any]], None]
#: per case: the OLD strategy of the product's reviews and the edit that makes NEW
CASES: dict[str, tuple[str, Edit]] = {
    "field-rename": ("embed", lambda d: rename_city(d, "town")),
    "field-rename-to-a-hostile-name": ("embed", lambda d: rename_city(d, HOSTILE)),
    "new-required-field-with-default": ("embed", _required_with_default),
    "index-removal": ("embed", _remove_index),
    "embed-to-parent-ref": ("embed", _to("parent-ref")),
    "parent-ref-to-embed": ("parent-ref", _to("embed")),
    "embed-to-child-refs": ("embed", _to("child-refs")),
    "child-refs-to-parent-ref": ("child-refs", _to("parent-ref")),
    "parent-ref-to-extended-ref": ("parent-ref", _to("extended-ref")),
    "parent-ref-to-subset": ("parent-ref", _to("subset")),
    "parent-ref-to-bucket": ("parent-ref", _to("bucket")),
    "bucket-to-parent-ref": ("bucket", _to("parent-ref")),
    "parent-ref-to-single-collection": ("parent-ref", _to("single-collection")),
    "single-collection-to-embed": ("single-collection", _to("embed")),
}


def _lines(output: str) -> list[str]:
    return output.split("\n")  # not splitlines: a name may hold U+2028


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_new_designs_queries_find_the_migrated_documents(
    case: str, live_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    server, name = live_db
    print_server(server)
    strategy, edit = CASES[case]
    base = with_queries(strategy, name)
    old = Project.model_validate(base)
    old_design = analyse(old).design
    truth: list[Truth] = []
    m = Migration(
        server, name, tmp_path, edit, base=base, retype=lambda docs: truth.append(link(old_design, old, docs))
    )
    before = planned(old_design, old, m.inserted)
    old_queries = tmp_path / "old.queries.mongosh.js"
    old_queries.write_text(before.script(), encoding="utf-8")
    # one shell: the OLD plans, then the migration
    found_before = before.check(
        _lines(ran(mongosh(server.uri, old_queries, m.script, home=m.folder / "home"))), truth[0]
    )

    new = Project.model_validate(json.loads(m.new_file.read_text(encoding="utf-8")))
    documents = {coll.name: m.documents(coll.name) for coll in m.new_design.collections}
    after = planned(m.new_design, new, documents, old=old)
    new_queries = tmp_path / "new.queries.mongosh.js"
    new_queries.write_text(after.script(), encoding="utf-8")
    found_after = after.check(_lines(ran(mongosh(server.uri, new_queries, home=m.folder / "home"))), truth[0])
    assert found_after, "the NEW design serves some query"
    compare(found_before, found_after)
