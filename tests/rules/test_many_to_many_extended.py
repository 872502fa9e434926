"""A many-to-many stored as extended references: each N holds an ARRAY of ``{_id, copies}``, one per One.

A User in three Rooms holds three ``{_id, title}``; a single sub-document would let a User hold one Room only.
The index on the array's ``_id`` is multikey, the sync of a copy changes only the matching element
(``arrayFilters``), and the plans read the ids out of the array.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from modeller.export.mongosh import mongosh_script
from modeller.model import Project
from modeller.rules import Analysis, analyse
from modeller.rules.physical.design import CollectionDesign, ShapeNode
from modeller.rules.physical.resolver import is_multikey
from tests.export.js_harness import node_check
from tests.rules.test_many_to_many import chat

TITLE = [{"field": "title", "direction": "one-to-many"}]


def extended_chat(keep_members_query: bool = True) -> Project:
    """The chat with Users in Rooms stored as extended references copying the Room's title into each User."""
    project = chat(strategy="extended-ref", denormalize=TITLE)
    if keep_members_query:
        return project
    data = project.model_dump(mode="json", exclude_none=True)
    data["queries"] = [q for q in data["queries"] if q["id"] != "members_of_room"]
    return Project.model_validate(data)


def _user(a: Analysis) -> CollectionDesign:
    coll = a.design.collection("user")
    assert coll is not None
    return coll


def _node(coll: CollectionDesign, name: str) -> ShapeNode:
    node = next((n for n in coll.shape if n.name == name), None)
    assert node is not None, f"{coll.name} has no {name}: {[n.name for n in coll.shape]}"
    return node


def test_each_user_holds_an_array_of_room_references_with_their_titles() -> None:
    a = analyse(extended_chat())
    rooms = _node(_user(a), "rooms")
    assert rooms.role == "extended-ref"
    assert rooms.bson_type == "array"
    assert rooms.items is not None and rooms.items.bson_type == "object"
    assert [c.name for c in rooms.items.children] == ["_id", "title"]
    # each Room's id is held once, in its element (as a one-to-many's extended reference holds its One's id once):
    # no array of bare ids repeats them, and the members query reads rooms._id through a multikey index
    assert [n.name for n in _user(a).shape] == ["_id", "name", "email", "rooms"]
    members = next(p for p in a.design.queries if p.id == "members_of_room")
    assert members.steps[0].to_json()["filter"] == {"rooms._id": {"$param": "Room"}}
    assert members.index is not None and list(members.index.keys) == [("rooms._id", 1), ("name", 1)]


def test_the_index_on_the_array_ids_is_multikey_and_serves_the_copy_sync() -> None:
    a = analyse(extended_chat(keep_members_query=False))
    user = _user(a)
    keys = [i.keys for i in user.indexes]
    assert [("rooms._id", 1)] in keys
    assert is_multikey("rooms._id", {n.name for n in user.shape if n.bson_type == "array"})
    write = next(w for w in a.design.writes if w.kind == "copy" and w.relationship == "room_users")
    assert write.filter_path == "rooms._id"
    assert write.index is not None and list(write.index.keys) == [("rooms._id", 1)]


def test_a_room_title_change_sets_only_the_matching_element() -> None:
    a = analyse(extended_chat(keep_members_query=False))
    rel = next(r for r in a.design.relationships if r.id == "room_users")
    updates = [u for u in _sync_updates(rel) if u.set_path.endswith("title")]
    assert len(updates) == 1
    assert updates[0].set_path == "rooms.$[e].title"
    assert updates[0].array_filter == "e._id"
    assert updates[0].filter_path == "rooms._id"


def _sync_updates(rel: Any) -> list[Any]:
    return [c.update for c in rel.denormalized if c.update is not None]


def test_the_rooms_of_one_user_are_read_from_the_array() -> None:
    a = analyse(extended_chat(keep_members_query=False))
    plan = next(p for p in a.design.queries if p.id == "rooms_of_user")
    first, second = plan.steps
    assert first.collection == "user" and first.projection == ["rooms._id"]
    assert second.collection == "room"
    assert second.to_json()["filter"] == {"_id": {"$in": {"$ref": {"step": 1, "path": "rooms._id"}}}}
    # a User belongs to about 3 Rooms (100,000 Rooms x 30 Users / 1,000,000 Users)
    assert second.docs_returned == 3


def test_the_script_of_the_array_design_is_valid_javascript(tmp_path: Path) -> None:
    project = extended_chat()
    script = tmp_path / "setup.mongosh.js"
    script.write_text(mongosh_script(analyse(project).design, project), encoding="utf-8")
    node_check(script)
    text = script.read_text(encoding="utf-8")
    assert '"rooms": {' in text and '"bsonType": "array"' in text
