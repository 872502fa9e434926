"""Sample values look like the data they stand for: a field's meaning on its entity, computed values that add up."""

from __future__ import annotations

import re
from typing import Any

import pytest
from bson import Int64
from bson_checker import errors
from faker.providers.person.en_US import Provider as PersonNames
from seed_support import analysed

from modeller.export import sample_documents, samples_json
from modeller.export.meanings import WORDS, entity_kind, meaning_provider
from modeller.model import Project, check_project
from modeller.rules import analyse


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z]+", text))


PERSON_WORDS = set(PersonNames.first_names) | set(PersonNames.last_names)
PRODUCT_WORDS = _words(" ".join(WORDS["product_adjective"] + WORDS["material"] + WORDS["product_noun"]))
PRODUCT_WORDS |= _words(" ".join(WORDS["product_series"]))
SKU = re.compile(r"^[A-Z]{3}-\d{5}$")


def _project(entities: list[dict[str, Any]]) -> Project:
    data = {"format": "mongo-schema-modeller", "format_version": 1, "name": "Meanings", "entities": entities}
    project = Project.model_validate(data)
    assert check_project(project) == []
    return project


def _docs(project: Project, n: int = 6, seed: int = 0) -> dict[str, list[dict[str, Any]]]:
    design = analyse(project).design
    docs = sample_documents(design, project, n=n, seed=seed)
    for coll in design.collections:
        for doc in docs[coll.name]:
            assert errors(coll.validator, doc) == [], (coll.name, doc)
    return docs


def _strings(*names: str) -> list[dict[str, Any]]:
    return [{"name": name, "type": "string", "required": True} for name in names]


MEANINGS = _project(
    [
        {
            "id": "product",
            "name": "Product",
            "collection": "products",
            "fields": [
                *_strings("name", "sku", "status", "brand"),
                {"name": "cpu", "type": "string", "example": "M3 Pro"},
            ],
        },
        {"id": "user", "name": "User", "collection": "users", "fields": _strings("name", "email", "phone")},
        {"id": "category", "name": "Category", "collection": "categories", "fields": _strings("name", "slug")},
        {"id": "tag", "name": "Tag", "collection": "tags", "fields": _strings("name")},
        {"id": "post", "name": "Blog post", "collection": "posts", "fields": _strings("title", "url")},
        {"id": "movie", "name": "Movie", "collection": "movies", "fields": _strings("title", "country")},
        {"id": "task", "name": "Task", "collection": "tasks", "fields": _strings("title")},
        {"id": "tenant", "name": "Tenants", "collection": "tenants", "fields": _strings("name")},
        {"id": "host", "name": "Host", "collection": "hosts", "fields": _strings("name")},
        {"id": "listing", "name": "Shop listing", "collection": "listings", "fields": _strings("category_name")},
        {
            "id": "widget",
            "name": "Product variant",
            "collection": "widgets",
            "fields": [
                {"name": "name", "type": "string", "required": True, "faker": "name"},
                {"name": "email", "type": "string", "required": True, "faker": "company"},
            ],
        },
    ]
)


@pytest.fixture(scope="module")
def meant() -> dict[str, list[dict[str, Any]]]:
    return _docs(MEANINGS)


def test_a_products_name_is_a_product_name_not_a_persons(meant: dict[str, list[dict[str, Any]]]) -> None:
    names = [doc["name"] for doc in meant["products"]]
    assert len(set(names)) > 1
    for name in names:
        assert not _words(name) & PERSON_WORDS, name
        assert _words(name) <= PRODUCT_WORDS, name


def test_a_users_name_is_a_persons_name(meant: dict[str, list[dict[str, Any]]]) -> None:
    for user in meant["users"]:
        assert len(_words(user["name"]) & PERSON_WORDS) >= 2, user["name"]
        assert "@" in user["email"] and any(ch.isdigit() for ch in user["phone"])


def test_categories_and_tags_are_short_words(meant: dict[str, list[dict[str, Any]]]) -> None:
    assert {doc["name"] for doc in meant["categories"]} <= set(WORDS["category"])
    assert {doc["name"] for doc in meant["tags"]} <= set(WORDS["tag"])
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", doc["slug"]) for doc in meant["categories"])
    assert {doc["category_name"] for doc in meant["listings"]} <= set(WORDS["category"])


