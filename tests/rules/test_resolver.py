"""The resolver's physical design beyond the seed scenarios: types, validators, names, edge cases."""

from __future__ import annotations

import copy
import json
import pickle
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project
from modeller.export.literals import js_key
from modeller.export.mongosh import mongosh_script
from modeller.export.snippets import sync_snippet
from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.persistence import load_project
from modeller.rules import analyse
from modeller.rules.physical.design import CollectionDesign, ShapeNode
from modeller.rules.physical.documents import distinct_name
from modeller.rules.physical.esr import EsrPlan, serves
from modeller.rules.physical.naming import collection_name


def project(**data: Any) -> Project:
    data.setdefault("entities", [])
    for e in data["entities"]:
        e.setdefault("name", e["id"])
        e.setdefault("fields", [])
    return Project.model_validate({"format": FORMAT_NAME, "format_version": FORMAT_VERSION, "name": "t", **data})


def only(p: Project) -> CollectionDesign:
    (coll,) = analyse(p).design.collections
    return coll


def test_uuid_is_bindata_and_point_is_a_geojson_object() -> None:
    coll = only(
        project(
            entities=[
                {
                    "id": "place",
                    "fields": [
                        {"name": "key", "type": "uuid", "required": True},
                        {"name": "location", "type": "point"},
                    ],
                }
            ]
        )
    )
    props = coll.validator["$jsonSchema"]["properties"]
    assert props["key"] == {"bsonType": "binData"}
    loc = props["location"]
    assert loc["bsonType"] == "object" and loc["properties"]["type"]["enum"] == ["Point"]
    assert loc["properties"]["coordinates"] == {"bsonType": "array", "maxItems": 2, "items": {"bsonType": "double"}}
    assert coll.validator["$jsonSchema"]["required"] == ["_id", "key"]


def test_one_to_one_embeds_an_object_and_nested_fields_validate() -> None:
    p = project(
        entities=[
            {"id": "patron"},
            {
                "id": "address",
                "fields": [
                    {"name": "geo", "type": "object", "fields": [{"name": "lat", "type": "double", "required": True}]}
                ],
            },
        ],
        relationships=[{"id": "r", "one": "patron", "many": "address", "cardinality": "one-to-one"}],
    )
    coll = only(p)
    address = coll.validator["$jsonSchema"]["properties"]["address"]
    assert address["bsonType"] == "object"
    assert address["properties"]["geo"]["required"] == ["lat"]


def test_embed_cycle_falls_back_with_a_warning() -> None:
    p = project(
        entities=[{"id": "a"}, {"id": "b"}],
        relationships=[
            {"id": "ab", "one": "a", "many": "b", "cardinality": "one-to-few", "max": 3},
            {"id": "ba", "one": "b", "many": "a", "cardinality": "one-to-few", "max": 3, "strategy": "embed"},
        ],
    )
    design = analyse(p).design
    ba = next(r for r in design.relationships if r.id == "ba")
    assert ba.strategy != "embed" and any("cannot contain itself" in w for w in ba.warnings)
    assert [c.name for c in design.collections] == ["a"]


def test_extended_reference_keeps_the_ones_id_once_and_queries_read_it_there() -> None:
    """The Extended Reference Pattern article's documents hold the One's id once, in the sub-document: a query on
    the reference (user_id) reads user._id, and no top-level user_id repeats it."""
    p = project(
        entities=[
            {"id": "user", "fields": [{"name": "name", "type": "string"}]},
            {"id": "order", "fields": [{"name": "at", "type": "date"}]},
        ],
        relationships=[
            {
                "id": "r",
                "one": "user",
                "many": "order",
                "cardinality": "one-to-many",
                "growth": "unbounded",
                "denormalize": [{"field": "name", "direction": "one-to-many"}],
            }
        ],
        queries=[{"id": "q", "entity": "order", "filter": {"user_id": "eq"}, "sort": [["at", -1]]}],
    )
    orders = analyse(p).design.collection("order")
    assert orders is not None
    assert [n.name for n in orders.shape] == ["_id", "at", "user"]
    assert [list(i.keys) for i in orders.indexes] == [[("user._id", 1), ("at", -1)]]


