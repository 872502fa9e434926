"""The rule framework: one class per rule, documented in its docstring (sqlfluff style).

A rule's docstring has a one-line summary, then the sections *Why*,
*Anti-pattern* and *Best practice*; ``sources`` names the RULES.md source
keys. The engine walks the subjects and calls the rule's hooks —
``check_relationship``, ``check_collection``, ``check_query``, ``check_entity``
once per subject, ``check_model`` once per analysis — with the read-only
:class:`~modeller.rules.framework.context.RuleView`; each yields
:class:`Finding` objects and never touches the UI. A finding of a subject hook
may depend only on that subject's inputs (the engine re-runs the hook only for
changed subjects); whatever depends on the whole model goes in ``check_model``.

A strategy rule also owns a decision: it sets ``decides`` and returns its
:class:`~modeller.rules.physical.strategy.Vote` for a relationship from
``decide``; the engine hands the deciding rules to the resolver, which
applies the winning votes (``modeller.rules.physical.strategy``).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Hashable, Iterable
from functools import cache
from string import Formatter
from typing import TYPE_CHECKING, Any, ClassVar

from modeller.model.wording import with_article
from modeller.rules.framework.findings import (
    Change,
    Finding,
    Fix,
    Severity,
    SubjectRef,
    fixed_decision,
    strategy_decision,
)
from modeller.rules.framework.references import cite, plain
from modeller.rules.physical.naming import plural_label
from modeller.rules.physical.strategy import StrategyView, Vote

if TYPE_CHECKING:
    from modeller.model.project import Entity, Query
    from modeller.rules.framework.context import RuleView
    from modeller.rules.physical.design import CollectionDesign
    from modeller.rules.physical.facts import RelFacts

SECTIONS = ("Why", "Anti-pattern", "Best practice")


class Rule:
    """Base class of every rule; subclasses set the class attributes and implement ``check``."""

    id: ClassVar[str] = ""
    code: ClassVar[str] = ""
    family: ClassVar[str] = ""
    severities: ClassVar[tuple[Severity, ...]] = ()
    sources: ClassVar[tuple[str, ...]] = ()
    #: the trade-off shown with every finding of this rule
    tradeoff: ClassVar[str] = ""
    #: ``check_relationship`` sees only the relationships with ``key(view, facts) == value`` (most rules look
    #: at one strategy or cardinality; the engine groups the relationships by ``key`` once per analysis)
    relationships: ClassVar[tuple[Callable[[RuleView, RelFacts], Hashable], Hashable] | None] = None
    #: likewise for ``check_collection``, ``check_query`` and ``check_entity``: the key must hold for every subject
    #: the hook can report on (most collections, queries and entities give most rules nothing to say; a rule
    #: called for those alone skips ~100,000 calls at 10,000 entities: speed only, DESIGN.md's cold analysis)
    collections: ClassVar[tuple[Callable[[RuleView, CollectionDesign], Hashable], Hashable] | None] = None
    queries: ClassVar[tuple[Callable[[RuleView, Query], Hashable], Hashable] | None] = None
    entities: ClassVar[tuple[Callable[[RuleView, Entity], Hashable], Hashable] | None] = None
    #: (a key returning :class:`Traits` files a subject under each trait: the rule's value is one of them)
    #: "base": ``decide`` votes for how a relationship is stored; "refinement": it votes for a refinement of
    #: the base choice (``view.base``); "": the rule only reports
    decides: ClassVar[str] = ""
    #: the highest weight this rule votes with (a vote may carry a lower one): the highest vote of a stage
    #: wins, and the rules are asked in this order (Zola's questions in order)
    precedence: ClassVar[int] = 0
    #: (reason, rank): the reasons for an index this rule stands behind (``physical.index_reasons``), each with
    #: the place of this rule in such an index's ``rules`` (rank 0 first, then registration order)
    index_claims: ClassVar[tuple[tuple[str, int], ...]] = ()
    #: the *Why* of a finding in the user's words: a template over the subject's entities (``{one}``,
    #: ``{many}``, their plurals ``{ones}``, ``{manys}``, or ``{entity}``); the docstring's *Why* may tell a
    #: seed's example (products and parts), which a finding about the user's Devices must not (``why_for``)
    explain: ClassVar[str] = ""

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        """Findings about one relationship (depending on it, its plan and design, and the queries joining it)."""
        return ()

    def check_collection(self, view: RuleView, coll: CollectionDesign) -> Iterable[Finding]:
        """Findings about one collection of the design (depending on it only)."""
        return ()

    def check_query(self, view: RuleView, q: Query) -> Iterable[Finding]:
        """Findings about one query (depending on it and on how its entity is stored)."""
        return ()

    def check_entity(self, view: RuleView, entity: Entity) -> Iterable[Finding]:
        """Findings about one entity that depend on that entity object alone (its fields, its description), not
        on how it is stored: re-run only for an entity the edit replaced."""
        return ()

    def check_model(self, view: RuleView) -> Iterable[Finding]:
        """Findings that depend on the whole model (re-run on every analysis)."""
        return ()

    def decide(self, facts: RelFacts, view: StrategyView) -> Vote | None:
        """This rule's vote for the relationship of ``facts``, or None when its trigger does not hold."""
        return None

    def vote(
        self,
        strategy: str,
        reason: str,
        tradeoff: str,
        *,
        rules: tuple[str, ...] | None = None,
        numbers: dict[str, Any] | None = None,
        borderline: bool = False,
        precedence: int | None = None,
    ) -> Vote:
        """A vote of this rule (its id, its precedence unless given, citing itself unless ``rules`` is given)."""
        return Vote(
            strategy,
            self.id,
            plain(reason),
            plain(tradeoff),
            self.precedence if precedence is None else precedence,
            (self.id,) if rules is None else rules,
            {} if numbers is None else numbers,
            borderline,
        )

    # ----- documentation -----
    @classmethod
    def doc(cls) -> str:
        return _doc(cls)  # type: ignore[arg-type]

    @classmethod
    def summary(cls) -> str:
        return cls.doc().split("\n", 1)[0].strip()

    @classmethod
    def section(cls, name: str) -> str:
        """The text of a docstring section (``*Why*``, ``*Anti-pattern*``, ``*Best practice*``)."""
        return _section(cls, name)  # type: ignore[arg-type]

    @classmethod
    def reference(cls) -> str:
        return cite(*cls.sources)

    # ----- helpers for subclasses -----
    def why_for(self, facts: RelFacts | None = None, entity: str | None = None) -> str | None:
        """``explain`` about this relationship's (or this entity's) names; None: the docstring's *Why*."""
        if not self.explain:
            return None
        names = {"entity": entity or ""}
        if facts is not None:
            one, many = facts.one.name, facts.many.name
            for name in _template_names(self.explain):  # only the words the template says (one why per finding)
                word = _RELATIONSHIP_WORDS.get(name)
                if word is not None:
                    names[name] = word(one, many)
        return worded(self.explain, **names)

    def finding(
        self,
        severity: str,
        kind: str,
        subject_id: str,
        message: str,
        why: str | None = None,
        fix: Fix | None = None,
        numbers: dict[str, Any] | None = None,
        tradeoff: str | None = None,
        sources: tuple[str, ...] | None = None,
        decision: SubjectRef | None = None,
        decided: bool = False,
        filed_under: type[Rule] | None = None,
    ) -> Finding:
        """A finding of this rule; one whose fix sets a relationship's strategy is about that decision.

        ``filed_under``: the rule whose advice the message gives, when that is not this rule (a rule that decides
        a relationship's storage may decide against its own pattern: the finding goes under the rule it follows).
        """
        # the rule's own why and reference only when the caller gave none (one finding per subject and rule)
        if decision is None:
            decision = fixed_decision(fix)
        # a finding about the decision it justifies (a relationship's strategy) shares that immutable ref: a
        # 10,000-entity analysis makes ~15,000 of them (speed only, DESIGN.md's cold analysis near 250 ms)
        if decision is not None and decision.kind == kind and decision.id == subject_id:
            subject = decision
        else:
            subject = SubjectRef(kind, subject_id)  # type: ignore[arg-type]
        owner = type(self) if filed_under is None else filed_under
        own = _OWN.get(owner)
        if own is None:
            own = _own(owner)
        return Finding(
            owner.id,
            severity,  # type: ignore[arg-type]
            subject,
            plain(message),
            own[0] if why is None else plain(why),
            own[1] if tradeoff is None else plain(tradeoff),
            _cite(tuple(sources)) if sources else own[2],
            fix,
            {} if numbers is None else dict(numbers),
            decision=decision,
            decided=decided,
        )