def test_titles_read_as_titles_of_their_entity(meant: dict[str, list[dict[str, Any]]]) -> None:
    topics = "|".join(map(re.escape, WORDS["headline_topic"]))
    for post in meant["posts"]:
        assert re.search(rf"({topics})", post["title"]), post["title"]
        assert post["url"].startswith(("http://", "https://"))
    title_words = set(WORDS["title_adjective"]) | set(WORDS["title_noun"]) | {"The", "of", "the"}
    for movie in meant["movies"]:
        assert _words(movie["title"]) <= title_words and movie["title"][0].isupper(), movie["title"]
    verbs = set(WORDS["task_verb"])
    assert all(task["title"].split()[0] in verbs for task in meant["tasks"])


def test_codes_statuses_companies_and_hosts(meant: dict[str, list[dict[str, Any]]]) -> None:
    for product in meant["products"]:
        assert SKU.match(product["sku"]), product["sku"]
        assert product["status"] in WORDS["status"]
    assert all(not _words(t["name"]) <= set(WORDS["category"]) for t in meant["tenants"])
    assert all("." in host["name"] and " " not in host["name"] for host in meant["hosts"])


def test_brands_come_from_their_list_and_an_unknown_name_repeats_its_example(
    meant: dict[str, list[dict[str, Any]]],
) -> None:
    assert {doc["brand"] for doc in meant["products"]} <= set(WORDS["brand"])
    assert {doc.get("cpu") for doc in meant["products"]} <= {"M3 Pro", None}
    assert any(doc.get("cpu") == "M3 Pro" for doc in meant["products"][1:])


def test_an_explicit_faker_wins_over_the_meaning(meant: dict[str, list[dict[str, Any]]]) -> None:
    for widget in meant["widgets"]:
        assert len(_words(widget["name"]) & PERSON_WORDS) >= 1, widget["name"]  # faker "name" on a product
        assert "@" not in widget["email"]  # faker "company" on an email field


def test_entity_kinds_read_the_last_word_first_and_plurals() -> None:
    assert entity_kind("order_item") == "product"
    assert entity_kind("categories") == "category"
    assert entity_kind("blog_post") == "post"
    assert entity_kind("audit_entry") is None
    assert meaning_provider("name", "person") == "name"
    assert meaning_provider("author_name", None) == "name"
    assert meaning_provider("email", "product") is None  # the field-name table decides


def test_a_unique_name_beyond_the_word_list_stays_unique() -> None:
    project = _project(
        [
            {
                "id": "c",
                "name": "Category",
                "collection": "categories",
                "fields": [*_strings("slug"), {"name": "name", "type": "string", "required": True, "unique": True}],
            }
        ]
    )
    names = [doc["name"] for doc in _docs(project, n=30)["categories"]]
    assert len(set(names)) == 30


def test_same_seed_same_meaningful_values_other_seed_other_ones() -> None:
    first = {k: samples_json(v) for k, v in _docs(MEANINGS, seed=4).items()}
    assert first == {k: samples_json(v) for k, v in _docs(MEANINGS, seed=4).items()}
    assert first["products"] != samples_json(_docs(MEANINGS, seed=5)["products"])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_ecommerce_products_are_named_like_products(seed: int) -> None:
    project, analysis = analysed("ecommerce")
    docs = sample_documents(analysis.design, project, n=5, seed=seed)
    products = {doc["_id"]: doc for doc in docs["products"]}
    for product in products.values():
        assert not _words(product["name"]) & PERSON_WORDS, product["name"]
    for order in docs["orders"]:
        for item in order["items"]:  # the snapshot copies the product's name
            assert item["name"] == products[item["product_id"]]["name"]
    for user in docs["users"]:
        assert _words(user["name"]) & PERSON_WORDS, user["name"]


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_ecommerce_rating_summarizes_the_reviews_generated(seed: int) -> None:
    """rating.count is the number of reviews of the product, sum their stars, avg == sum / count."""
    project, analysis = analysed("ecommerce")
    docs = sample_documents(analysis.design, project, n=5, seed=seed)
    stars: dict[Any, list[int]] = {}
    for review in docs["reviews"]:
        stars.setdefault(review["product_id"], []).append(review["stars"])
    assert sum(map(len, stars.values())) == len(docs["reviews"]) > 0
    for product in docs["products"]:
        mine = stars.get(product["_id"], [])
        rating = product["rating"]
        assert isinstance(rating["count"], Int64) and rating["count"] == len(mine), (rating, mine)
        assert rating["sum"] == float(sum(mine))
        if mine:
            assert rating["avg"] == pytest.approx(rating["sum"] / rating["count"])
        else:
            assert "avg" not in rating or rating["avg"] in (0, None)