def test_without_a_query_the_extended_reference_id_is_indexed() -> None:
    p = project(
        entities=[{"id": "user", "fields": [{"name": "name", "type": "string"}]}, {"id": "order"}],
        relationships=[
            {
                "id": "r",
                "one": "user",
                "many": "order",
                "cardinality": "one-to-many",
                "growth": "unbounded",
                "denormalize": [{"field": "name", "direction": "one-to-many"}],
            }
        ],
    )
    orders = analyse(p).design.collection("order")
    assert orders is not None and [n.name for n in orders.shape] == ["_id", "user"]
    assert [list(i.keys) for i in orders.indexes] == [[("user._id", 1)]]


def test_single_collection_pattern() -> None:
    p = project(
        entities=[
            {"id": "student", "fields": [{"name": "name", "type": "string", "required": True}]},
            {"id": "klass", "fields": [{"name": "title", "type": "string"}]},
        ],
        relationships=[
            {
                "id": "r",
                "one": "student",
                "many": "klass",
                "cardinality": "many-to-many",
                "strategy": "single-collection",
            }
        ],
    )
    coll = only(p)
    assert coll.entities == ["student", "klass"] and coll.discriminator == "doc_type"
    schema = coll.validator["$jsonSchema"]
    assert [b["properties"]["doc_type"]["enum"] for b in schema["oneOf"]] == [["student"], ["klass"]]
    assert schema["oneOf"][0]["required"] == ["name"]
    assert [list(i.keys) for i in coll.indexes] == [[("links.target", 1), ("links.doc_type", 1)]]


def test_time_series_collection_on_a_recent_server() -> None:
    p = project(
        server_version="7.0",
        entities=[
            {
                "id": "reading",
                "append_only": True,
                "timeseries": {"time_field": "ts", "meta_field": "sensor", "interval_s": 300, "retention_s": 86400},
                "fields": [{"name": "ts", "type": "date"}, {"name": "sensor", "type": "string"}],
            }
        ],
    )
    coll = only(p)
    assert coll.timeseries == {
        "timeField": "ts",
        "granularity": "minutes",
        "metaField": "sensor",
        "expireAfterSeconds": 86400,
    }
    assert coll.bucket is None and coll.indexes == []


def test_ttl_on_an_old_server_is_a_single_field_index() -> None:
    p = project(
        server_version="4.4",
        entities=[
            {
                "id": "event",
                "timeseries": {"time_field": "at", "retention_s": 60},
                "fields": [{"name": "at", "type": "date"}, {"name": "v", "type": "int"}],
            }
        ],
    )
    coll = only(p)
    ttl = [i for i in coll.indexes if i.expire_after_s is not None]
    assert [(list(i.keys), i.expire_after_s) for i in ttl] == [([("end", 1)], 60)]  # bucketed: expire by bucket end


def test_user_index_kept_and_engine_prefix_dropped() -> None:
    p = project(
        entities=[
            {
                "id": "c",
                "indexes": [{"keys": [["a", 1], ["b", -1]], "name": "mine"}],
                "fields": [{"name": "a", "type": "string"}, {"name": "b", "type": "date"}],
            }
        ],
        queries=[{"id": "q", "entity": "c", "filter": {"a": "eq"}}],
    )
    coll = only(p)
    assert [(list(i.keys), i.origin, i.name) for i in coll.indexes] == [([("a", 1), ("b", -1)], "user", "mine")]
    assert coll.indexes[0].queries == ["q"]


