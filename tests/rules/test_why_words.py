"""Each finding's *why* speaks of the user's entities, not of a seed's example (issue 10).

The rules' docstrings tell the seeds' examples (hosts and log messages,
products and parts); a finding about the user's entities must not. The
generated project's entities are renamed to words no seed uses, so any seed
word left in a *why* comes from another example.
"""

from __future__ import annotations

import re

import pytest

from benchmarks.generate import generate_project
from modeller.rules import analyse

pytestmark = pytest.mark.slow

SEED_WORDS = re.compile(
    r"\b(hosts?|log (messages?|lines?)|products?|parts?|reviews?|sensors?|readings?|posts?|person|people|tasks?|"
    r"patrons?|address(es)?|students?|phones?|laptops?|authors?|comments?)\b",
    re.IGNORECASE,
)


def test_no_why_tells_a_seed_example() -> None:
    project = generate_project(300, 1.5, 0.5)
    renamed = project.model_copy(
        update={"entities": [e.model_copy(update={"name": f"Widget {i}"}) for i, e in enumerate(project.entities)]}
    )
    findings = analyse(renamed).reported
    assert len({f.rule for f in findings}) > 15
    told = {f.rule: m.group(0) for f in findings if (m := SEED_WORDS.search(f.why))}
    assert told == {}
    # and the rules that explain with the user's entities name them
    assert any("Widget" in f.why for f in findings if f.rule == "child-refs-one-to-many")
