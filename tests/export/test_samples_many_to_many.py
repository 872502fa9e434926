"""Sample data of a two-way many-to-many (Room <-> User): both id arrays name each other, within their caps."""

from __future__ import annotations

from typing import Any

import pytest
from bson_checker import errors

from modeller.export import sample_documents
from modeller.export.samples import _ARRAY_CAP
from modeller.model import Project, check_project
from modeller.rules import analyse


def chat(max_members: int) -> Project:
    entity = [
        ("room", "Room", "rooms", "title"),
        ("user", "User", "users", "handle"),
    ]
    data: dict[str, Any] = {
        "format": "mongo-schema-modeller",
        "format_version": 1,
        "name": "Chat",
        "entities": [
            {
                "id": eid,
                "name": name,
                "collection": coll,
                "count": 1000,
                "fields": [{"name": field, "type": "string", "required": True}],
            }
            for eid, name, coll, field in entity
        ],
        "relationships": [
            {
                "id": "room_members",
                "one": "room",
                "many": "user",
                "name": "members",
                "inverse": "rooms",
                "cardinality": "many-to-many",
                "typical": 2,
                "max": max_members,
                "strategy": "two-way",
            }
        ],
    }
    project = Project.model_validate(data)
    assert check_project(project) == []
    return project


@pytest.mark.parametrize(("max_members", "n"), [(50, 5), (50, 12), (2, 12)])
def test_both_sides_name_each_other(max_members: int, n: int) -> None:
    project = chat(max_members)
    design = analyse(project).design
    docs = sample_documents(design, project, n=n, seed=4)
    rooms, users = docs["rooms"], docs["users"]
    members = {(room["_id"], user_id) for room in rooms for user_id in room["user_ids"]}
    joined = {(room_id, user["_id"]) for user in users for room_id in user["room_ids"]}
    assert members, "no room has members: the One side's array is empty"
    assert members == joined
    cap = min(_ARRAY_CAP, max_members)
    assert all(len(room["user_ids"]) <= cap for room in rooms)
    assert all(len(user["room_ids"]) <= _ARRAY_CAP for user in users)
    validators = {c.name: c.validator for c in design.collections}
    for coll, coll_docs in docs.items():
        for doc in coll_docs:
            assert errors(validators[coll], doc) == []


def test_extended_references_of_a_many_to_many_are_arrays_naming_the_same_rooms() -> None:
    """Users in Rooms as extended references: each User's ``rooms`` is an array of ``{_id, title}``, each Room once
    (its id is held only there: no ``room_ids`` repeats it), each title the Room's own, and the validator takes it."""
    from modeller.export.validators import validator_document
    from tests.rules.test_many_to_many_extended import extended_chat

    project = extended_chat()
    design = analyse(project).design
    docs = sample_documents(design, project, n=6, seed=3)
    titles = {room["_id"]: room["title"] for room in docs["room"]}
    validator = validator_document(next(c for c in design.collections if c.name == "user"))
    assert validator["$jsonSchema"]["properties"]["rooms"]["bsonType"] == "array"
    several = 0
    for user in docs["user"]:
        assert errors(validator, user) == []
        assert isinstance(user["rooms"], list)
        assert "room_ids" not in user
        ids = [ref["_id"] for ref in user["rooms"]]
        assert len(set(ids)) == len(ids) and set(ids) <= set(titles)
        assert all(ref["title"] == titles[ref["_id"]] for ref in user["rooms"])
        several += len(user["rooms"]) > 1
    assert several > 0, "no sample User is in more than one Room"