def test_serves_allows_inverted_sort_and_any_equality_order() -> None:
    plan = EsrPlan(eq=["a", "b"], sort=[("t", -1)], range=["x"])
    assert serves([("b", 1), ("a", 1), ("t", 1), ("x", 1)], plan)
    assert not serves([("a", 1), ("t", -1), ("b", 1), ("x", 1)], plan)
    assert not serves([("a", 1), ("b", 1), ("x", 1), ("t", -1)], plan)


def test_hostile_names_are_quoted_in_snippets() -> None:
    evil = 'x"); db_dropDatabase(); ("</script>\\n'
    p = project(
        entities=[
            {"id": "p", "fields": [{"name": evil, "type": "string", "immutable": False}]},
            {"id": "c", "collection": 'we"ird'},
        ],
        relationships=[
            {
                "id": "r",
                "one": "p",
                "many": "c",
                "cardinality": "one-to-many",
                "max": 50,
                "many_standalone": True,
                "denormalize": [{"field": evil, "direction": "one-to-many"}],
            }
        ],
    )
    design = analyse(p).design
    copy = design.relationships[0].denormalized[0]
    assert copy.update is not None and copy.update.watched_field == evil  # the engine keeps data, not mongosh
    snippet = sync_snippet(design, copy)
    assert "</script>" not in snippet and 'db.getCollection("we\\"ird")' in snippet
    assert evil in copy.update.set_path and js_key(copy.update.set_path) in snippet


def test_findings_are_sorted_by_subject_then_severity() -> None:
    p = project(
        entities=[{"id": "host"}, {"id": "log", "fields": [{"name": "m", "type": "string", "bytes": 100}]}],
        relationships=[
            {"id": "r", "one": "host", "many": "log", "cardinality": "one-to-squillions", "strategy": "embed"}
        ],
    )
    findings = analyse(p).findings
    kinds = [f.subject.kind for f in findings]
    assert kinds == sorted(kinds, key=["entity", "relationship", "query"].index)
    rel = [f.severity for f in findings if f.subject.kind == "relationship"]
    order = ["error", "warning", "suggestion", "info"]
    assert rel == sorted(rel, key=order.index)


def test_collections_validate_strictly_and_reject_invalid_writes_by_default() -> None:
    """No rule relaxes the validator yet: every collection is strict/error, and the JSON design says so."""
    coll = only(project(entities=[{"id": "task", "fields": [{"name": "title", "type": "string", "required": True}]}]))
    assert (coll.validation_level, coll.validation_action) == ("strict", "error")
    out = coll.to_json()
    assert out["validation_level"] == "strict" and out["validation_action"] == "error"


def test_the_mongosh_script_uses_the_collection_validation_settings() -> None:
    """The exporter reads the design's level/action: defaults give the strict script, other values appear as set."""
    p = project(entities=[{"id": "task", "fields": [{"name": "title", "type": "string", "required": True}]}])
    analysis = analyse(p)
    script = mongosh_script(analysis.design, p)
    assert '"validationLevel": "strict"' in script and '"validationAction": "error"' in script
    (coll,) = analysis.design.collections
    relaxed = replace(coll, validation_level="moderate", validation_action="warn")
    analysis.design.collections[0] = relaxed
    script = mongosh_script(analysis.design, p)
    assert '"validationLevel": "moderate"' in script and '"validationAction": "warn"' in script
    assert '"validationLevel": "strict"' not in script


# ----- the fast paths of the resolver give what the plain forms give -----


def test_field_paths_equal_iter_paths_of_all_fields() -> None:
    from benchmarks.generate import generate_project
    from modeller.model.paths import all_fields, iter_paths
    from modeller.rules.physical.facts import field_paths

    p = generate_project(60, seed=3)
    nested = project(
        entities=[
            {
                "id": "e",
                "fields": [
                    {
                        "name": "a",
                        "type": "array",
                        "items": {
                            "type": "array",
                            "items": {"type": "object", "fields": [{"name": "deep", "type": "int"}]},
                        },
                    },
                    {"name": "o", "type": "object", "fields": [{"name": "x", "type": "string"}]},
                    {"name": "kind", "type": "string"},
                ],
                "subtypes": {"discriminator": "kind", "variants": {"v": [{"name": "o", "type": "int"}]}},
            }
        ]
    )
    for entity in [*p.entities, *nested.entities]:
        expected = dict(iter_paths(all_fields(entity)))
        got = field_paths(entity)
        assert list(got.items()) == list(expected.items())
    assert list(field_paths(nested.entities[0])) == ["a", "a.deep", "o", "o.x", "kind"]
    assert field_paths(nested.entities[0])["o"].type == "int"  # a variant's field wins, as with dict(iter_paths)


