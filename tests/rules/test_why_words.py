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
    # ("part 3" is the part of Zola's series a why cites, not the seed's parts)
    r"\b(hosts?|log (messages?|lines?)|products?|parts?(?! \d)|reviews?|sensors?|readings?|posts?|person|people|tasks?|"
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


def test_a_why_template_gets_every_word_it_names() -> None:
    """``Rule.why_for`` fills the words a template names (articles and plurals of the two entities' names)."""
    from modeller.rules.framework.rule import Rule
    from modeller.rules.physical.facts import build_context
    from modeller.rules.physical.naming import plural_label
    from modeller.rules.settings import DEFAULT_SETTINGS

    project = generate_project(60, 1.5, 0.5)
    facts = build_context(project, DEFAULT_SETTINGS).rels[0]
    one, many = facts.one.name, facts.many.name

    class Everything(Rule):
        id = "test-why-words"
        explain = "{A_one} | {a_one} | {A_many} | {a_many} | {one} | {many} | {ones} | {manys} | {entity}"

    said = Everything().why_for(facts, entity="E")
    assert said is not None
    parts = said.split(" | ")
    assert parts[4:6] == [one, many] and parts[8] == "E"
    assert parts[1].endswith(f" {one}") and parts[1].split(" ")[0] in ("a", "an")
    assert parts[0] == "A" + parts[1][1:] and parts[2] == "A" + parts[3][1:]
    assert parts[6:8] == [plural_label(one), plural_label(many)]
