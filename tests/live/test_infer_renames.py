"""A field renamed half-way through the data (tryout a13 item 4) and what only grows (item 11), without a server."""

from __future__ import annotations

import datetime
import json

from bson import ObjectId

from modeller.live.drift import compare
from modeller.live.infer import CollectionSample, infer_project
from modeller.live.renames import renamed_fields
from modeller.live.state import DatabaseState, ObservedCollection
from modeller.live.stats import CollectionStats, is_monotonic
from modeller.rules.engine import analyse

_BASE = datetime.datetime(2020, 1, 1)


def _customers(n: int = 40) -> list[dict]:
    """``signup`` in the older half, ``created_at`` in the newer; an optional ``phone`` in both halves."""
    docs = []
    for i in range(n):
        doc: dict = {"_id": ObjectId(), "name": f"c{i}"}  # ObjectId() grows with each call: insertion order
        doc["signup" if i < n // 2 else "created_at"] = _BASE + datetime.timedelta(days=i)
        if i % 3 == 0:
            doc["phone"] = f"+49 {i}"
        docs.append(doc)
    return docs


def _orders(customers: list[dict]) -> list[dict]:
    """``cust_id`` (half an ObjectId, half its hex string) in the older half, ``customer_id`` in the newer."""
    docs = []
    for i in range(40):
        doc: dict = {"_id": ObjectId(), "total": 1.5 + i}
        cust = customers[i % len(customers)]["_id"]
        if i < 20:
            doc["cust_id"] = cust if i % 2 else str(cust)
        else:
            doc["customer_id"] = cust
        docs.append(doc)
    return docs


def test_two_fields_renamed_half_way_are_named_with_their_counts_and_the_way_out() -> None:
    customers = _customers()
    samples = [
        CollectionSample(CollectionStats("customers").add_all(customers)),
        CollectionSample(CollectionStats("orders").add_all(_orders(customers))),
    ]
    notices: list[str] = []
    project = infer_project(samples, name="shop", notices=notices)
    renames = [n for n in notices if "renamed" in n]
    assert len(renames) == 2, notices
    signup = next(n for n in renames if "'signup'" in n)
    assert signup.startswith("'customers': 'signup' (in 20 of 40 sampled document(s), all older) and 'created_at'")
    assert "(in 20, all newer)" in signup and "rename migration: $rename 'signup' to 'created_at'" in signup
    cust = next(n for n in renames if "'cust_id'" in n)
    assert "'orders'" in cust and "probably 'cust_id' was renamed to 'customer_id'" in cust
    assert not any("'phone'" in n for n in notices)  # in both halves: no rename
    customer = next(e for e in project.entities if e.collection == "customers")
    assert "'signup' (older documents) and 'created_at' (newer) never occur together" in (customer.description or "")


def test_drift_names_a_rename_the_design_does_not_know() -> None:
    customers = _customers()
    project = infer_project([CollectionSample(CollectionStats("customers").add_all(customers))], name="shop")
    design = analyse(project).design
    state = DatabaseState("shop", {"customers": ObservedCollection("customers", "collection", {})})
    report = compare(design, state, {"customers": CollectionStats("customers").add_all(customers)})
    renamed = [d for d in report.drifts if d.kind == "field-renamed"]
    assert [(d.collection, d.path) for d in renamed] == [("customers", "signup")]
    assert "'created_at' (in 20, all newer)" in renamed[0].message


def test_no_rename_without_the_time_cut_or_when_both_meet_or_of_another_type() -> None:
    # two kinds of document (a card's number, a transfer's IBAN) alternate: never together, but no time cut
    payments = [{"_id": ObjectId(), ("card" if i % 2 else "iban"): f"x{i}"} for i in range(40)]
    assert renamed_fields(CollectionStats("payments").add_all(payments)) == []
    # the old name still in some newer documents next to the new one: they meet
    docs = [{"_id": ObjectId(), ("a" if i < 20 else "b"): i} for i in range(40)]
    docs[30]["a"] = 1
    assert renamed_fields(CollectionStats("t").add_all(docs)) == []
    # a date, then a string: not one field's values
    mixed = [{"_id": ObjectId(), **({"a": _BASE} if i < 20 else {"b": "x"})} for i in range(40)]
    assert renamed_fields(CollectionStats("t").add_all(mixed)) == []
    # the same data with a time cut and one type is a rename (the checks above fail for the reason they name)
    clean = [{"_id": ObjectId(), ("a" if i < 20 else "b"): i} for i in range(40)]
    assert [(r.old, r.new, r.old_count, r.new_count) for r in renamed_fields(CollectionStats("t").add_all(clean))] == [
        ("a", "b", 20, 20)
    ]
    # _ids that are no ObjectIds say nothing about age
    plain = [{"_id": i, ("a" if i < 20 else "b"): i} for i in range(40)]
    assert renamed_fields(CollectionStats("t").add_all(plain)) == []


def test_a_constant_or_a_flag_is_not_monotonic_a_growing_date_is() -> None:
    ids = [ObjectId() for _ in range(20)]
    assert not is_monotonic([(k, True) for k in ids])  # vip: true everywhere
    assert not is_monotonic([(k, 7) for k in ids])
    assert not is_monotonic([(k, i >= 10) for i, k in enumerate(ids)])  # a flag that turned on
    assert not is_monotonic([(k, i // 10) for i, k in enumerate(ids)])  # two values only
    assert is_monotonic([(k, _BASE + datetime.timedelta(days=i)) for i, k in enumerate(ids)])
    docs = [{"_id": k, "vip": True, "at": _BASE + datetime.timedelta(days=i)} for i, k in enumerate(ids)]
    project = infer_project([CollectionSample(CollectionStats("customers").add_all(docs))], name="t")
    fields = {f.name: f for f in project.entities[0].fields}
    assert fields["vip"].monotonic is not True and fields["at"].monotonic is True


def test_drift_calls_two_subtypes_fields_no_rename_even_when_one_kind_came_later() -> None:
    from modeller.model.vocabulary import FORMAT_NAME, FORMAT_VERSION
    from modeller.persistence import loads_project

    project = loads_project(
        json.dumps(
            {
                "format": FORMAT_NAME,
                "format_version": FORMAT_VERSION,
                "name": "t",
                "entities": [
                    {
                        "id": "device",
                        "name": "Device",
                        "collection": "devices",
                        "fields": [{"name": "kind", "type": "string", "required": True}],
                        "subtypes": {
                            "discriminator": "kind",
                            "variants": {
                                "phone": [{"name": "sim_slots", "type": "int"}],
                                "laptop": [{"name": "cpu_cores", "type": "int"}],
                            },
                        },
                    }
                ],
            }
        )
    )
    docs = [  # phones first, laptops since: never together, every phone older
        {"_id": ObjectId(), "kind": "phone", "sim_slots": 2}
        if i < 20
        else {"_id": ObjectId(), "kind": "laptop", "cpu_cores": 8}
        for i in range(40)
    ]
    stats = CollectionStats("devices").add_all(docs)
    assert [(r.old, r.new) for r in renamed_fields(stats)] == [("sim_slots", "cpu_cores")]  # the data alone
    state = DatabaseState("t", {"devices": ObservedCollection("devices", "collection", {})})
    report = compare(analyse(project).design, state, {"devices": stats})
    assert not [d for d in report.drifts if d.kind == "field-renamed"], report.lines()