def test_value_bytes_and_element_overhead_follow_the_bson_encoding() -> None:
    from modeller.model.project import Field
    from modeller.rules.physical.sizes import element_overhead, value_bytes
    from modeller.rules.settings import DEFAULT_SETTINGS

    assert element_overhead("ab") == 4 and element_overhead("é") == 4  # type byte + UTF-8 name + NUL
    obj = Field.model_validate(
        {
            "name": "o",
            "type": "object",
            "fields": [{"name": "n", "type": "int", "required": True}, {"name": "s", "type": "string"}],
        }
    )
    s = DEFAULT_SETTINGS.default_string_bytes + 5
    # the optional s counts on average as often as documents hold it (half, by default)
    assert value_bytes(obj, DEFAULT_SETTINGS) == (5 + 3 + 4 + round((3 + s) * 0.5), 5 + 3 + 4 + 3 + s)
    arr = Field.model_validate({"name": "a", "type": "array", "items": {"type": "int"}, "max_items": 3})
    n_avg = min(3, DEFAULT_SETTINGS.default_array_items)
    # elements "0", "1", "2": a type byte, a one-digit name and its NUL, the int32 (real BSON, not 3 bytes a name)
    assert value_bytes(arr, DEFAULT_SETTINGS) == (5 + n_avg * (1 + 2 + 4), 5 + 3 * (1 + 2 + 4))


def test_validators_read_on_demand_equal_the_eager_ones() -> None:
    from benchmarks.generate import generate_project
    from modeller.rules.physical.validators import collection_validator

    design = analyse(generate_project(80, seed=4)).design
    for coll in design.collections:
        eager = collection_validator(coll.shape, coll.discriminator)
        assert json.dumps(coll.to_json()["validator"], sort_keys=True) == json.dumps(eager, sort_keys=True)
        assert coll.validator == eager and coll.validator is coll.validator  # computed once, then stored
    coll = design.collections[0]
    copy = replace(coll, why="changed")
    assert copy.validator == coll.validator and copy == replace(coll, why="changed")


def test_a_deferred_validator_is_computed_on_first_read_and_can_be_overwritten() -> None:
    coll = CollectionDesign(name="c", entities=["e"], shape=[], indexes=[], validator={"x": 1})
    assert coll.validator == {"x": 1}
    calls: list[int] = []

    def make() -> dict[str, Any]:
        calls.append(1)
        return {"$jsonSchema": {"bsonType": "object"}}

    coll.defer_validator(make)
    assert calls == []
    assert coll.to_json()["validator"] == {"$jsonSchema": {"bsonType": "object"}}
    assert coll.validator == {"$jsonSchema": {"bsonType": "object"}} and calls == [1]
    assert "bsonType" in repr(coll)
    coll.validator = {"y": 2}
    assert coll.validator == {"y": 2} and calls == [1]


