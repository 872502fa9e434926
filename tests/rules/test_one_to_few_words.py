"""A one-to-few that is not embedded is explained by a one-to-N rule, in the user's words.

The many-to-many rule (``many-to-many-refs``) used to take these relationships once their N stood alone, and said
"Address is marked as read on its own": a rule named for another cardinality, and words no checkbox carries. An N
used on its own is then rule 5's advice (``no-embed-independent-access``): filed under ``embed-one-to-few`` it read
"embed-one-to-few: parent-ref is what the seeds recommend" (tryout item 9).
"""

from __future__ import annotations

from typing import Any

import pytest

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules import analyse


def people(**rel: Any) -> Project:
    """People and their few Addresses; each Address names its owner."""
    return Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "people",
            "entities": [
                {"id": "person", "name": "Person", "count": 1000, "fields": [{"name": "name", "type": "string"}]},
                {"id": "address", "name": "Address", "count": 3000, "fields": [{"name": "street", "type": "string"}]},
            ],
            "relationships": [
                {
                    "id": "person_addresses",
                    "one": "person",
                    "many": "address",
                    "name": "addresses",
                    "inverse": "owner",
                    "cardinality": "one-to-few",
                    **rel,
                }
            ],
        }
    )


@pytest.mark.parametrize(
    ("rel", "strategy", "because", "rule"),
    [
        (
            {"many_standalone": True},
            "parent-ref",
            "Addresses are read on their own (“Many side accessed on its own” is set); each Address names its owner",
            "no-embed-independent-access",
        ),
        (
            {"read_together": 0.1},
            "parent-ref",
            "only 10% of Person reads need them; each Address names its owner and no query reads the owner of one "
            "Address",
            "embed-one-to-few",
        ),
    ],
)
def test_a_one_to_few_kept_apart_is_explained_by_a_one_to_n_rule(
    rel: dict[str, Any], strategy: str, because: str, rule: str
) -> None:
    a = analyse(people(**rel))
    mine = [f for f in a.findings if f.subject.kind == "relationship" and f.subject.id == "person_addresses"]
    assert [f.rule for f in mine] == [rule]
    (f,) = mine
    assert f.message.startswith(f"{strategy} — one-to-few, but {because}")
    assert "many-to-many" not in f.message and "marked as read" not in f.message
    assert f.why is not None
    assert ("each side keeps references" if strategy == "two-way" else "a reference to the Person in each") in f.why
    design = next(r for r in a.design.relationships if r.id == "person_addresses")
    assert design.strategy == strategy
    assert "many-to-many-refs" not in design.rules


def test_a_one_to_few_read_with_its_one_is_still_embedded() -> None:
    a = analyse(people())
    (f,) = [f for f in a.findings if f.subject.kind == "relationship"]
    assert f.rule == "embed-one-to-few" and f.message.startswith("embed — each Person has at most")
