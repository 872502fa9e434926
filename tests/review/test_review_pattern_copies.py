"""Strategy changes into and out of subset, bucket and single collection in the migration script: documents of the
OLD design, run through it on the stand-in of ``db``, validate against the NEW validators and keep who belongs to
whom; a second run changes nothing; a run killed between (or inside) batches completes when run again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bson import json_util
from bson_checker import LOAD_OPTIONS, errors
from js_harness import calls, node_check, run_scripts
from review_projects import edited, entity, project

from modeller.export.mongosh import mongosh_script
from modeller.export.samples import sample_documents
from modeller.export.validators import validator_document
from modeller.review import SchemaDiff, diff_projects
from modeller.review.migration import MARKERS, migration_script
from modeller.review.strategy_copies import Storage, storage

pytestmark = pytest.mark.node

#: the subset keeps the 2 latest reviews; reviews are dated (the subset's order, the bucket's time) and rated
LATEST = 2
COPY = [{"field": "title", "direction": "one-to-many", "staleness": "days"}]


def _with(strategy: str, copies: bool = False) -> dict[str, Any]:
    def edit(d: dict[str, Any]) -> None:
        fields = entity(d, "review")["fields"]
        fields += [{"name": "at", "type": "date", "required": True}, {"name": "stars", "type": "int"}]
        rel = d["relationships"][0]
        rel.update(strategy=strategy, cardinality="one-to-many", max=500, show_latest=LATEST)
        if copies:
            rel["denormalize"] = COPY

    return edited(edit)


def _docs(recording: dict[str, Any], collection: str) -> list[dict[str, Any]]:
    text = json.dumps(recording["documents"]["shop"].get(collection, []))
    return json_util.loads(text, json_options=LOAD_OPTIONS)


def _pick(doc: Any, path: str) -> Any:
    for part in path.split("."):
        doc = doc.get(part) if isinstance(doc, dict) else None
    return doc


def _reviews(recording: dict[str, Any], where: Storage) -> list[tuple[str, dict[str, Any]]]:
    """(product _id, review) for every review the design links to a product, wherever the design keeps it."""
    assert where.parent is not None
    out: list[tuple[str, dict[str, Any]]] = []
    docs = _docs(recording, where.child or "")
    if where.bucket is not None:
        for bucket in docs:
            out += [(str(bucket[where.bucket.series_field]), item) for item in bucket[where.bucket.items_field]]
    elif where.discriminator is not None:
        for doc in docs:
            if doc[where.discriminator] != where.many_type:
                continue
            for link in doc.get(where.links, []):
                if link[where.link_type] == where.one_type:
                    out.append((str(link[where.link_target]), doc))
    elif where.embed is not None:
        for product in _docs(recording, where.parent):
            out += [(str(product["_id"]), item) for item in product.get(where.embed) or []]
    elif where.refs is not None:
        by_id = {str(r["_id"]): r for r in docs}
        for product in _docs(recording, where.parent):
            out += [(str(product["_id"]), by_id[str(i)]) for i in product.get(where.refs) or [] if str(i) in by_id]
    else:
        assert where.ref is not None
        out += [(str(_pick(r, where.ref)), r) for r in docs if _pick(r, where.ref) is not None]
    return out


def _pairs(recording: dict[str, Any], where: Storage) -> set[tuple[str, str, str]]:
    return {(product, review["text"], review["at"].isoformat()) for product, review in _reviews(recording, where)}


def _seed(diff: SchemaDiff) -> dict[str, list[dict[str, Any]]]:
    """Samples of the OLD design with distinct review times (the subset's order is then one answer) and three
    reviews on the first product (a bucket of 2 overflows, the subset of 2 leaves one out)."""
    samples = sample_documents(diff.old_design, diff.old, n=6, seed=5)
    where = storage(diff.old_design, diff.old, "product_reviews")
    assert where is not None and where.parent is not None
    products = [p for p in samples[where.parent] if where.discriminator is None or p["doc_type"] == "product"]
    first, others = products[0]["_id"], [p["_id"] for p in products[1:]]
    if where.embed is not None:
        items = [item for p in products for item in p[where.embed]]
        for i, product in enumerate(products):
            product[where.embed] = items[:3] if i == 0 else items[i + 2 : i + 3]
        reviews = items
    elif where.bucket is not None:
        for i, bucket in enumerate(samples[where.child or ""]):
            bucket[where.bucket.series_field] = first if i < 2 else others[i % len(others)]
        reviews = [item for bucket in samples[where.child or ""] for item in bucket[where.bucket.items_field]]
    elif where.discriminator is not None:
        reviews = [d for d in samples[where.parent] if d["doc_type"] == "review"]
        for i, review in enumerate(reviews):
            review[where.links] = [{"target": first if i < 3 else others[i % len(others)], "doc_type": "product"}]
    else:
        reviews = samples[where.child or ""]
        owners = [first if i < 3 else others[i % len(others)] for i in range(len(reviews))]
        for product in products if where.refs is not None else []:
            product[where.refs] = [
                r["_id"] for r, owner in zip(reviews, owners, strict=True) if owner == product["_id"]
            ]
        for review, owner in zip(reviews, owners, strict=True) if where.ref is not None else []:
            if where.ext is not None:
                review[where.ext]["_id"] = owner
            else:
                review[where.ref] = owner
    for i, review in enumerate(reviews):
        review["at"] = review["at"].replace(minute=i, second=0)
    return samples


def _run(
    diff: SchemaDiff,
    folder: Path,
    runs: int = 1,
    batch: int | None = None,
    shared: bool = False,
    **kw: Any,
) -> dict[str, Any]:
    """Seed the OLD samples (``shared``: the first review listed by the second product too), run the migration."""
    setup = folder / "setup.mongosh.js"
    samples = _seed(diff)
    where = storage(diff.old_design, diff.old, "product_reviews")
    assert where is not None and where.parent is not None
    if shared and where.refs is not None and where.child is not None:
        samples[where.parent][1][where.refs].append(samples[where.child][0]["_id"])
    elif shared:
        docs = samples[where.parent]
        products = [d["_id"] for d in docs if d["doc_type"] == "product"]
        review = next(d for d in docs if d["doc_type"] == "review")
        review["links"].append({"target": products[1], "doc_type": "product"})
    setup.write_text(mongosh_script(diff.old_design, diff.old, samples=samples), encoding="utf-8")
    migration = folder / "migration.mongosh.js"
    text = migration_script(diff)
    if batch is not None:
        text = text.replace("const BATCH = 1000;", f"const BATCH = {batch};", 1)
    migration.write_text(text.replace('"size": 60,', '"size": 2,'), encoding="utf-8")
    node_check(migration)
    return run_scripts(migration, runs=runs, seeds=(setup,), **kw)


def _diff(old: str, new: str) -> SchemaDiff:
    copies = "extended-ref" in (old, new)
    diff = diff_projects(project(_with(old, copies)), project(_with(new, copies)))
    kinds = [(c.details["old"], c.details["new"]) for c in diff.changes if c.kind == "strategy-changed"]
    assert kinds == [(old, new)]
    return diff


def _check_subset(recording: dict[str, Any], where: Storage) -> None:
    """Each product's subset holds copies of its LATEST newest reviews, newest first."""
    assert where.subset is not None and where.parent is not None
    mine: dict[str, list[dict[str, Any]]] = {}
    for product, review in _reviews(recording, where):
        mine.setdefault(product, []).append(review)
    for product in _docs(recording, where.parent):
        newest = sorted(mine.get(str(product["_id"]), []), key=lambda r: r["at"], reverse=True)[:LATEST]
        assert [(c["text"], c["at"]) for c in product[where.subset]] == [(r["text"], r["at"]) for r in newest]
    assert any(len(r) > LATEST for r in mine.values()), "a product has more reviews than its subset keeps"


STRATEGIES = ["embed", "child-refs", "parent-ref", "two-way", "extended-ref", "subset", "bucket", "single-collection"]
#: every pair of strategies: each one's copy is generated
TRANSITIONS = [(a, b) for a in STRATEGIES for b in STRATEGIES if a != b]


@pytest.mark.parametrize(("old", "new"), TRANSITIONS, ids=lambda v: str(v))
def test_a_pattern_change_moves_every_link_into_the_new_shape(old: str, new: str, tmp_path: Path) -> None:
    diff = _diff(old, new)
    before_where = storage(diff.old_design, diff.old, "product_reviews")
    after_where = storage(diff.new_design, diff.new, "product_reviews")
    assert before_where is not None and after_where is not None
    assert "NOT MIGRATED" not in migration_script(diff)
    twice = _run(diff, tmp_path, runs=2)
    before = _pairs(run_scripts(tmp_path / "setup.mongosh.js", runs=1), before_where)
    assert len(before) >= 3, "the samples link reviews to products"
    assert _pairs(twice, after_where) == before  # who belongs to whom, read from the NEW shape
    if after_where.subset is not None:
        _check_subset(twice, after_where)
    if after_where.bucket is not None:
        buckets = _docs(twice, after_where.child or "")
        assert sorted(b["count"] for b in buckets) == sorted(len(b["reviews"]) for b in buckets)
        assert max(b["count"] for b in buckets) == 2 and all(b["start"] <= b["end"] for b in buckets)
    for coll in diff.new_design.collections:
        for doc in _docs(twice, coll.name):
            assert errors(validator_document(coll), doc) == [], (coll.name, doc)
    for op in ("insertMany", "updateOne", "updateMany", "deleteMany"):  # the second run finds every step done
        assert [c for c in calls(twice, 1, op) if c["collection"] != MARKERS] == [], op


@pytest.mark.parametrize(
    ("old", "new", "kill"),
    [
        ("parent-ref", "bucket", 1),  # inside the first series: the bucket is in, its reviews not removed yet
        ("parent-ref", "bucket", 3),
        ("bucket", "parent-ref", 2),
        ("parent-ref", "single-collection", 1),
        ("single-collection", "parent-ref", 1),
        ("parent-ref", "subset", 2),
        ("child-refs", "single-collection", 2),
        ("single-collection", "child-refs", 1),
        ("embed", "bucket", 1),
        ("bucket", "embed", 2),
        ("single-collection", "bucket", 2),
        ("embed", "single-collection", 1),
        ("single-collection", "embed", 2),
    ],
    ids=lambda v: str(v),
)
def test_a_pattern_copy_killed_midway_completes_when_run_again(old: str, new: str, kill: int, tmp_path: Path) -> None:
    diff = _diff(old, new)
    (tmp_path / "whole").mkdir()
    (tmp_path / "killed").mkdir()
    whole = _run(diff, tmp_path / "whole", runs=1, batch=2)
    killed = _run(diff, tmp_path / "killed", runs=2, batch=2, kill_after=kill)
    assert killed["runs"][0].get("killed") is True
    where = storage(diff.new_design, diff.new, "product_reviews")
    assert where is not None
    reviews = sorted((p, r["text"], r["at"].isoformat()) for p, r in _reviews(killed, where))
    assert reviews == sorted((p, r["text"], r["at"].isoformat()) for p, r in _reviews(whole, where))
    for coll in diff.new_design.collections:
        assert len(_docs(killed, coll.name)) == len(_docs(whole, coll.name)), coll.name


def _timed(strategy: str) -> Any:
    data = _with(strategy)
    entity(data, "review")["timeseries"] = {"time_field": "at"}
    return project(data)


def test_buckets_from_a_native_time_series_collection_are_built_aside(tmp_path: Path) -> None:
    """A time series collection cannot hold bucket documents (nor be renamed): the buckets are built in a collection
    of their own, with the NEW validator and indexes, and swapping the two is a commented step."""
    diff = diff_projects(_timed("parent-ref"), _timed("bucket"))
    old = diff.old_design.collection("review")
    assert old is not None and old.timeseries is not None, "the OLD reviews are a native time series collection"
    text = migration_script(diff)
    assert "NOT MIGRATED" not in text
    assert '  // target.getCollection("review").drop();' in text
    assert '  // target.getCollection("review_buckets").renameCollection("review");' in text
    twice = _run(diff, tmp_path, runs=2)
    seeded = _docs(run_scripts(tmp_path / "setup.mongosh.js", runs=1), "review")
    assert _docs(twice, "review") == seeded, "the time series collection is only read"
    new = diff.new_design.collection("review")
    assert new is not None and new.bucket is not None
    buckets = _docs(twice, "review_buckets")
    assert buckets and all(errors(validator_document(new), b) == [] for b in buckets)
    items = sorted((str(b["product_id"]), i["text"], i["at"]) for b in buckets for i in b["reviews"])
    assert items == sorted((str(r["product_id"]), r["text"], r["at"]) for r in seeded)
    for bucket in buckets:  # in time order, at most the design's size, bounds and count from their items
        times = [i["at"] for i in bucket["reviews"]]
        assert times == sorted(times) and 0 < len(times) <= new.bucket.size == 60
        assert (bucket["start"], bucket["end"], bucket["count"]) == (times[0], times[-1], len(times))
    indexes = [c for c in calls(twice, 0, "createIndex") if c["collection"] == "review_buckets"]
    assert [i["options"]["name"] for i in indexes] == [i.name for i in new.indexes]
    assert not any(c["collection"] == "review" for c in calls(twice, 0, "updateMany")), "no field step on it"
    for op in ("insertMany", "deleteMany", "updateMany"):
        assert [c for c in calls(twice, 1, op) if c["collection"] != MARKERS] == [], op


@pytest.mark.parametrize("kill", [1, 2, 3])
def test_buckets_built_aside_killed_between_batches_are_built_once(kill: int, tmp_path: Path) -> None:
    diff = diff_projects(_timed("parent-ref"), _timed("bucket"))
    (tmp_path / "whole").mkdir()
    (tmp_path / "killed").mkdir()
    whole = _run(diff, tmp_path / "whole", runs=1, batch=2)
    killed = _run(diff, tmp_path / "killed", runs=2, batch=2, kill_after=kill)
    assert killed["runs"][0].get("killed") is True

    def items(recording: dict[str, Any]) -> list[tuple[str, str, Any]]:
        buckets = _docs(recording, "review_buckets")
        return sorted((str(b["product_id"]), i["text"], i["at"]) for b in buckets for i in b["reviews"])

    assert items(killed) == items(whole) != []


@pytest.mark.parametrize(
    ("old", "new"), [("parent-ref", "bucket"), ("bucket", "parent-ref"), ("child-refs", "bucket")], ids=lambda v: str(v)
)
def test_a_bucket_change_with_the_reviews_collection_renamed_copies_under_the_new_name(
    old: str, new: str, tmp_path: Path
) -> None:
    """The rename runs first (step 1): the copy then finds the OLD documents under the NEW collection name."""
    new_data = _with(new)
    entity(new_data, "review")["collection"] = "opinions"
    diff = diff_projects(project(_with(old)), project(new_data))
    assert [c.details["new"] for c in diff.changes if c.kind == "collection-renamed"] == ["opinions"]
    text = migration_script(diff)
    assert "NOT MIGRATED" not in text
    twice = _run(diff, tmp_path, runs=2)
    before = storage(diff.old_design, diff.old, "product_reviews")
    after = storage(diff.new_design, diff.new, "product_reviews")
    assert before is not None and after is not None and after.child == "opinions"
    assert _pairs(twice, after) == _pairs(run_scripts(tmp_path / "setup.mongosh.js", runs=1), before) != set()
    for coll in diff.new_design.collections:
        for doc in _docs(twice, coll.name):
            assert errors(validator_document(coll), doc) == [], (coll.name, doc)
    steps = [line for line in text.splitlines() if line.startswith("  migrate(") and '"opinions: field-' in line]
    assert steps == [], "the copy reshapes the reviews: no field step of its own"
    for op in ("insertMany", "deleteMany", "updateMany", "updateOne"):
        assert [c for c in calls(twice, 1, op) if c["collection"] != MARKERS] == [], op


#: a collection name (MongoDB refuses a `$` in one) and a field name no generated line may splice raw
HOSTILE = 'rev"iew</script>\u2028{x}\\'
HOSTILE_FIELD = 'st"ars</script>\u2028${y}'


@pytest.mark.parametrize(
    ("old", "new"),
    [("parent-ref", "bucket"), ("bucket", "parent-ref"), ("parent-ref", "single-collection"), ("parent-ref", "subset")],
    ids=lambda v: str(v),
)
def test_hostile_names_stay_string_literals_in_the_pattern_copies(old: str, new: str, tmp_path: Path) -> None:
    def hostile(strategy: str) -> Any:
        data = _with(strategy)
        entity(data, "review")["collection"] = HOSTILE
        next(f for f in entity(data, "review")["fields"] if f["name"] == "stars")["name"] = HOSTILE_FIELD
        return project(data)

    diff = diff_projects(hostile(old), hostile(new))
    text = migration_script(diff)
    assert "NOT MIGRATED" not in text
    for name in (HOSTILE, HOSTILE_FIELD):
        assert name not in text and json.dumps(name).replace("</", "<\\/").replace("\u2028", "\\u2028") in text
    recording = _run(diff, tmp_path, runs=2)
    after = storage(diff.new_design, diff.new, "product_reviews")
    assert after is not None
    before = storage(diff.old_design, diff.old, "product_reviews")
    assert before is not None
    assert _pairs(recording, after) == _pairs(run_scripts(tmp_path / "setup.mongosh.js", runs=1), before)
    stars = [r.get(HOSTILE_FIELD) for _, r in _reviews(recording, after)]
    assert any(isinstance(v, int) for v in stars), "the hostile field's values moved with their reviews"
    for coll in diff.new_design.collections:
        for doc in _docs(recording, coll.name):
            assert errors(validator_document(coll), doc) == [], (coll.name, doc)


def test_a_unique_index_of_the_documents_holds_the_bucket_step_back_until_dropped(tmp_path: Path) -> None:
    def unique(strategy: str) -> Any:
        data = _with(strategy)
        next(f for f in entity(data, "review")["fields"] if f["name"] == "text")["unique"] = True
        return project(data)

    diff = diff_projects(unique("parent-ref"), unique("bucket"))
    text = migration_script(diff)
    assert '// target.getCollection("review").dropIndex("text_1");' in text
    recording = _run(diff, tmp_path, runs=1)
    assert any("not moved yet" in line and "text_1" in line for line in recording["runs"][0]["prints"])
    assert calls(recording, 0, "insertMany") == [] and calls(recording, 0, "deleteMany") == []
    where = storage(diff.old_design, diff.old, "product_reviews")
    assert where is not None
    assert _pairs(recording, where) == _pairs(run_scripts(tmp_path / "setup.mongosh.js", runs=1), where)


@pytest.mark.parametrize(
    ("old", "new"),
    [("child-refs", "single-collection"), ("single-collection", "child-refs"), ("single-collection", "embed")],
)
def test_a_review_of_two_products_stays_with_both(old: str, new: str, tmp_path: Path) -> None:
    """Listed by two products (child-refs) is linked to two (single collection), and back."""
    diff = _diff(old, new)
    recording = _run(diff, tmp_path, runs=2, shared=True)
    before_where = storage(diff.old_design, diff.old, "product_reviews")
    after_where = storage(diff.new_design, diff.new, "product_reviews")
    assert before_where is not None and after_where is not None
    by_review: dict[str, set[str]] = {}
    for product, review in _reviews(recording, after_where):
        by_review.setdefault(f"{review['text']} {review['at']}", set()).add(product)
    assert max(len(v) for v in by_review.values()) == 2, "one review belongs to two products"
    assert _pairs(recording, after_where) == _pairs(run_scripts(tmp_path / "setup.mongosh.js", runs=1), before_where)


def test_a_field_renamed_with_the_bucket_change_keeps_its_values(tmp_path: Path) -> None:
    """parent-ref -> bucket and "text" -> "body" in one diff: the documents are removed once bucketed, so each item
    keeps every field it had (under its old name), none is lost."""
    old_data, new_data = _with("parent-ref"), _with("bucket")
    next(f for f in entity(new_data, "review")["fields"] if f["name"] == "text")["name"] = "body"
    diff = diff_projects(project(old_data), project(new_data))
    recording = _run(diff, tmp_path, runs=2)
    seeded = _docs(run_scripts(tmp_path / "setup.mongosh.js", runs=1), "review")
    items = [item for bucket in _docs(recording, "review") for item in bucket["reviews"]]
    assert sorted(i["text"] for i in items) == sorted(r["text"] for r in seeded)
    assert sorted((i["at"], i.get("stars")) for i in items) == sorted((r["at"], r.get("stars")) for r in seeded)
    assert all("_id" not in i and "product_id" not in i for i in items)