class Traits(frozenset[str]):
    """What a subject key says when several rules read one subject for different things: the engine files the
    subject under each trait, and a rule whose filter value is a trait sees the subjects holding it (one read of
    each subject for all those rules)."""

    __slots__ = ()


def worded(template: str, **names: str) -> str:
    """``template`` (a ``str.format`` text holding source keys) about the user's ``names``.

    The template's source keys become names before the user's names go in: ``Rule.finding`` then finds no key
    left to rewrite in a text that, holding names, misses plain's cache (speed only: DESIGN.md's cold analysis
    near 250 ms at 1,000 entities; the same text, as plain leaves its own output alone).
    """
    return plain(template).format(**names)


# ----- keys for ``Rule.relationships`` (module functions: the engine groups the relationships per function) -----
def strategy_of(view: RuleView, facts: RelFacts) -> str:
    """The strategy the relationship is stored with."""
    return view.res.plans[facts.rel_id].strategy


def recommended_of(view: RuleView, facts: RelFacts) -> str:
    """The strategy the engine recommends (after refinements)."""
    return view.res.plans[facts.rel_id].rec.strategy


def base_rule_of(view: RuleView, facts: RelFacts) -> str | None:
    """The rule whose recommendation the engine started from."""
    return view.res.plans[facts.rel_id].rec.base_rule