def test_a_bucketed_time_series_keeps_its_own_collection_under_a_single_collection_choice() -> None:
    p = project(
        entities=[
            {"id": "user", "name": "User", "count": 1000},
            {"id": "post", "name": "Post", "count": 5000, "fields": [{"name": "title", "type": "string"}]},
            {
                "id": "comment",
                "name": "Comment",
                "count": 10**8,
                "timeseries": {"time_field": "at", "bucket_size": 50},
                "fields": [{"name": "at", "type": "date", "required": True}],
            },
        ],
        relationships=[
            {
                "id": "post_comments",
                "one": "post",
                "many": "comment",
                "cardinality": "one-to-many",
                "strategy": "single-collection",
            },
            {"id": "user_comments", "one": "user", "many": "comment", "cardinality": "one-to-squillions"},
        ],
    )
    design = analyse(p).design
    by_name = {c.name: c for c in design.collections}
    assert by_name["post"].entities == ["post"] and by_name["comment"].bucket is not None
    assert not any(n.role == "bucket-stat" for n in by_name["post"].shape)
    (rel,) = [r for r in design.relationships if r.id == "post_comments"]
    assert rel.warnings == [
        "Comment is kept as bucket documents (a time series), which cannot share Post's collection: "
        "it keeps a collection of its own"
    ]


REGRESSIONS = Path(__file__).resolve().parents[1] / "fuzz" / "regressions"
HOSTILE = Path(__file__).resolve().parents[1] / "export" / "hostile"


def test_two_relationships_naming_one_field_get_two_names_and_paths_follow() -> None:
    # orders hold an extended reference 'user' (inverse of user_orders) and embed their one-to-one User
    analysis = analyse(load_project(REGRESSIONS / "ecommerce-two-fields-named-user.modeller.json"))
    (orders,) = analysis.design.collections
    by_name = {n.name: n for n in orders.shape}
    assert len(by_name) == len(orders.shape)
    assert by_name["user"].role == "extended-ref" and by_name["user_2"].role == "embedded"
    assert [c.name for c in by_name["user_2"].children] == ["_id", "name", "email", "phone"]
    assert analysis.design.embedded["user"].path == "user_2"
    assert set(orders.validator["$jsonSchema"]["properties"]) >= {"user", "user_2"}
    copies = next(r for r in analysis.design.relationships if r.id == "user_orders").denormalized
    assert [c.path for c in copies] == ["user.name", "user.phone"]  # the first owner keeps 'user'


def test_both_sides_of_a_self_many_to_many_get_their_own_reference_array() -> None:
    design = analyse(load_project(HOSTILE / "edge-cases.modeller.json")).design
    person = next(c for c in design.collections if c.name == "person")
    arrays = [(n.name, n.role) for n in person.shape if n.relationship == "friends"]
    assert arrays == [("person_ids", "parent-ref"), ("person_2_ids", "child-refs")]
    # (no index on either array: the project's queries read neither, and no index is made that no plan uses)
    assert not {key for index in person.indexes for key, _ in index.keys} & {"person_ids", "person_2_ids"}


def test_a_distinct_name_keeps_a_reference_suffix_last() -> None:
    assert distinct_name("user", {"user"}) == "user_2"
    assert distinct_name("person_ids", {"person_ids", "person_2_ids"}) == "person_3_ids"
    assert distinct_name("owner_id", {"owner_id"}) == "owner_2_id"
    assert distinct_name("_id", {"_id"}) == "_id_2"


def test_unique_and_ttl_indexes_of_one_entity_in_a_shared_collection_cover_its_documents_only() -> None:
    design = analyse(load_project(REGRESSIONS / "host-logs-shared-collection-unique-index.modeller.json")).design
    hosts = next(c for c in design.collections if c.name == "hosts")
    assert hosts.variants == ["host", "logmsg"]
    unique = {index.name: index.partial for index in hosts.indexes if index.unique}
    assert unique == {"ipaddr_1": {"doc_type": "host"}, "name_1": {"doc_type": "host"}}


def _shared(*links: tuple[str, str], embed: tuple[str, str] | None = None) -> Project:
    """Entities A..E; each link (one, many) asks for the single collection pattern; ``embed`` embeds one entity."""
    rels: list[dict[str, Any]] = [
        {
            "id": f"{one}_{many}",
            "one": one,
            "many": many,
            "cardinality": "many-to-many",
            "strategy": "single-collection",
        }
        for one, many in links
    ]
    if embed is not None:
        one, many = embed
        rels.append({"id": f"{one}_{many}", "one": one, "many": many, "cardinality": "one-to-one", "strategy": "embed"})
    return project(
        entities=[{"id": n, "name": n.upper(), "fields": [{"name": "x", "type": "string"}]} for n in "abcde"],
        relationships=rels,
    )