#: what a product of each ecommerce subtype may be called (and nothing of another subtype or a desk lamp)
SUBTYPE_VOCABULARY = {
    "phone": {"Phone", "Smartphone"},
    "laptop": {"Laptop", "Notebook", "Ultrabook"},
    "headphone": {"Headphones", "Earbuds", "Headset"},
}
OTHER_NOUNS = _words(" ".join(WORDS["product_noun"])) - {"Headphones", "Notebook"}


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_ecommerce_products_are_named_after_their_subtype(seed: int) -> None:
    """A laptop is called a laptop (or notebook, ultrabook), never "Smart Steel Desk Lamp"; the order lines
    copy the name, so they agree too. The first document shows the user's own example ("iPhone 15")."""
    project, analysis = analysed("ecommerce")
    docs = sample_documents(analysis.design, project, n=9, seed=seed)
    products = docs["products"]
    assert {doc["type"] for doc in products} == set(SUBTYPE_VOCABULARY)
    for index, product in enumerate(products):
        words = _words(product["name"])
        if index == 0:
            assert product["name"] == "iPhone 15" and product["type"] == "phone"
            continue
        others = set().union(*(nouns for kind, nouns in SUBTYPE_VOCABULARY.items() if kind != product["type"]))
        assert words & SUBTYPE_VOCABULARY[product["type"]], product
        assert not words & (others | OTHER_NOUNS | PERSON_WORDS), product
    by_id = {doc["_id"]: doc for doc in products}
    for order in docs["orders"]:
        for item in order["items"]:
            assert item["name"] == by_id[item["product_id"]]["name"]


def test_a_subtype_names_its_products_with_its_own_words() -> None:
    """Subtypes the word table lacks are called by their own words; one without any word by the product names."""
    project = _project(
        [
            {
                "id": "product",
                "name": "Product",
                "collection": "products",
                "fields": _strings("kind", "name"),
                "subtypes": {
                    "discriminator": "kind",
                    "variants": {"desk lamps": [], "gift card": [], "laptop": [], "★": []},
                },
            }
        ]
    )
    products = _docs(project, n=12)["products"]
    assert {doc["kind"] for doc in products} == {"desk lamps", "gift card", "laptop", "★"}
    for product in products:
        words = _words(product["name"])
        if product["kind"] == "desk lamps":
            assert "Lamp" in words and not words & {"Laptop", "Card"}, product
        elif product["kind"] == "gift card":
            assert "Gift Card" in product["name"], product
        elif product["kind"] == "laptop":
            assert words & SUBTYPE_VOCABULARY["laptop"] and "Lamp" not in words, product
        else:
            assert words <= PRODUCT_WORDS, product


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_subtypes_numbers_stay_near_its_own_example(seed: int) -> None:
    """A phone's screen is phone-sized (near its example 6.1 in), a laptop's laptop-sized (near 14.2 in):
    every phone's screen is smaller than every laptop's, and their RAM and storage stay near the examples."""
    project, analysis = analysed("ecommerce")
    products = sample_documents(analysis.design, project, n=12, seed=seed)["products"]
    specs = {kind: [doc["specs"] for doc in products if doc["type"] == kind] for kind in ("phone", "laptop")}
    assert len(specs["phone"]) == len(specs["laptop"]) == 4
    assert max(s["screen_size"] for s in specs["phone"]) < min(s["screen_size"] for s in specs["laptop"])
    for kind, screen, ram, storage in (("phone", 6.1, 8, 256), ("laptop", 14.2, 18, 512)):
        for spec in specs[kind]:
            assert 0.7 * screen <= spec["screen_size"] <= 1.3 * screen, (kind, spec)
            assert int(0.7 * ram) <= spec["ram"] <= 1.3 * ram, (kind, spec)
            assert int(0.7 * storage) <= spec["storage"] <= 1.3 * storage, (kind, spec)
