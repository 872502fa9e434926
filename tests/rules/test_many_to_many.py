"""Many-to-many stored as arrays of references: one name for the array, and plans that count what they read.

The tryout's chat project (Users in Rooms): the document held ``rooms_ids`` while the index and the query plan
named ``rooms_id``, a field that exists nowhere. Every path an index, a query plan or a write plan names must be a
path of its collection's shape.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from modeller.export.mongosh import mongosh_script
from modeller.export.snippets import relationship_snippet
from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project, check_project
from modeller.model.names import singular
from modeller.rules import Analysis, analyse
from modeller.rules.physical.design import CollectionDesign, Design, ShapeNode
from modeller.rules.physical.planner import Ref
from tests.export.js_harness import node_check


def chat(inverse: str | None = "rooms", max_users: int = 10_000, **rel: Any) -> Project:
    """The tryout's chat: Users in Rooms (many-to-many, 30 Users per Room), Messages of a Room and of a User."""
    members: dict[str, Any] = {
        "id": "room_users",
        "one": "room",
        "many": "user",
        "name": "members",
        "cardinality": "many-to-many",
        "typical": 30,
        "max": max_users,
        **rel,
    }
    if inverse is not None:
        members["inverse"] = inverse
    data = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "name": "chat",
        "entities": [
            {
                "id": "user",
                "name": "User",
                "count": 1_000_000,
                "reads_per_sec": 300,
                "fields": [{"name": "name", "type": "string"}, {"name": "email", "type": "string"}],
            },
            {
                "id": "room",
                "name": "Room",
                "count": 100_000,
                "reads_per_sec": 500,
                "fields": [{"name": "title", "type": "string"}, {"name": "created_at", "type": "date"}],
            },
            {
                "id": "message",
                "name": "Message",
                "count": 2_000_000_000,
                "writes_per_sec": 2000,
                "append_only": True,
                "fields": [{"name": "text", "type": "string"}, {"name": "sent_at", "type": "date"}],
            },
        ],
        "relationships": [
            members,
            {
                "id": "room_messages",
                "one": "room",
                "many": "message",
                "name": "messages",
                "inverse": "room",
                "cardinality": "one-to-squillions",
                "many_standalone": True,
            },
            {
                "id": "user_messages",
                "one": "user",
                "many": "message",
                "name": "messages",
                "inverse": "author",
                "cardinality": "one-to-many",
                "many_standalone": True,
                "writes_per_sec": 2000,
            },
        ],
        "queries": [
            {
                "id": "latest",
                "entity": "message",
                "scope": "room_messages",
                "sort": [["sent_at", -1]],
                "limit": 50,
                "per_sec": 500,
                "hot": True,
            },
            {"id": "rooms_of_user", "entity": "room", "scope": "room_users", "per_sec": 100},
            {
                "id": "members_of_room",
                "entity": "user",
                "scope": "room_users",
                "sort": [["name", 1]],
                "limit": 50,
                "per_sec": 20,
            },
        ],
    }
    return Project.model_validate(data)


# ------------------------------------------------------------------------------------------ paths that exist


def shape_paths(nodes: list[ShapeNode], prefix: str = "") -> Iterator[str]:
    """Every dotted path of a document shape (array elements' fields through the array's name)."""
    for node in nodes:
        path = prefix + node.name
        yield path
        below = node.children or (node.items.children if node.items is not None else [])
        yield from shape_paths(below, path + ".")


def _collections(design: Design) -> dict[str, CollectionDesign]:
    return {c.name: c for c in (*design.collections, *design.companions)}


def _filter_paths(filt: dict[str, Any]) -> Iterator[str]:
    for key, value in filt.items():
        if key in ("$and", "$or", "$nor") and isinstance(value, list):
            for part in value:
                yield from _filter_paths(part)
        elif not key.startswith("$"):
            yield key


def _refs(value: Any) -> Iterator[Ref]:
    if isinstance(value, Ref):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _refs(v)
    elif isinstance(value, list):
        for v in value:
            yield from _refs(v)


