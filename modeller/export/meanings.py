"""What a string field stands for, read from its name and its entity's name.

A ``name`` means a person's name on a User but a product's name on a Product
and a short word on a Category: sample values that ignore the entity give
products person names. These tables map the words of an entity's name to a
kind of thing, and (kind, field) to a value provider; the providers Faker
lacks (product names, titles, categories, statuses, codes) are made here from
small word lists, through the seeded Faker instance so samples stay
deterministic. Everything is data: add a word to a table, not a branch.
"""

from __future__ import annotations

import functools
import random
import re
import string
from collections.abc import Callable

from faker import Faker

from modeller.model.names import singular

#: kind of thing -> words of an entity name that mean it (the last word of "Order item" is read first).
KIND_WORDS: dict[str, tuple[str, ...]] = {
    "person": (
        "person", "people", "user", "customer", "author", "member", "employee", "owner", "student", "teacher",
        "patient", "contact", "client", "commenter", "reviewer", "buyer", "seller", "subscriber", "driver",
        "player", "actor", "director", "staff", "manager", "admin", "holder", "guest", "passenger", "doctor",
        "agent", "applicant", "candidate", "profile", "friend", "follower", "writer", "artist", "volunteer",
    ),
    "product": (
        "product", "item", "part", "good", "merchandise", "component", "accessory", "gadget", "listing", "offer",
        "sku", "variant", "ware",
    ),
    "category": ("category", "topic", "section", "department", "collection", "subcategory", "catalog"),
    "tag": ("tag", "keyword", "hashtag", "label"),
    "genre": ("genre",),
    "work": (
        "movie", "film", "book", "song", "album", "episode", "show", "series", "video", "podcast", "game", "track",
        "novel", "poem", "painting", "artwork", "play",
    ),
    "post": ("post", "article", "story", "news", "blog", "thread", "question", "page", "newsletter", "essay",
             "tutorial", "lesson", "course"),
    "task": ("task", "ticket", "issue", "todo", "bug", "assignment", "milestone", "chore"),
    "company": (
        "company", "organization", "organisation", "org", "tenant", "vendor", "supplier", "brand", "publisher",
        "store", "shop", "merchant", "manufacturer", "studio", "agency", "bank", "school", "university",
        "hospital", "restaurant", "hotel", "business", "employer", "firm",
    ),
    "place": ("city", "country", "location", "place", "venue", "region", "warehouse", "town"),
    "host": ("host", "server", "machine", "instance", "cluster", "vm"),
    "device": ("sensor", "device", "meter", "gauge", "thermostat", "camera", "gateway", "probe", "tracker"),
}  # fmt: skip

#: (kind, normalized field name) -> provider; the field-name table of :mod:`values` covers the rest.
KIND_FIELDS: dict[tuple[str, str], str] = {
    ("person", "name"): "name",
    ("person", "title"): "job",
    ("product", "name"): "product_name",
    ("product", "title"): "product_name",
    ("product", "label"): "product_name",
    ("category", "name"): "category",
    ("category", "title"): "category",
    ("category", "label"): "category",
    ("tag", "name"): "tag",
    ("tag", "label"): "tag",
    ("genre", "name"): "genre",
    ("work", "name"): "title",
    ("work", "title"): "title",
    ("post", "name"): "headline",
    ("post", "title"): "headline",
    ("post", "subject"): "headline",
    ("task", "name"): "task",
    ("task", "title"): "task",
    ("task", "summary"): "task",
    ("company", "name"): "company",
    ("company", "title"): "company",
    ("place", "name"): "city",
    ("host", "name"): "hostname",
    ("device", "name"): "device_name",
}

#: Modeller's own providers: templates whose ``{list}`` parts are drawn from :data:`WORDS`; then ``#`` is a
#: digit and ``?`` an upper-case letter.
TEMPLATES: dict[str, tuple[str, ...]] = {
    "product_name": (
        "{product_adjective} {material} {product_noun}",
        "{product_adjective} {product_noun}",
        "{product_noun} {product_series}",
    ),
    "category": ("{category}",),
    "tag": ("{tag}",),
    "genre": ("{genre}",),
    "title": ("The {title_adjective} {title_noun}", "{title_noun} of the {title_adjective} {title_noun}"),
    "headline": (
        "{headline_number} Lessons from {headline_topic}",
        "Why {headline_topic} Matters",
        "A Beginner's Guide to {headline_topic}",
        "Notes on {headline_topic}",
    ),
    "task": ("{task_verb} the {task_object}",),
    "status": ("{status}",),
    "action": ("{action}",),
    "brand": ("{brand}",),
    "sku": ("???-#####",),
    "device_name": ("??-###",),
}

