"""Property: ``diff(A, A)`` is empty, and ``diff(A, B)`` for one random edit names exactly that edit."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from modeller.model.project import Project
from modeller.review import diff_projects
from modeller.review.changes import SCHEMA_KINDS

TYPES = ["string", "int", "long", "double", "decimal", "bool", "date"]
#: field names: plain, with spaces and quotes, non-ASCII (a name is user text, never code)
NAMES = st.text(alphabet="abcxyz_ é'\"<>", min_size=1, max_size=8).filter(lambda s: s.strip() == s and s[0] != "_")


@st.composite
def projects(draw: st.DrawFn) -> dict[str, Any]:
    n_entities = draw(st.integers(1, 3))
    entities = []
    for i in range(n_entities):
        names = draw(st.lists(NAMES, min_size=2, max_size=5, unique=True))
        fields = [
            {"name": name, "type": draw(st.sampled_from(TYPES)), "required": draw(st.booleans())} for name in names
        ]
        entities.append(
            {"id": f"e{i}", "name": f"Entity {i}", "collection": f"coll{i}", "count": 10 * (i + 1), "fields": fields}
        )
    return {"format": "mongo-schema-modeller", "format_version": 1, "name": "P", "database": "db", "entities": entities}


EDITS = ["add-optional", "add-required", "remove", "rename", "retype", "rename-collection", "required", "index"]
EXPECTED_KIND = {
    "add-optional": "field-added",
    "add-required": "field-added",
    "remove": "field-removed",
    "rename": "field-renamed",
    "retype": "field-retyped",
    "rename-collection": "collection-renamed",
    "index": "index-added",
}


@st.composite
def edits(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], str, str, str]:
    """(A, B, change kind, collection, subject) for one random single edit."""
    old = draw(projects())
    new = copy.deepcopy(old)
    entity = draw(st.sampled_from(new["entities"]))
    fields = entity["fields"]
    target = draw(st.sampled_from(fields))
    taken = {f["name"] for f in fields}
    fresh = draw(NAMES.filter(lambda s: s not in taken))
    edit = draw(st.sampled_from(EDITS))
    coll, subject = entity["collection"], target["name"]
    if edit in ("add-optional", "add-required"):
        fields.append({"name": fresh, "type": draw(st.sampled_from(TYPES)), "required": edit == "add-required"})
        subject = fresh
    elif edit == "remove":
        fields.remove(target)
    elif edit == "rename":
        target["name"] = subject = fresh
    elif edit == "retype":
        target["type"] = draw(st.sampled_from([t for t in TYPES if t != target["type"]]))
    elif edit == "rename-collection":
        entity["collection"] = coll = subject = "renamed"
    elif edit == "required":
        target["required"] = not target["required"]
        return old, new, "field-required" if target["required"] else "field-optional", coll, subject
    else:
        entity["indexes"] = [{"keys": [[target["name"], -1]], "name": "by_it"}]
        subject = "by_it"
    return old, new, EXPECTED_KIND[edit], coll, subject


@settings(max_examples=40, deadline=None)
@given(projects())
def test_a_project_against_itself_has_no_changes(data: dict[str, Any]) -> None:
    assert diff_projects(Project.model_validate(data), Project.model_validate(data)).changes == []


@settings(max_examples=60, deadline=None)
@given(edits())
def test_one_edit_names_exactly_that_edit(case: tuple[dict[str, Any], dict[str, Any], str, str, str]) -> None:
    old, new, kind, collection, subject = case
    diff = diff_projects(Project.model_validate(old), Project.model_validate(new))
    schema = [(c.kind, c.collection, c.subject) for c in diff.changes if c.kind in SCHEMA_KINDS]
    assert schema == [(kind, collection, subject)]