def missing_paths(design: Design) -> list[str]:
    """``collection: path (what names it)`` for every path an index, a query plan or a write plan names that the
    collection's shape does not hold."""
    colls = _collections(design)
    paths = {name: set(shape_paths(c.shape)) | {"_id"} for name, c in colls.items()}
    out: list[str] = []

    def need(coll: str, path: str, what: str) -> None:
        if coll in paths and path not in paths[coll]:
            out.append(f"{coll}: {path} ({what})")

    for c in colls.values():
        for index in c.indexes:
            for key, kind in index.keys:
                if kind not in ("text",) and "$**" not in key:
                    need(c.name, key, f"index {index.name}")
    for plan in design.queries:
        for no, step in enumerate(plan.steps):
            what = f"query {plan.id} step {no + 1}"
            for path in _filter_paths(step.filter):
                need(step.collection, path, what + " filter")
            for path in step.projection:
                need(step.collection, path, what + " projection")
            for path, _ in step.sort:
                need(step.collection, path, what + " sort")
            if step.foreign_field is not None:
                need(step.collection, step.foreign_field, what + " foreign field")
            if step.index is not None:
                for key, _ in step.index.keys:
                    need(step.collection, key, what + " index")
            for ref in _refs(step.filter):
                need(plan.steps[ref.step - 1].collection, ref.path, what + " reference to an earlier read")
    for write in design.writes:
        need(write.collection, write.filter_path.split(".$", 1)[0], f"write {write.kind} {write.relationship}")
    return out


def test_the_array_of_rooms_in_each_user_is_the_field_the_index_and_the_plans_name() -> None:
    a = analyse(chat())
    users = a.design.collection("user")
    assert users is not None
    arrays = [n for n in users.shape if n.relationship == "room_users"]
    assert [(n.name, n.bson_type) for n in arrays] == [("room_ids", "array")]  # "rooms" made singular
    plans = {p.id: p for p in a.design.queries}
    members = plans["members_of_room"]
    assert members.index is not None and members.index.keys[0] == ("room_ids", 1)
    assert members.steps[0].filter["room_ids"] is not None
    rooms = plans["rooms_of_user"]
    first = rooms.steps[0]
    assert (first.collection, first.projection) == ("user", ["room_ids"])
    assert rooms.steps[1].filter == {"_id": {"$in": Ref(1, "room_ids")}}
    assert missing_paths(a.design) == []


def test_without_an_inverse_name_the_array_is_named_after_the_one() -> None:
    a = analyse(chat(inverse=None))
    users = a.design.collection("user")
    assert users is not None
    assert [n.name for n in users.shape if n.relationship == "room_users"] == ["room_ids"]
    assert missing_paths(a.design) == []


def test_two_way_many_to_many_names_the_same_array_in_index_and_plans() -> None:
    a = analyse(chat(max_users=200))
    r = next(r for r in a.design.relationships if r.id == "room_users")
    assert r.strategy == "two-way"
    plans = {p.id: p for p in a.design.queries}
    index = plans["members_of_room"].index
    assert index is not None and index.keys[0] == ("room_ids", 1)
    assert missing_paths(a.design) == []


def test_a_singular_name_is_kept_and_a_plural_one_loses_its_ending() -> None:
    assert [singular(w) for w in ("rooms", "categories", "boxes", "branches", "room", "status", "class")] == [
        "room",
        "category",
        "box",
        "branch",
        "room",
        "status",
        "class",
    ]


# ------------------------------------------------------------------------------------------ generated projects

NAMES = ["User", "Room", "Course", "Log Message", "Category"]
INVERSES = [None, "rooms", "owner", "categories", "tags"]
FIELDS = [{"name": "name", "type": "string"}, {"name": "at", "type": "date"}, {"name": "rank", "type": "int"}]