#: The word lists the templates draw from (none of them a person's name).
WORDS: dict[str, tuple[str, ...]] = {
    "product_adjective": (
        "Compact", "Wireless", "Ergonomic", "Classic", "Portable", "Smart", "Ultra", "Premium", "Everyday",
        "Lightweight", "Deluxe", "Slim", "Modular", "Rugged", "Essential", "Foldable",
    ),
    "material": ("Steel", "Cotton", "Leather", "Bamboo", "Ceramic", "Aluminium", "Wool", "Marble", "Linen", "Copper"),
    "product_noun": (
        "Backpack", "Desk Lamp", "Kettle", "Headphones", "Water Bottle", "Office Chair", "Notebook", "Blender",
        "Sneakers", "Jacket", "Keyboard", "Mug", "Speaker", "Umbrella", "Watch", "Tent",
    ),
    "product_series": ("X2", "Pro", "Mini", "Air", "Plus", "Lite", "2000", "S3"),
    "brand": (
        "Northwind", "Lumen", "Vertex", "Nimbus", "Zephyr", "Orbit", "Polaris", "Summit", "Acme", "Halcyon",
        "Kestrel", "Tandem",
    ),
    "category": (
        "Electronics", "Books", "Garden", "Kitchen", "Toys", "Sports", "Beauty", "Office", "Music", "Outdoor",
        "Travel", "Health", "Home", "Fashion", "Pets", "Tools",
    ),
    "tag": (
        "travel", "food", "python", "design", "music", "health", "science", "tips", "news", "tutorial", "review",
        "photography", "startup", "history", "fitness", "security",
    ),
    "genre": (
        "Drama", "Comedy", "Thriller", "Documentary", "Animation", "Romance", "Horror", "Science Fiction",
        "Western", "Mystery", "Fantasy", "Musical",
    ),
    "title_adjective": (
        "Silent", "Last", "Hidden", "Silver", "Broken", "Secret", "Distant", "Wild", "Quiet", "Endless", "Crimson",
        "Northern", "Lost", "Burning", "Midnight", "Paper",
    ),
    "title_noun": (
        "River", "Garden", "Winter", "City", "Promise", "Journey", "Light", "Harbor", "Letter", "Mountain",
        "Song", "Island", "Kingdom", "Road", "Storm", "Mirror",
    ),
    "headline_number": ("3", "5", "7", "10", "12"),
    "headline_topic": (
        "Remote Work", "Home Cooking", "Open Source", "Urban Gardening", "Personal Finance", "Machine Learning",
        "Slow Travel", "Street Photography", "Data Privacy", "Minimalism", "Running", "Coffee",
    ),
    "task_verb": ("Review", "Update", "Fix", "Prepare", "Plan", "Write", "Test", "Deploy", "Schedule", "Draft"),
    "task_object": (
        "quarterly report", "login page", "onboarding checklist", "release notes", "team meeting",
        "invoice template", "backup job", "budget", "customer survey", "style guide", "sprint board",
        "product photos",
    ),
    "status": ("active", "pending", "draft", "open", "closed", "archived", "approved", "on hold"),
    "action": ("create", "update", "delete", "login", "logout", "approve", "export", "invite"),
}  # fmt: skip

