"""``modeller diff OLD NEW --migration`` run in the real mongosh against the live server.

Documents of the OLD design are inserted with pymongo (into collections ``modeller apply`` made for OLD);
the script runs in mongosh; then every document read back passes the NEW validators (asked of the server),
a second run changes nothing, ``apply`` only tightens the validators and ``drift`` names only what the script
leaves on purpose. A run killed (SIGKILL) between two batches completes when run again.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymongo
import pytest
from bson import Decimal128, Int64, json_util
from js_harness import run_scripts
from live_support import LiveServer, print_server
from mongosh_support import failing, mongosh, ran, state
from roundtrip import modeller

from modeller.export.literals import js_exact, js_string
from modeller.export.samples import sample_documents
from modeller.model.project import Project
from modeller.review.migration import MARKERS
from modeller.rules import analyse

pytestmark = [pytest.mark.node, pytest.mark.slow]

DOCS = 12
BASE: dict[str, Any] = {
    "format": "mongo-schema-modeller",
    "format_version": 1,
    "name": "Shop",
    "entities": [
        {
            "id": "shop",
            "name": "Shop",
            "collection": "shops",
            "count": 1000,
            "fields": [
                {"name": "name", "type": "string", "required": True, "example": "Corner"},
                {"name": "city", "type": "string", "required": True},
                {"name": "rating", "type": "int"},
            ],
        },
        {
            "id": "product",
            "name": "Product",
            "collection": "products",
            "count": 50000,
            "fields": [
                {"name": "title", "type": "string", "required": True},
                {"name": "price", "type": "int", "required": True},
            ],
            "indexes": [{"keys": [["title", 1]], "name": "by_title"}, {"keys": [["price", -1]], "name": "by_price"}],
        },
        {
            "id": "review",
            "name": "Review",
            "collection": "reviews",
            "count": 200000,
            "fields": [{"name": "text", "type": "string", "required": True}, {"name": "stars", "type": "int"}],
        },
    ],
    "relationships": [
        {
            "id": "product_reviews",
            "one": "product",
            "many": "review",
            "name": "reviews",
            "cardinality": "one-to-few",
            "max": 20,
            "strategy": "embed",
        }
    ],
}


def _entity(data: dict[str, Any], ident: str) -> dict[str, Any]:
    return next(e for e in data["entities"] if e["id"] == ident)


#: a field name the script must quote (JSON string literal through modeller.export.literals)
HOSTILE = 'to"wn</script>\u2028${x}'


def _rename(data: dict[str, Any], to: str = "town") -> None:
    next(f for f in _entity(data, "shop")["fields"] if f["name"] == "city")["name"] = to


def _rename_hostile(data: dict[str, Any]) -> None:
    _rename(data, HOSTILE)


def _required_with_default(data: dict[str, Any]) -> None:
    _entity(data, "product")["fields"].append(
        {"name": "currency", "type": "string", "required": True, "example": "EUR"}
    )


def _embed_to_parent_ref(data: dict[str, Any]) -> None:
    data["relationships"][0]["strategy"] = "parent-ref"


def _remove_index(data: dict[str, Any]) -> None:
    _entity(data, "product")["indexes"] = [ix for ix in _entity(data, "product")["indexes"] if ix["name"] != "by_title"]


def _all(data: dict[str, Any]) -> None:
    for edit in (_rename, _required_with_default, _embed_to_parent_ref, _remove_index):
        edit(data)


class Migration:
    """OLD applied and filled with OLD-shaped documents, the NEW project, and the migration script between them."""

    def __init__(
        self,
        server: LiveServer,
        name: str,
        folder: Path,
        edit: Callable[[dict[str, Any]], None],
        base: dict[str, Any] = BASE,
        retype: Callable[[Any], None] | None = None,
    ) -> None:
        self.server, self.name, self.folder = server, name, folder
        old_data = copy.deepcopy(base) | {"database": name}
        new_data = copy.deepcopy(old_data)
        edit(new_data)
        self.old_file, self.new_file = folder / "old.modeller.json", folder / "new.modeller.json"
        self.old_file.write_text(json.dumps(old_data), encoding="utf-8")
        self.new_file.write_text(json.dumps(new_data), encoding="utf-8")
        old = Project.model_validate(old_data)
        self.new_design = analyse(Project.model_validate(new_data)).design
        applied = modeller("apply", str(self.old_file), server.uri)
        assert applied.returncode == 0, applied.stderr
        self.inserted = sample_documents(analyse(old).design, old, n=DOCS)
        if retype is not None:  # exact values of the test's choosing in the OLD samples
            retype(self.inserted)
        with self.client() as client:
            for coll, docs in self.inserted.items():
                client[name][coll].insert_many(copy.deepcopy(docs))  # the OLD validator (strict) takes each one
        self.script = folder / "migration.mongosh.js"
        diffed = modeller("diff", str(self.old_file), str(self.new_file), "--migration", str(self.script))
        assert diffed.returncode == 0, diffed.stderr

    def client(self) -> pymongo.MongoClient:
        return pymongo.MongoClient(self.server.uri, serverSelectionTimeoutMS=5000, tz_aware=True)

    def run(self, **kwargs: Any) -> Any:
        return mongosh(self.server.uri, self.script, home=self.folder / "home", **kwargs)

    def run_script(self, script: Path) -> Any:
        return mongosh(self.server.uri, script, home=self.folder / "home")

    def documents(self, coll: str) -> list[dict[str, Any]]:
        with self.client() as client:
            return list(client[self.name][coll].find().sort("_id", 1))

    def check_new_shape(self, left: set[tuple[str, str, str | None]]) -> None:
        """Every document passes the NEW validators; apply then only tightens them; drift names only ``left``
        (what the script leaves on purpose)."""
        with self.client() as client:
            for coll in self.new_design.collections:
                assert self.documents(coll.name), coll.name
                assert failing(client[self.name], coll) == [], coll.name
        plan = modeller("apply", str(self.new_file), self.server.uri, "--format", "json")
        assert plan.returncode == 0, plan.stderr
        assert {s["kind"] for s in json.loads(plan.stdout)["steps"]} <= {"tighten-validator"}  # nothing else to do
        drift = modeller("drift", str(self.new_file), self.server.uri, "--format", "json")
        found = {(d["kind"], d["collection"], d["path"]) for d in json.loads(drift.stdout)["drift"]}
        assert found == left, drift.stdout


def _renamed(m: Migration, to: str = "town") -> None:
    before = {d["_id"]: d["city"] for d in m.inserted["shops"]}
    after = m.documents("shops")
    assert {d["_id"]: d.get(to) for d in after} == before
    assert not any("city" in d for d in after)


def _renamed_hostile(m: Migration) -> None:
    _renamed(m, HOSTILE)


def _defaulted(m: Migration) -> None:
    assert [d["currency"] for d in m.documents("products")] == ["EUR"] * len(m.inserted["products"])


def _copied_out(m: Migration) -> None:
    embedded = sorted((p["_id"], r["text"], r.get("stars")) for p in m.inserted["products"] for r in p["reviews"])
    assert embedded, "the OLD samples embed reviews"
    copied = sorted((r["product_id"], r["text"], r.get("stars")) for r in m.documents("reviews"))
    assert copied == embedded


def _hidden(m: Migration) -> None:
    with m.client() as client:
        hidden = {ix["name"]: ix.get("hidden", False) for ix in client[m.name].products.list_indexes()}
    assert hidden == {"_id_": False, "by_title": True, "by_price": False}, "hidden, not dropped"


#: the script's progress markers (a collection only data steps make)
MARKERS_LEFT = ("collection-extra", MARKERS, None)
#: the embedded copies stay in the parent until the removed field is unset by hand (a commented step)
EMBEDDED_LEFT = ("field-extra", "products", "reviews")
#: a hidden index is still there: dropping it is a commented step
HIDDEN_LEFT = ("index-extra", "products", None)
CASES: dict[str, tuple[Callable[[dict[str, Any]], None], Callable[[Migration], None], set]] = {
    "field-rename": (_rename, _renamed, {MARKERS_LEFT}),
    "field-rename-to-a-hostile-name": (_rename_hostile, _renamed_hostile, {MARKERS_LEFT}),
    "new-required-field-with-default": (_required_with_default, _defaulted, {MARKERS_LEFT}),
    "embed-to-parent-ref": (_embed_to_parent_ref, _copied_out, {MARKERS_LEFT, EMBEDDED_LEFT}),
    "index-removal": (_remove_index, _hidden, {HIDDEN_LEFT}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_migration_brings_old_documents_to_the_new_design_and_a_second_run_changes_nothing(
    case: str, live_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    server, name = live_db
    print_server(server)
    edit, check, left = CASES[case]
    m = Migration(server, name, tmp_path, edit)
    ran(m.run())
    check(m)
    once = state(server.uri, name)
    again = ran(m.run())
    assert state(server.uri, name) == once, "the second run changed the database"
    if case != "index-removal":  # a data step: the marker says it is done
        assert "done in an earlier run" in again
    m.check_new_shape(left)


def test_an_index_new_keeps_that_the_database_lacks_is_created_before_the_old_one_is_hidden(
    live_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    """Tryout a13 item 3: the database never got an index OLD "has" (an inferred OLD's engine-advised one);
    the script creates it before it hides the removed one, and a second run claims nothing."""
    server, name = live_db
    print_server(server)
    m = Migration(server, name, tmp_path, _remove_index)
    with m.client() as client:
        client[name].products.drop_index("by_price")  # OLD has it, the database does not
    first = ran(m.run())
    _hidden(m)
    assert first.index('created index "by_price" on "products"') < first.index('hid index "by_title" on "products"')
    again = ran(m.run())
    assert "created" not in again and "hid index" not in again and "updated with collMod" not in again, again
    m.check_new_shape({HIDDEN_LEFT})


def test_a_run_killed_between_batches_completes_when_run_again(live_db: tuple[LiveServer, str], tmp_path: Path) -> None:
    server, name = live_db
    print_server(server)
    m = Migration(server, name, tmp_path, _all)
    text = m.script.read_text(encoding="utf-8")
    assert text.count("const BATCH = 1000;") == 1
    m.script.write_text(text.replace("const BATCH = 1000;", "const BATCH = 2;"), encoding="utf-8")

    killed = m.run(kill_after_batches=3)
    assert killed.returncode == -9, killed.stdout + killed.stderr
    assert killed.stdout.strip().splitlines()[-1] == "shops: field-renamed town: 6 document(s) so far"
    shops = m.documents("shops")
    assert sum("town" in d for d in shops) == 6 and sum("city" in d for d in shops) == DOCS - 6, "cut after 3 batches"

    resumed = ran(m.run())
    progress = [line for line in resumed.splitlines() if line.startswith("shops: field-renamed town:")]
    assert progress[0] == "shops: field-renamed town: 8 document(s) so far", "it continues, it does not start over"
    for case, (_, check, _) in CASES.items():
        if case != "field-rename-to-a-hostile-name":
            check(m)
    m.check_new_shape({MARKERS_LEFT, EMBEDDED_LEFT, HIDDEN_LEFT})


#: each number type, the double a whole value: mongosh reads 3.0 as the JS number 3 and writes that back as an int
NUMBERS: dict[str, Any] = {"weight": 3.0, "stock": 7, "views": Int64(2**40), "price": Decimal128("12.50")}
NUMBER_TYPES = {"weight": "double", "stock": "int", "views": "long", "price": "decimal"}
#: a new required double with the default 0.0, a long whose default a JS number cannot hold (2**53 + 1), and the
#: schema version each reshaped document gets, declared a double (the stand-in keeps a small long as an int)
DEFAULTS: dict[str, Any] = {"discount": 0.0, "serial": Int64(2**53 + 1), "schema_version": 2.0}


def _numbered(entity_id: str, name: str, collection: str, extra: list[dict[str, Any]]) -> dict[str, Any]:
    fields = [{"name": n, "type": t, "required": True} for n, t in NUMBER_TYPES.items()]
    return {"id": entity_id, "name": name, "collection": collection, "count": 1000, "fields": extra + fields}


TYPED: dict[str, Any] = {
    "format": "mongo-schema-modeller",
    "format_version": 1,
    "name": "Typed",
    "entities": [
        _numbered("product", "Product", "products", [{"name": "title", "type": "string", "required": True}]),
        _numbered(
            "review",
            "Review",
            "reviews",
            [{"name": "text", "type": "string", "required": True}, {"name": "at", "type": "date", "required": True}],
        ),
    ],
    "relationships": [
        {
            "id": "product_reviews",
            "one": "product",
            "many": "review",
            "name": "reviews",
            "cardinality": "one-to-many",
            "max": 500,
            "strategy": "embed",
        }
    ],
}


def _exact(value: Any) -> None:
    """Every number field of the OLD samples (top level, embedded, in bucket items) set to its value in NUMBERS."""
    if isinstance(value, dict):
        for key in value:
            if key in NUMBERS:
                value[key] = NUMBERS[key]
            else:
                _exact(value[key])
    elif isinstance(value, list):
        for item in value:
            _exact(item)


def _exact_and_linked(inserted: dict[str, list[dict[str, Any]]]) -> None:
    """:func:`_exact`, and each review of the single collection linked to a product (the samples link none)."""
    _exact(inserted)
    products = [d["_id"] for d in inserted["products"] if d["doc_type"] == "product"]
    reviews = [d for d in inserted["products"] if d["doc_type"] == "review"]
    assert products and reviews, "the OLD samples hold both types"
    for i, review in enumerate(reviews):
        review["links"] = [{"target": products[i % len(products)], "doc_type": "product"}]


def _to(strategy: str) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data["relationships"][0]["strategy"] = strategy

    return edit


def _defaults(data: dict[str, Any]) -> None:
    _entity(data, "product")["fields"] += [
        {"name": "discount", "type": "double", "required": True, "example": 0.0},
        {"name": "serial", "type": "long", "required": True, "example": 2**53 + 1},
        {"name": "schema_version", "type": "double", "example": 2},
    ]


#: per case: the OLD strategy, the edit to NEW, and where NEW keeps numbers ("coll.array": embedded or bucketed)
NUMBER_CASES: dict[str, tuple[str, Callable[[dict[str, Any]], None], set[str]]] = {
    "embed-to-parent-ref": ("embed", _to("parent-ref"), {"products", "reviews"}),
    "parent-ref-to-embed": ("parent-ref", _to("embed"), {"products", "products.reviews"}),
    "parent-ref-to-bucket": ("parent-ref", _to("bucket"), {"products", "reviews.reviews"}),
    "new-required-double-with-default": ("parent-ref", _defaults, {"products", "reviews"}),
    # the other copy helpers that read documents and write them back
    "bucket-to-parent-ref": ("bucket", _to("parent-ref"), {"products", "reviews"}),
    "embed-to-child-refs": ("embed", _to("child-refs"), {"products", "reviews"}),
    "parent-ref-to-subset": ("parent-ref", _to("subset"), {"products", "products.recent_reviews", "reviews"}),
    "parent-ref-to-single-collection": ("parent-ref", _to("single-collection"), {"products"}),
    "embed-to-single-collection": ("embed", _to("single-collection"), {"products"}),
    "single-collection-to-embed": ("single-collection", _to("embed"), {"products", "products.reviews"}),
}


def _number_types(m: Migration) -> dict[str, set[tuple[str, str]]]:
    """Per place of the NEW design that holds numbers (a collection, or its embedded or bucketed items), the
    (field, BSON type) pairs its documents hold, asked of the server with ``$type``."""
    out: dict[str, set[tuple[str, str]]] = {}
    with m.client() as client:
        for coll in m.new_design.collections:
            arrays = [
                n.name for n in coll.shape if n.items is not None and any(c.name in NUMBERS for c in n.items.children)
            ]
            for place in [None, *arrays]:
                prefix = "$" if place is None else f"${place}."
                pipeline: list[dict[str, Any]] = [{"$unwind": f"${place}"}] if place is not None else []
                names = [*NUMBERS, *DEFAULTS] if place is None and coll.name == "products" else list(NUMBERS)
                pipeline.append({"$project": {"_id": 0, **{n: {"$type": prefix + n} for n in names}}})
                rows = list(client[m.name][coll.name].aggregate(pipeline))
                assert rows, (coll.name, place)
                types = {(n, t) for row in rows for n, t in row.items() if t != "missing"}
                out[coll.name if place is None else f"{coll.name}.{place}"] = types
    return out


@pytest.mark.parametrize("case", sorted(NUMBER_CASES))
def test_copied_and_defaulted_numbers_keep_the_bson_type_the_new_validator_requires(
    case: str, live_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    """mongosh promotes what it reads to JS numbers and writes a whole one as an int: the copies read with
    ``promoteValues: false`` and the defaults are typed literals, so a double stays a double (and a long exact)."""
    server, name = live_db
    print_server(server)
    old_strategy, edit, places = NUMBER_CASES[case]
    base = copy.deepcopy(TYPED)
    base["relationships"][0]["strategy"] = old_strategy
    retype = _exact_and_linked if old_strategy == "single-collection" else _exact
    m = Migration(server, name, tmp_path, edit, base=base, retype=retype)
    ran(m.run())

    found = {place: types for place, types in _number_types(m).items() if types}  # bucket documents hold none
    wanted = {place: set(NUMBER_TYPES.items()) for place in places}
    if case.startswith("new-"):
        wanted["products"] |= {("discount", "double"), ("serial", "long"), ("schema_version", "double")}
    assert found == wanted
    with m.client() as client:
        for coll in m.new_design.collections:
            assert failing(client[name], coll) == [], coll.name
    if case.startswith("new-"):
        assert {tuple(d[n] for n in DEFAULTS) for d in m.documents("products")} == {tuple(DEFAULTS.values())}
    if case == "parent-ref-to-bucket":  # the statistics, from numbers read unpromoted
        reviews = m.new_design.collection("reviews")
        assert reviews is not None and reviews.bucket is not None and reviews.bucket.value_field == "weight"
        buckets = m.documents("reviews")
        items = [len(b[reviews.bucket.items_field]) for b in buckets]
        assert sum(items) == len(m.inserted["reviews"]) and [b["count"] for b in buckets] == items
        assert [(b["sum"], b["min"], b["max"]) for b in buckets] == [(3.0 * n, 3.0, 3.0) for n in items]
        with m.client() as client:
            stats = client[name].reviews.aggregate(
                [{"$project": {"_id": 0, "c": {"$type": "$count"}, "s": {"$type": "$sum"}}}]
            )
            assert {(row["c"], row["s"]) for row in stats} == {("int", "double")}
    once = state(server.uri, name)
    ran(m.run())
    assert state(server.uri, name) == once, "the second run changed the database"


def test_a_run_of_a_script_with_numbered_steps_resumes_under_the_named_keys(
    live_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    """A marker a run of a script written before the steps were named ("-0") left is taken over, not redone."""
    server, name = live_db
    print_server(server)
    m = Migration(server, name, tmp_path, _embed_to_parent_ref)
    text = m.script.read_text(encoding="utf-8")
    m.script.write_text(text.replace("const BATCH = 1000;", "const BATCH = 2;"), encoding="utf-8")
    (step,) = {line.split('"')[1] for line in text.splitlines() if line.startswith("  copyOut(")}
    assert step.endswith("-strategy-changed-copy-out"), step
    numbered = step.removesuffix("-copy-out") + "-0"
    assert f'renameMarkers([["{numbered}", "{step}"]]);' in text

    killed = m.run(kill_after_batches=2)
    assert killed.returncode == -9, killed.stdout + killed.stderr
    with m.client() as client:  # the marker as the earlier script named it
        markers = client[name][MARKERS]
        (marker,) = [d for d in markers.find() if d["_id"].endswith(" " + step)]
        markers.delete_one({"_id": marker["_id"]})
        markers.insert_one({**marker, "_id": marker["_id"].removesuffix(step) + numbered})
    resumed = ran(m.run())
    progress = [line for line in resumed.splitlines() if line.endswith("document(s) so far")]
    assert progress[0].endswith(": 6 document(s) so far"), resumed  # it continues, it does not start over
    with m.client() as client:
        keys = [d["_id"] for d in client[name][MARKERS].find()]
    assert any(k.endswith(" " + step) for k in keys) and not any(k.endswith(" " + numbered) for k in keys), keys
    _copied_out(m)


def _seed_script(m: Migration) -> Path:
    """The OLD documents inserted by a script, each as a typed literal (the same start for mongosh and the harness)."""
    lines = [f"const seeded = db.getSiblingDB({js_string(m.name)});"]
    for coll, docs in m.inserted.items():
        lines += [f"seeded.getCollection({js_string(coll)}).insertOne({js_exact(doc)});" for doc in docs]
    path = m.folder / "seed.mongosh.js"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _canonical(docs: list[Any]) -> list[str]:
    """The documents as canonical Extended JSON texts, without the ``_id`` a script gives a new document (a copied
    out review, a bucket): those differ between two runs; the references to seeded documents are compared."""
    return sorted(json.dumps({k: v for k, v in d.items() if k != "_id"}, sort_keys=True) for d in docs)


@pytest.mark.parametrize("case", ["parent-ref-to-bucket", "embed-to-parent-ref"])
def test_the_recording_harness_types_numbers_as_mongosh_does(
    case: str, live_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    """One migration script, run in the real mongosh against the stand-in and in the Node harness from the same
    documents: every document, every number of it with its BSON type, comes out the same."""
    server, name = live_db
    print_server(server)
    old_strategy, edit, _ = NUMBER_CASES[case]
    base = copy.deepcopy(TYPED)
    base["relationships"][0]["strategy"] = old_strategy
    m = Migration(server, name, tmp_path, edit, base=base, retype=_exact)
    with m.client() as client:  # the start is the seed script's, in both
        for coll in m.inserted:
            client[name][coll].delete_many({})
    seed = _seed_script(m)
    ran(m.run_script(seed))
    ran(m.run())
    setup = tmp_path / "old-setup"
    exported = modeller("export", str(m.old_file), "--out", str(setup), "--only", "setup")
    assert exported.returncode == 0, exported.stderr
    recorded = run_scripts(m.script, runs=1, seeds=(setup / "setup.mongosh.js", seed))
    harness = recorded["documents"][name]
    with m.client() as client:
        colls = sorted(c for c in client[name].list_collection_names() if c != MARKERS)
        served = {
            c: [
                json.loads(json_util.dumps(d, json_options=json_util.CANONICAL_JSON_OPTIONS))
                for d in client[name][c].find()
            ]
            for c in colls
        }
    assert colls == sorted(c for c in harness if c != MARKERS)
    for coll in colls:
        assert _canonical(harness[coll]) == _canonical(served[coll]), coll


#: the number literals a script may hold (plain JS numbers, typed ones), stored, read back promoted and unpromoted
NUMBERS_SCRIPT = """\
(function () {
  const target = db.getSiblingDB(%s);
  const coll = target.getCollection("numbers");
  coll.insertOne({ _id: 1, small: 3, half: 2.5, big: 5000000000, negative: -7, zero: -0, int: NumberInt(4),
                   double: Double(3), long: NumberLong("5"), decimal: NumberDecimal("1.5") });
  const promoted = coll.findOne({ _id: 1 });
  coll.insertOne(Object.assign({}, promoted, { _id: 2 }));
  const exact = coll.find({ _id: 1 }, {}, { promoteValues: false }).toArray()[0];
  coll.insertOne(Object.assign({}, exact, { _id: 3 }));
  coll.updateOne({ _id: 1 }, { $set: { later: 6000000000, count: promoted.small + 1 } });
})();
"""


def test_the_recording_harness_stores_and_reads_number_literals_as_mongosh_does(
    live_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    """A whole number beyond int32 and -0 are doubles, a read promotes an int and a double to a JS number (a whole
    double is then written back as an int) unless it asks for promoteValues: false: in mongosh and in the harness."""
    server, name = live_db
    print_server(server)
    script = tmp_path / "numbers.mongosh.js"
    script.write_text(NUMBERS_SCRIPT % js_string(name), encoding="utf-8")
    ran(mongosh(server.uri, script, home=tmp_path / "home"))
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        served = [
            json.loads(json_util.dumps(d, json_options=json_util.CANONICAL_JSON_OPTIONS))
            for d in client[name].numbers.find().sort("_id", 1)
        ]
    finally:
        client.close()
    recorded = run_scripts(script, runs=1)["documents"][name]["numbers"]
    assert recorded == served
    assert served[0]["big"] == {"$numberDouble": "5000000000.0"} and served[0]["later"] == {
        "$numberDouble": "6000000000.0"
    }
    assert served[1]["double"] == {"$numberInt": "3"}, "read promoted, a whole double comes back an int"
    assert served[2]["double"] == {"$numberDouble": "3.0"} and served[1]["long"] == {"$numberLong": "5"}