@st.composite
def linked_projects(draw: Any) -> Project:
    """Projects of related entities read through their relationships (scopes on both sides, joins)."""
    n = draw(st.integers(2, 4))
    entities = []
    for i in range(n):
        e: dict[str, Any] = {"id": f"e{i}", "name": f"{NAMES[i]}", "fields": FIELDS}
        if draw(st.booleans()):
            e["count"] = draw(st.sampled_from([10, 1000, 10**6, 10**9]))
        entities.append(e)
    rels = []
    for j in range(draw(st.integers(1, 4))):
        one, many = draw(st.sampled_from(entities)), draw(st.sampled_from(entities))
        r: dict[str, Any] = {
            "id": f"r{j}",
            "one": one["id"],
            "many": many["id"],
            "cardinality": draw(
                st.sampled_from(["many-to-many", "many-to-many", "one-to-many", "one-to-few", "one-to-squillions"])
            ),
            "inverse": draw(st.sampled_from(INVERSES)),
            "many_standalone": draw(st.booleans()),
            "strategy": draw(st.sampled_from(["auto", "auto", "two-way", "parent-ref", "child-refs"])),
        }
        if draw(st.booleans()):
            r["max"] = draw(st.sampled_from([5, 200, 5000, 100_000]))
        rels.append({k: v for k, v in r.items() if v is not None})
    queries = []
    for k in range(draw(st.integers(1, 4))):
        rel = draw(st.sampled_from(rels))
        entity = draw(st.sampled_from([rel["one"], rel["many"]]))
        q: dict[str, Any] = {"id": f"q{k}", "entity": entity, "scope": rel["id"], "per_sec": 50}
        if draw(st.booleans()):
            q["sort"] = [[draw(st.sampled_from(["name", "at", "rank"])), draw(st.sampled_from([1, -1]))]]
            q["limit"] = 20
        if draw(st.booleans()):
            q["filter"] = {"rank": draw(st.sampled_from(["eq", "range"]))}
        others = [r["id"] for r in rels if entity in (r["one"], r["many"])]
        if draw(st.booleans()):
            q["joins"] = [draw(st.sampled_from(others))]
        queries.append(q)
    data = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "name": "p",
        "entities": entities,
        "relationships": rels,
        "queries": queries,
    }
    project = Project.model_validate(data)
    assume(not check_project(project))
    return project


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(linked_projects())
def test_every_path_an_index_or_a_plan_names_exists_in_its_collection(project: Project) -> None:
    a: Analysis = analyse(project)
    assert missing_paths(a.design) == []
    for coll in a.design.collections:  # never an average above the maximum
        assert coll.avg_bytes <= coll.max_bytes, coll.name


# ------------------------------------------------------------------------------------------ how many Ones per N


def test_the_rooms_of_one_user_are_several_rooms() -> None:
    # 100,000 Rooms of typically 30 Users: 3,000,000 memberships among 1,000,000 Users, 3 Rooms each
    a = analyse(chat())
    plan = next(p for p in a.design.queries if p.id == "rooms_of_user")
    assert plan.scope is not None and plan.scope.label == "the Rooms of one User"
    first, main = plan.steps
    assert (first.docs_examined, first.docs_returned) == (1, 1)  # the User, by _id
    assert (main.docs_examined, main.docs_returned) == (3, 3)
    project = chat()
    alone = project.model_copy(update={"relationships": project.relationships[:1], "queries": ()})
    users = analyse(alone).design.collection("user")
    assert users is not None
    # about 3 ids of 12 bytes next to a name and an email, not the 30 Users of a Room (over 360 bytes of ids)
    assert users.avg_bytes < 250 and users.avg_bytes <= users.max_bytes


def test_without_counts_a_many_to_many_is_read_as_symmetric() -> None:
    project = chat()
    entities = tuple(e.model_copy(update={"count": None}) for e in project.entities)
    a = analyse(project.model_copy(update={"entities": entities}))
    plan = next(p for p in a.design.queries if p.id == "rooms_of_user")
    assert plan.docs_returned == 30


def test_two_way_many_to_many_finds_the_rooms_that_hold_the_user() -> None:
    a = analyse(chat(max_users=200))
    plan = next(p for p in a.design.queries if p.id == "rooms_of_user")
    assert plan.scope is not None and (plan.scope.kind, plan.scope.label) == ("holder", "the Rooms of one User")
    assert plan.docs_returned == 3 and plan.index is not None and plan.index.keys[0] == ("user_ids", 1)


# ------------------------------------------------------------------------------------------ id arrays that overflow


def _rel(a: Analysis, rel_id: str) -> Any:
    return next(r for r in a.design.relationships if r.id == rel_id)


def _finding(a: Analysis, rule: str, rel_id: str) -> Any:
    return next(f for f in a.findings if f.rule == rule and f.subject.id == rel_id)