def _holders(p: Project) -> dict[str, list[str]]:
    return {c.name: c.entities for c in analyse(p).design.collections}


def test_a_collection_is_named_after_an_entity_it_holds() -> None:
    """The single collection pattern refused because the One is embedded elsewhere: the N keeps a collection of its
    own under its own name (it used to be named after the embedded One, which was not in it)."""
    p = _shared(("b", "c"), embed=("a", "b"))
    assert _holders(p) == {"a": ["a", "b"], "c": ["c"], "d": ["d"], "e": ["e"]}
    (rel,) = [r for r in analyse(p).design.relationships if r.id == "b_c"]
    assert rel.warnings == [
        "B is embedded in another document and has no collection of its own to share: C keeps a collection of its own"
    ]


def test_a_chain_of_single_collections_lives_in_the_last_host_and_a_ring_stays_apart() -> None:
    assert _holders(_shared(("b", "c"), ("a", "b"))) == {"a": ["a", "b", "c"], "d": ["d"], "e": ["e"]}
    ring = _shared(("a", "b"), ("b", "a"))
    assert _holders(ring) == {"a": ["a"], "b": ["b"], "c": ["c"], "d": ["d"], "e": ["e"]}
    warnings = [w for r in analyse(ring).design.relationships for w in r.warnings]
    assert warnings == [
        "A and B would each live in the other's collection (a ring of single collections): B keeps a collection "
        "of its own",
        "B and A would each live in the other's collection (a ring of single collections): A keeps a collection "
        "of its own",
    ]


def test_every_collection_of_a_generated_model_is_named_after_an_entity_it_holds() -> None:
    """The generated 1,000-entity model that named a collection ``host_332`` holding only ``product_722``."""
    model = generate_project(1000, 1.5, 0.5, seed=0)
    entities = {e.id: e for e in model.entities}
    design = analyse(model).design
    assert len(design.collections) > 500
    for coll in design.collections:
        assert coll.name in {collection_name(entities[eid]) for eid in coll.entities}, (coll.name, coll.entities)


def test_leaf_shape_nodes_share_one_empty_children_list_that_refuses_to_grow() -> None:
    """~200,000 shape nodes at 10,000 entities are mostly leaves: they share one empty ``children`` list (issue 16,
    memory); growing it in place would give every leaf those children, so it refuses, and copies stay that list."""
    shape = analyse(generate_project(60, 1.5, 0.5)).design.collections[0].shape
    leaves = [n for n in shape if not n.children and n.items is None]
    assert len(leaves) > 3 and all(n.children is leaves[0].children for n in leaves)
    assert leaves[0].children == [] and leaves[0] == replace(leaves[0], children=[])
    for grow in (
        lambda c: c.append(ShapeNode("x", "string")),
        lambda c: c.extend([ShapeNode("x", "string")]),
        lambda c: c.insert(0, ShapeNode("x", "string")),
        lambda c: c.__setitem__(slice(0, 0), [ShapeNode("x", "string")]),
        lambda c: c.__iadd__([ShapeNode("x", "string")]),
    ):
        with pytest.raises(TypeError, match="set by assignment"):
            grow(leaves[0].children)
    assert leaves[0].children == [] and leaves[1].children == []
    assert copy.deepcopy(leaves[0]).children is leaves[0].children
    assert pickle.loads(pickle.dumps(leaves[0])).children is leaves[0].children
    node = ShapeNode("y", "object")
    node.children = [ShapeNode("z", "string")]
    assert [c.name for c in node.children] == ["z"] and leaves[0].children == []
