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
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from live_support import LiveServer, print_server
from mongosh_support import mongosh, ran
from plan_checks import Truth, chat, chat_truth, compare, link, planned, rename_city, with_queries
from test_mongosh_migration import HOSTILE, Migration, _remove_index, _required_with_default, _to

from modeller.model.project import Project
from modeller.rules import analyse
from modeller.rules.physical.design import Design

pytestmark = [pytest.mark.node, pytest.mark.slow]

Edit = Callable[[dict[str, Any]], None]
#: names the OLD samples' records and returns the truth
Prepare = Callable[[Design, Project, dict[str, list[dict[str, Any]]]], Truth]
#: per case: the OLD project (given a database name), the edit that makes NEW, and how the OLD samples are named.
#: The migration cases of test_mongosh_migration.py and some strategy changes (the stand-in tests run them all).
CASES: dict[str, tuple[Callable[[str], dict[str, Any]], Edit, Prepare]] = {
    "field-rename": (partial(with_queries, "embed"), lambda d: rename_city(d, "town"), link),
    "field-rename-to-a-hostile-name": (partial(with_queries, "embed"), lambda d: rename_city(d, HOSTILE), link),
    "new-required-field-with-default": (partial(with_queries, "embed"), _required_with_default, link),
    "index-removal": (partial(with_queries, "embed"), _remove_index, link),
    "embed-to-parent-ref": (partial(with_queries, "embed"), _to("parent-ref"), link),
    "parent-ref-to-embed": (partial(with_queries, "parent-ref"), _to("embed"), link),
    "embed-to-child-refs": (partial(with_queries, "embed"), _to("child-refs"), link),
    "parent-ref-to-bucket": (partial(with_queries, "parent-ref"), _to("bucket"), link),
    "parent-ref-to-single-collection": (partial(with_queries, "parent-ref"), _to("single-collection"), link),
    "many-to-many-child-refs-to-two-way": (partial(chat, "child-refs"), _to("two-way"), chat_truth),
}


def _lines(output: str) -> list[str]:
    return output.split("\n")  # not splitlines: a name may hold U+2028


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_new_designs_queries_find_the_migrated_documents(
    case: str, live_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    server, name = live_db
    print_server(server)
    make, edit, prepare = CASES[case]
    base = make(name)
    old = Project.model_validate(base)
    old_design = analyse(old).design
    truth: list[Truth] = []
    m = Migration(
        server, name, tmp_path, edit, base=base, retype=lambda docs: truth.append(prepare(old_design, old, docs))
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