def has_copies(view: RuleView, facts: RelFacts) -> bool:
    """The relationship's plan copies fields (denormalization)."""
    return bool(view.res.plans[facts.rel_id].copies)


def cardinality_of(view: RuleView, facts: RelFacts) -> str:
    return facts.rel.cardinality


# (the keys below say whether a rule has anything to check on a relationship: the engine then calls the rule for
# those alone instead of for all 15,000 of a 10,000-entity model; speed only, DESIGN.md's cold analysis near 250 ms)
def has_aggregates(view: RuleView, facts: RelFacts) -> bool:
    """The relationship declares computed values (``aggregates``)."""
    return bool(facts.rel.aggregates)


def marked_atomic(view: RuleView, facts: RelFacts) -> bool:
    """The user marked the relationship's writes atomic."""
    return bool(facts.rel.atomic)


def tree_with_operations(view: RuleView, facts: RelFacts) -> bool:
    """A self relationship (a tree) with declared tree operations."""
    return facts.self_ref and bool(facts.rel.tree_ops)


def outlier_bounded(view: RuleView, facts: RelFacts) -> bool:
    """The engine's recommendation embeds up to an outlier bound (``outlier_bound``, the outlier pattern's vote)."""
    return view.res.plans[facts.rel_id].rec.numbers.get("outlier_bound") is not None


@cache
def _doc(cls: Any) -> str:
    return inspect.cleandoc(cls.__doc__ or "")


@cache
def _section(cls: Any, name: str) -> str:
    pattern = rf"^\*{re.escape(name)}\*\s*\n(.*?)(?=^\*[A-Z][^*\n]*\*\s*$|\Z)"
    match = re.search(pattern, _doc(cls), re.S | re.M)
    return match.group(1).strip() if match else ""


@cache
def _why(cls: Any) -> str:
    # findings are plain text (terminal, JSON, GUI) a user reads: the docstring's reST ``code`` marks go
    return " ".join(_section(cls, "Why").split()).replace("``", "")


@cache
def _cite(keys: tuple[str, ...]) -> str:
    return cite(*keys)


#: rule class -> its own why, trade-off and reference as a finding holds them (``_own``)
_OWN: dict[type[Rule], tuple[str, str, str]] = {}