def test_the_counts_give_the_messages_per_user_and_no_array_holds_them() -> None:
    # 2,000,000,000 Messages of 1,000,000 Users, no typical or max: about 2,000 per User, as many ids as an array
    # should ever hold (RULES.md §2 row 36) and no query reads the Messages of one User from the User
    a = analyse(chat())
    r = _rel(a, "user_messages")
    assert r.strategy == "parent-ref" and r.rules == ["parent-ref-one-to-squillions"]
    f = _finding(a, "parent-ref-one-to-squillions", "user_messages")
    assert "about 2,000 on average (2,000,000,000 Messages / 1,000,000 Users)" in f.message
    assert "16 MiB" not in f.message and "squillions" not in f.message  # the user said one-to-many; 2,000 ids fit
    users = a.design.collection("user")
    assert users is not None and [n.name for n in users.shape if n.relationship == "user_messages"] == []
    for coll in a.design.collections:
        assert coll.avg_bytes <= coll.max_bytes, coll.name


def test_an_explicit_array_of_the_estimated_messages_is_warned_about() -> None:
    project = chat()
    rels = tuple(
        r.model_copy(update={"strategy": "two-way"}) if r.id == "user_messages" else r for r in project.relationships
    )
    a = analyse(project.model_copy(update={"relationships": rels}))
    warning = _finding(a, "unbounded-array", "user_messages")
    assert warning.severity == "warning" and warning.message.startswith("about 2,000 on average")
    users = a.design.collection("user")
    assert users is not None and users.avg_bytes <= users.max_bytes


def hotel(join_rooms: bool = False) -> Project:
    """The tryout's hotel: Rooms of a Hotel found by price, Bookings of a Guest (one-to-few, 3 typical)."""
    queries: list[dict[str, Any]] = [
        {
            "id": "rooms_by_price",
            "entity": "room",
            "scope": "hotel_rooms",
            "filter": {"type": "eq"},
            "sort": [["price", 1]],
            "limit": 20,
            "per_sec": 300,
        },
        {"id": "my_bookings", "entity": "booking", "scope": "guest_bookings", "per_sec": 50, "limit": 20},
    ]
    if join_rooms:  # the hotel page lists its rooms: a read of the Rooms of one Hotel from the Hotel
        queries.append({"id": "hotel_page", "entity": "hotel", "filter": {"_id": "eq"}, "joins": ["hotel_rooms"]})
    data = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "name": "hotel",
        "entities": [
            {"id": "hotel", "name": "Hotel", "count": 5000, "fields": [{"name": "name", "type": "string"}]},
            {
                "id": "room",
                "name": "Room",
                "count": 750_000,
                "fields": [{"name": "type", "type": "string"}, {"name": "price", "type": "decimal"}],
            },
            {"id": "guest", "name": "Guest", "count": 5_000_000, "fields": [{"name": "name", "type": "string"}]},
            {"id": "booking", "name": "Booking", "count": 50_000_000, "fields": [{"name": "at", "type": "date"}]},
        ],
        "relationships": [
            {
                "id": "hotel_rooms",
                "one": "hotel",
                "many": "room",
                "inverse": "hotel",
                "cardinality": "one-to-many",
                "typical": 150,
                "max": 2000,
                "growth": "bounded",
                "many_standalone": True,
            },
            {
                "id": "guest_bookings",
                "one": "guest",
                "many": "booking",
                "inverse": "guest",
                "cardinality": "one-to-few",
                "typical": 3,
                "max": 200,
                "many_standalone": True,
            },
        ],
        "queries": queries,
    }
    return Project.model_validate(data)


def test_rooms_found_by_their_indexed_hotel_keep_no_array_in_the_hotel() -> None:
    a = analyse(hotel())
    for rel_id in ("hotel_rooms", "guest_bookings"):
        assert _rel(a, rel_id).strategy == "parent-ref", rel_id
    for name in ("hotel", "guest"):
        coll = a.design.collection(name)
        assert coll is not None and all(n.role != "child-refs" for n in coll.shape)
    # one-way on a one-to-many: rule 5's advice (Rooms read on their own), not a many-to-many name (tryout a14)
    f = _finding(a, "no-embed-independent-access", "hotel_rooms")
    assert "the Rooms of one Hotel are found by their hotel" in f.message
    assert "read with its hotel" not in f.message  # no query reads a Room with its Hotel
    assert f.why is not None and "two-way" not in f.why and "each side keeps references" not in f.why


