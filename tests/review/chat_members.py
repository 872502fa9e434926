"""A many-to-many to migrate (Room <-> User "members"), its memberships, and its documents in each strategy's shape.

Shared by the migration tests on the stand-in of ``db`` (tests/review) and in the real mongosh (tests/live): the
OLD documents are written by hand from one list of memberships, with users in several rooms (so embedded copies
and bucket items of one user appear in several rooms), a user in none and an empty room.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Callable
from typing import Any

from bson import ObjectId

from modeller.model.project import Project
from modeller.review.copy_storage import Storage

CHAT: dict[str, Any] = {
    "format": "mongo-schema-modeller",
    "format_version": 1,
    "name": "Chat",
    "database": "chat",
    "entities": [
        {
            "id": "room",
            "name": "Room",
            "collection": "rooms",
            "count": 1000,
            "fields": [{"name": "title", "type": "string", "required": True}],
        },
        {
            "id": "user",
            "name": "User",
            "collection": "users",
            "count": 50000,
            "fields": [{"name": "handle", "type": "string", "required": True}],
        },
    ],
    "relationships": [
        {
            "id": "room_members",
            "one": "room",
            "many": "user",
            "name": "members",
            "inverse": "rooms",
            "cardinality": "many-to-many",
            "typical": 5,
            "max": 50,
            "strategy": "parent-ref",
        }
    ],
}


def chat_data(strategy: str, database: str = "chat") -> dict[str, Any]:
    """The chat project's file content with the members' ``strategy``."""
    data = copy.deepcopy(CHAT)
    data["relationships"][0]["strategy"] = strategy
    data["database"] = database
    return data


def chat(strategy: str, database: str = "chat") -> Project:
    return Project.model_validate(chat_data(strategy, database))


STRATEGIES = ["embed", "child-refs", "parent-ref", "two-way", "extended-ref", "subset", "bucket", "single-collection"]
#: the pairs of the one-to-many steps' id arrays (tests/review/test_review_many_to_many_copies.py)
IDS_ONLY = {"child-refs", "parent-ref", "two-way"}
PAIRS = [
    (old, new) for old in STRATEGIES for new in STRATEGIES if old != new and not (old in IDS_ONLY and new in IDS_ONLY)
]

ROOMS = ["lobby", "games", "music", "empty"]
USERS = ["ann", "bob", "cy", "dee", "eve", "fay"]
#: (room, user): ann and bob in three rooms, cy in two, fay in none, "empty" has no members
MEMBERS = {
    ("lobby", "ann"),
    ("games", "ann"),
    ("music", "ann"),
    ("lobby", "bob"),
    ("games", "bob"),
    ("music", "bob"),
    ("lobby", "cy"),
    ("music", "cy"),
    ("games", "dee"),
    ("music", "eve"),
}
ROOM_IDS = {title: ObjectId(f"{i + 1:024x}") for i, title in enumerate(ROOMS)}
USER_IDS = {handle: ObjectId(f"{i + 0x100:024x}") for i, handle in enumerate(USERS)}
T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def members(old: str) -> set[tuple[str, str]]:
    """The memberships the OLD documents hold: every strategy holds them all (extended references as an array)."""
    return set(MEMBERS)


def old_documents(where: Storage, memberships: set[tuple[str, str]]) -> dict[str, list[dict[str, Any]]]:
    """The OLD design's documents of ``members``, written in the OLD shape."""
    assert where.parent is not None
    rooms: list[dict[str, Any]] = [{"_id": ROOM_IDS[t], "title": t} for t in ROOMS]
    users: list[dict[str, Any]] = [{"_id": USER_IDS[h], "handle": h} for h in USERS]
    of_room = {t: [h for h in USERS if (t, h) in memberships] for t in ROOMS}
    of_user = {h: [t for t in ROOMS if (t, h) in memberships] for h in USERS}
    if where.embed is not None:
        for room in rooms:
            room[where.embed] = [{"handle": h} for h in of_room[room["title"]]]
        return {where.parent: rooms}
    if where.bucket is not None:
        b = where.bucket
        buckets = [
            {
                "_id": ObjectId(f"{0x200 + i:024x}"),
                b.series_field: ROOM_IDS[t],
                b.start_field: T0,
                b.end_field: T0,
                "count": len(of_room[t]),
                b.items_field: [{"handle": h} for h in of_room[t]],
            }
            for i, t in enumerate(ROOMS)
            if of_room[t]
        ]
        return {where.parent: rooms, where.child or "": buckets}
    if where.discriminator is not None:
        for room in rooms:
            room[where.discriminator] = where.one_type
        for user in users:
            user[where.discriminator] = where.many_type
            links = [{where.link_target: ROOM_IDS[t], where.link_type: where.one_type} for t in of_user[user["handle"]]]
            user[where.links] = links
        return {where.parent: rooms + users}
    if where.refs is not None:
        for room in rooms:
            room[where.refs] = [USER_IDS[h] for h in of_room[room["title"]]]
    if where.ext is not None:  # a many-to-many's extended references: one {_id, copies} per room
        for user in users:
            user[where.ext] = [{"_id": ROOM_IDS[t], **{n: t for n, _ in where.copies}} for t in of_user[user["handle"]]]
    elif where.ref is not None:
        for user in users:
            user[where.ref] = [ROOM_IDS[t] for t in of_user[user["handle"]]]
    if where.subset is not None:
        for room in rooms:
            latest = sorted(of_room[room["title"]], key=lambda h: USER_IDS[h], reverse=True)[: where.subset_k]
            # each element keeps its User's _id when the design copies it (the sync finds the copy by it)
            keeps_id = any(name == "_id" for name, _ in where.subset_copies)
            room[where.subset] = [{"_id": USER_IDS[h], "handle": h} if keeps_id else {"handle": h} for h in latest]
    return {where.parent: rooms, where.child or "": users}