def _own(owner: type[Rule]) -> tuple[str, str, str]:
    """The texts every finding of ``owner`` holds unless the rule gives its own, worked out once per class
    (speed only: 45,000 findings at 10,000 entities; issue 16)."""
    own = _OWN[owner] = (plain(_why(owner)), plain(owner.tradeoff), _cite(owner.sources))  # type: ignore[arg-type]
    return own


@cache
def _template_names(template: str) -> frozenset[str]:
    """The names a ``str.format`` template reads (``"{a_one} has {manys}"`` -> a_one, manys)."""
    return frozenset(re.split(r"[.\[]", name, maxsplit=1)[0] for _, name, _, _ in Formatter().parse(template) if name)


#: the words an ``explain`` template may say about a relationship (from the One's and the N's names)
_RELATIONSHIP_WORDS: dict[str, Callable[[str, str], str]] = {
    "one": lambda one, _many: one,
    "many": lambda _one, many: many,
    "ones": lambda one, _many: plural_label(one),
    "manys": lambda _one, many: plural_label(many),
    # "a {one}" would say "a Order": the article goes with the name ("A_" starts a sentence)
    "a_one": lambda one, _many: with_article(one),
    "a_many": lambda _one, many: with_article(many),
    "A_one": lambda one, _many: "A" + with_article(one)[1:],
    "A_many": lambda _one, many: "A" + with_article(many)[1:],
}


def set_strategy(
    rel_id: str,
    strategy: str,
    decision: SubjectRef | None = None,
    *,
    facts: RelFacts | None = None,
    words: str | None = None,
) -> Fix:
    """The fix that sets a relationship's strategy, described in the user's words: what the documents will hold
    ("keep a reference to the Product in each Review"), never a strategy or rule id; ``words`` when the caller
    says it better (an outlier pattern). Its change is about ``decision`` (the relationship's strategy decision)
    when the caller already holds it: the finding, its decision and its fix then share one reference. One of
    ``facts`` and ``words`` is needed: without them the fix could only name placeholders."""
    subject = decision if decision is not None else strategy_decision(rel_id)
    if words is None:
        if facts is None:
            raise TypeError("set_strategy() needs facts= (the relationship's facts) or words=")
        many = facts.many.name
        words = strategy_words(strategy, facts.one.name, many, plural_label(many), facts.rel.cardinality)
    return Fix(words, (Change("set", subject, "strategy", strategy),))


@cache
def strategy_words(strategy: str, one: str, many: str, manys: str, cardinality: str) -> str:
    """What storing a relationship as ``strategy`` puts in the documents, about the user's entities: one text per
    strategy and pair of names, shared by every fix that says it (10,000 entities make ~15,000 such fixes:
    issue 16, memory)."""
    back = f"an array of {one} ids" if cardinality == "many-to-many" else f"a reference to the {one}"
    if strategy == "parent-ref":
        return f"keep {back} in each {many}"
    if strategy == "two-way":
        return f"keep an array of {many} ids in each {one} and {back} in each {many}"
    if strategy == "embed" and cardinality == "one-to-one":
        return f"embed the {many} in its {one}"
    return {
        "auto": f"let the engine choose how {manys} are stored",
        "embed": f"embed the {manys} in their {one}",
        "child-refs": f"keep an array of {many} ids in each {one}",
        "extended-ref": f"keep a reference to the {one} in each {many}, with the {one} fields it shows copied beside it",
        "subset": f"keep the latest {manys} in their {one} and all of them in their own collection",
        "bucket": f"group the {manys} of each {one} into bucket documents",
        "single-collection": f"store the {one} and its {manys} in one collection, linked by a links array",
    }.get(strategy, f"store it as {strategy}")


def append_index(entity_id: str, keys: list[tuple[str, Any]], description: str, **options: Any) -> Fix:
    value: dict[str, Any] = {"keys": [[k, v] for k, v in keys]}
    if options:
        value.update({k: v for k, v in options.items() if v is not None and v is not False})
    return Fix(description, (Change("append", SubjectRef("entity", entity_id), "indexes", value),))