def test_a_hotel_page_listing_its_rooms_reads_them_by_their_reference() -> None:
    """Both queries read the Rooms of one Hotel (one direction, RULES.md rule 6: one-way); none reads the Hotel of
    one Room, so no text claims it and the Hotel keeps no array of Room ids (tryout a14 item 4)."""
    a = analyse(hotel(join_rooms=True))
    assert _rel(a, "hotel_rooms").strategy == "parent-ref"
    f = _finding(a, "no-embed-independent-access", "hotel_rooms")
    assert "no query reads the hotel of one Room" in f.message, f.message
    assert "the Hotel of one Room" not in f.message and f.why is not None and "are read" not in f.why


# ------------------------------------------------------------------------------------------ texts of the decision


def test_the_why_of_a_large_many_to_many_describes_the_array_on_one_side() -> None:
    a = analyse(chat())
    f = _finding(a, "many-to-many-refs", "room_users")
    assert "keep the array of references only in each User" in f.message
    assert f.why is not None and "only each User keeps an array, of its Rooms" in f.why
    assert "each side keeps references" not in f.why


def test_the_why_of_a_two_way_many_to_many_describes_both_arrays() -> None:
    a = analyse(chat(max_users=200))
    f = _finding(a, "many-to-many-refs", "room_users")
    assert f.why is not None and "an array of references on each side" in f.why


def test_half_a_million_comment_ids_are_not_said_to_outgrow_16_mib() -> None:
    data = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "name": "blog",
        "entities": [
            {"id": "post", "name": "Post", "fields": [{"name": "title", "type": "string"}]},
            {"id": "comment", "name": "Comment", "fields": [{"name": "text", "type": "string"}]},
        ],
        "relationships": [
            {
                "id": "post_comments",
                "one": "post",
                "many": "comment",
                "cardinality": "one-to-many",
                "typical": 20,
                "max": 500_000,
                "growth": "unbounded",
                "many_standalone": True,
            }
        ],
    }
    a = analyse(Project.model_validate(data))
    f = _finding(a, "parent-ref-one-to-squillions", "post_comments")
    assert "up to 500,000 and keeps growing" in f.message and "MB)" in f.message
    assert "16 MiB" not in f.message and "squillions" not in f.message and "squillions" not in (f.why or "")


# ------------------------------------------------------------------------------------------ what the export says


def test_the_setup_script_indexes_the_array_the_validator_declares(tmp_path: Path) -> None:
    project = chat(max_users=200)
    a = analyse(project)
    script = mongosh_script(a.design, project, findings=a.findings)
    assert 'ensureIndex("user", {"room_ids": 1, "name": 1}' in script and '"room_ids": {' in script
    assert "rooms_id" not in script
    path = tmp_path / "setup.mongosh.js"
    path.write_text(script, encoding="utf-8")
    node_check(path)


def test_a_two_way_many_to_many_link_adds_to_both_arrays() -> None:
    a = analyse(chat(max_users=200))
    rel = next(r for r in a.design.relationships if r.id == "room_users")
    snippet = relationship_snippet(a.design, rel)
    assert '.updateOne({ _id: oneId }, { $addToSet: { "user_ids": manyId } });' in snippet
    assert '.updateOne({ _id: manyId }, { $addToSet: { "room_ids": oneId } });' in snippet
    assert "$set" not in snippet  # an array of Room ids is never overwritten by one id


def test_a_query_written_with_the_arrays_former_name_still_loads_and_reads_the_array() -> None:
    # files saved before the array had its own name filter on "rooms_id": it now reads room_ids
    project = chat()
    old = project.queries[2].model_copy(update={"scope": None, "filter": {"rooms_id": "eq"}})
    project = project.model_copy(update={"queries": (*project.queries[:2], old)})
    assert check_project(project) == []
    a = analyse(project)
    plan = next(p for p in a.design.queries if p.id == "members_of_room")
    assert "room_ids" in plan.steps[0].filter and plan.index is not None and plan.index.keys[0] == ("room_ids", 1)
    assert missing_paths(a.design) == []