def held(docs: Callable[[str], list[dict[str, Any]]], where: Storage) -> tuple[set[tuple[str, str]], list[str]]:
    """(room title, user handle) of every membership the NEW shape holds, and the handles of the user documents
    (each once when users have documents of their own)."""
    assert where.parent is not None
    parents = docs(where.parent)
    title = {str(r["_id"]): r.get("title") for r in parents}
    if where.embed is not None:
        return {(r["title"], u["handle"]) for r in parents for u in r.get(where.embed) or []}, []
    children = docs(where.child or "")
    if where.bucket is not None:  # a user in no room is in no bucket: it stays a document of its own
        held = {
            (title[str(b[where.bucket.series_field])], item["handle"])
            for b in children
            if where.bucket.items_field in b
            for item in b[where.bucket.items_field]
        }
        return held, []
    if where.discriminator is not None:
        users = [d for d in children if d.get(where.discriminator) == where.many_type]
        held = {
            (title[str(link[where.link_target])], u["handle"])
            for u in users
            for link in u.get(where.links) or []
            if link[where.link_type] == where.one_type
        }
        return held, [u["handle"] for u in users]
    handle = {str(u["_id"]): u["handle"] for u in children}
    if where.ext is not None:  # each element of the extended references names a room, and copies its fields
        for u in children:
            for element in u[where.ext]:
                assert all(element[n] == title[str(element["_id"])] for n, _ in where.copies), element
        held_ext = {(title[str(e["_id"])], u["handle"]) for u in children for e in u[where.ext]}
        if where.ref is not None and "." not in where.ref:
            assert held_ext == {(title[str(i)], u["handle"]) for u in children for i in u[where.ref]}
        return held_ext, [u["handle"] for u in children]
    held_refs = {(r["title"], handle[str(i)]) for r in parents for i in r.get(where.refs) or []} if where.refs else None
    held_ref = {(title[str(i)], u["handle"]) for u in children for i in u.get(where.ref) or []} if where.ref else None
    if held_refs is not None and held_ref is not None:
        assert held_refs == held_ref, "both sides of a two-way name the same memberships"
    held = held_ref if held_ref is not None else held_refs
    assert held is not None
    return held, [u["handle"] for u in children]


def stays(old: str, new: str) -> tuple[str, str] | None:
    """The user in no room ("fay"), when it stays in a NEW collection it does not fit, and what the run prints."""
    if new == "bucket" and old not in ("embed", "bucket"):
        return "fay", "names no single series; left as it is"
    if new == "embed" and old == "single-collection":
        return "fay", "1 document(s) link to no parent and stay"
    return None