#: Subtype word -> what a product of that subtype is called: a "laptop" is not named like a desk lamp. A subtype
#: not listed is called by its own words ("gift card" -> "Gift Card"); its last word is looked up first.
SUBTYPE_NOUNS: dict[str, tuple[str, ...]] = {
    "phone": ("Phone", "Smartphone"), "smartphone": ("Smartphone", "Phone"), "mobile": ("Phone", "Smartphone"),
    "laptop": ("Laptop", "Notebook", "Ultrabook"), "computer": ("Laptop", "Desktop PC", "Workstation"),
    "desktop": ("Desktop PC", "Workstation"), "tablet": ("Tablet",), "ereader": ("E-Reader",),
    "headphone": ("Headphones", "Earbuds", "Headset"), "earbud": ("Earbuds",), "headset": ("Headset",),
    "speaker": ("Speaker", "Soundbar"), "camera": ("Camera", "Action Camera"), "watch": ("Watch", "Smartwatch"),
    "smartwatch": ("Smartwatch",), "monitor": ("Monitor", "Display"), "display": ("Display", "Monitor"),
    "tv": ("TV",), "television": ("TV",), "console": ("Game Console",), "keyboard": ("Keyboard",),
    "mouse": ("Mouse",), "printer": ("Printer",), "router": ("Router",), "drone": ("Drone",),
    "lamp": ("Desk Lamp", "Floor Lamp"), "light": ("Desk Lamp", "Light Strip"), "chair": ("Office Chair", "Chair"),
    "desk": ("Desk", "Standing Desk"), "sofa": ("Sofa",), "table": ("Table", "Coffee Table"),
    "furniture": ("Bookshelf", "Desk", "Office Chair"), "appliance": ("Kettle", "Blender", "Toaster"),
    "kettle": ("Kettle",), "blender": ("Blender",), "shoe": ("Sneakers", "Running Shoes", "Boots"),
    "sneaker": ("Sneakers",), "boot": ("Boots",), "shirt": ("Shirt", "T-Shirt"), "jacket": ("Jacket", "Parka"),
    "clothing": ("Jacket", "T-Shirt", "Hoodie"), "apparel": ("Jacket", "T-Shirt", "Hoodie"),
    "bag": ("Backpack", "Tote Bag", "Duffel Bag"), "backpack": ("Backpack",), "bike": ("Bike", "E-Bike"),
    "bicycle": ("Bike",), "tent": ("Tent",), "toy": ("Puzzle", "Building Set", "Plush Toy"),
}  # fmt: skip
#: the providers whose values follow a document's subtype (a product's name)
SUBTYPED_PROVIDERS = frozenset({"product_name"})
#: how a subtype's product is named: ``{noun}`` from :data:`SUBTYPE_NOUNS`, the rest from :data:`WORDS`
SUBTYPE_TEMPLATES = (
    "{product_adjective} {noun}",
    "{noun} {product_series}",
    "{product_adjective} {noun} {product_series}",
)
#: the longest subtype name used as a product noun (a file's subtype names are not bounded)
_SUBTYPE_NOUN_MAX = 40

_PART = re.compile(r"\{(\w+)\}")
_KIND_OF_WORD = {word: kind for kind, words in KIND_WORDS.items() for word in words}
#: field-name endings that name a thing of another kind: ``category_name`` is a category's name
_NAMING_SUFFIXES = ("_name", "_title")


def _kind_of(word: str) -> str | None:
    return _KIND_OF_WORD.get(word) or _KIND_OF_WORD.get(singular(word))


@functools.lru_cache(maxsize=4096)
def entity_kind(normalized_name: str) -> str | None:
    """The kind of thing an entity is, from its normalized name (last word first: "order_item" is an item)."""
    for word in reversed(normalized_name.split("_")):
        kind = _kind_of(word)
        if kind is not None:
            return kind
    return None


def meaning_provider(field: str, kind: str | None) -> str | None:
    """The provider a normalized field name calls for on an entity of ``kind``, or None (the name table decides).

    ``<thing>_name`` and ``<thing>_title`` are the name of that thing on any entity (``category_name``).
    """
    if kind is not None and (kind, field) in KIND_FIELDS:
        return KIND_FIELDS[(kind, field)]
    for suffix in _NAMING_SUFFIXES:
        if field.endswith(suffix):
            named = _kind_of(field.removesuffix(suffix).rsplit("_", 1)[-1])
            if named is not None:
                return KIND_FIELDS.get((named, suffix[1:])) or KIND_FIELDS.get((named, "name"))
    return None


def template_call(name: str) -> Callable[[Faker], str]:
    """The call making provider ``name`` from :data:`TEMPLATES` with a seeded Faker (deterministic)."""
    templates = TEMPLATES[name]

    def call(faker: Faker) -> str:
        template = faker.random_element(templates)
        text = _PART.sub(lambda m: faker.random_element(WORDS[m.group(1)]), template)
        return faker.bothify(text, letters=string.ascii_uppercase)

    return call


@functools.lru_cache(maxsize=1024)
def subtype_nouns(variant: str) -> tuple[str, ...]:
    """What a product of subtype ``variant`` is called: its listed nouns (last word first), else its own words
    title-cased; empty when it has no words at all (the general product names are used then)."""
    words = re.findall(r"\w+", variant[:_SUBTYPE_NOUN_MAX].lower())
    for word in reversed(words):
        nouns = SUBTYPE_NOUNS.get(word) or SUBTYPE_NOUNS.get(singular(word))
        if nouns:
            return nouns
    own = " ".join(word.capitalize() for word in words)
    return (own,) if own else ()


def subtype_value(provider: str, variant: str, rng: random.Random) -> str | None:
    """A ``provider`` value for a document of subtype ``variant`` (a laptop's name names a laptop), drawn with
    the caller's seeded ``rng``; None when the provider does not follow subtypes or the subtype has no words."""
    nouns = subtype_nouns(variant) if provider in SUBTYPED_PROVIDERS else ()
    if not nouns:
        return None
    template = rng.choice(SUBTYPE_TEMPLATES).replace("{noun}", rng.choice(nouns))
    return _PART.sub(lambda m: rng.choice(WORDS[m.group(1)]), template)
