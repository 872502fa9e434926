"""A small shop project and the single edits the diff tests apply to it."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from modeller.model.project import Project

BASE: dict[str, Any] = {
    "format": "mongo-schema-modeller",
    "format_version": 1,
    "name": "Shop",
    "database": "shop",
    "entities": [
        {
            "id": "shop",
            "name": "Shop",
            "collection": "shops",
            "count": 1000,
            "fields": [
                {"name": "name", "type": "string", "required": True, "example": "Corner"},
                {"name": "city", "type": "string"},
                {"name": "rating", "type": "int", "enum": [1, 2, 3]},
                {"name": "address", "type": "object", "fields": [{"name": "street", "type": "string"}]},
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
            "indexes": [{"keys": [["title", 1]], "name": "by_title"}],
        },
        {"id": "review", "name": "Review", "count": 200000, "fields": [{"name": "text", "type": "string"}]},
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


def project(data: dict[str, Any]) -> Project:
    return Project.model_validate(data)


def edited(edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """BASE with ``edit`` applied to a deep copy."""
    data = copy.deepcopy(BASE)
    edit(data)
    return data


def entity(data: dict[str, Any], ident: str) -> dict[str, Any]:
    return next(e for e in data["entities"] if e["id"] == ident)


def field(data: dict[str, Any], ident: str, name: str) -> dict[str, Any]:
    return next(f for f in entity(data, ident)["fields"] if f["name"] == name)
