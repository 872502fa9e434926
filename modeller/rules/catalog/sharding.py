"""Sharding rules (RULES.md 44, 45): how a shard key spreads the data, and which reads and indexes it serves.

Both read the shard-key advisor's answer (``Design.shard_advice``,
``physical/shardkey.py``) and look at the whole model (``check_model``): the
advice of a collection depends on every query that reads it.
"""

from __future__ import annotations

from collections.abc import Iterable

from modeller.rules.framework.context import RuleView
from modeller.rules.framework.findings import Change, Finding, Fix, SubjectRef
from modeller.rules.framework.registry import register
from modeller.rules.framework.rule import Rule
from modeller.rules.physical.shardkey import Candidate, ShardAdvice, better_key, range_targeted, targets


def _key_text(c: Candidate) -> str:
    """The key as the user reads it: ``{tenant: 1, _id: 1}`` or ``{device: "hashed"}``, in the model's names."""
    return "{" + ", ".join(f"{f.label}: {_direction(c, i)}" for i, f in enumerate(c.fields)) + "}"


def _direction(c: Candidate, i: int) -> str:
    return '"hashed"' if c.hashed and i == 0 else "1"


def _name(view: RuleView, advice: ShardAdvice) -> str:
    entity = view.facts.entities.get(advice.entity)
    return advice.collection if entity is None else entity.name


@register
class ShardKeyDistribution(Rule):
    """A shard key needs many distinct values, none of them common, and inserts that do not all land on one shard.

    *Why*
    Chunks split between shard-key values only: a key with 7 values (``continent``)
    can use at most 7 shards, a value held by a large share of the documents makes a
    chunk that cannot split (a jumbo chunk), and a key that only grows (an
    ObjectId, a timestamp, a counter) sends every insert to the chunk holding
    ``maxKey`` — one shard takes all the writes.

    *Anti-pattern*
    ``sh.shardCollection("app.users", {continent: 1})``, or
    ``{created_at: 1}`` on a collection taking thousands of inserts a second.

    *Best practice*
    A compound key that adds a high-cardinality field
    (``{customer_id: 1, order_id: 1}``), or a hashed key (``{device_id: "hashed"}``)
    for a monotonic field no query reads ranges of; time series shard on their metaField.
    """

    id = "shard-key-distribution"
    code = "SH44"
    family = "sharding"
    severities = ("info", "warning")
    sources = ("Manual-shard-key", "Manual-hashed", "Manual-limits", "Manual-shard-distribute")
    tradeoff = (
        "hashed keys spread inserts but turn range reads on the key into scatter-gather; compound keys need "
        "their prefix in queries to be targeted"
    )

    def __init__(self) -> None:
        #: collection -> (its advice, the name said, the settings, the findings made from them): the findings
        #: read nothing else, and an edit keeps the advice objects of the collections it cannot change, so they
        #: are made again for the changed ones only (edit -> findings <= 200 ms at 10,000 entities, issue 16)
        self._made: dict[str, tuple[ShardAdvice, str, object, list[Finding]]] = {}

    def check_model(self, view: RuleView) -> Iterable[Finding]:
        """The advice of a collection depends on every query reading it: a whole-model property."""
        made, self._made = self._made, {}
        s = view.settings
        for coll, advice in view.design.shard_advice.items():
            name = _name(view, advice)
            known = made.get(coll)
            if known is None or known[0] is not advice or known[1] != name or known[2] is not s:
                known = (advice, name, s, list(self._advice_findings(view, advice, name)))
            self._made[coll] = known
            yield from known[3]

    def _advice_findings(self, view: RuleView, advice: ShardAdvice, name: str) -> Iterable[Finding]:
        """What one collection's advice says (it, its name and the settings alone)."""
        if advice.chosen is not None:
            yield self._summary(view, advice, name)
        # the user's key (even one the server refuses) and the key the design shards on
        keys = [advice.user] if advice.user is not None else []
        if advice.chosen is not None and advice.chosen is not advice.user:
            keys.append(advice.chosen)
        for key in keys:
            yield from self._key_findings(view, advice, name, key)

    def _key_findings(self, view: RuleView, advice: ShardAdvice, name: str, key: Candidate) -> Iterable[Finding]:
        """Cardinality, the commonest value's share and monotonic inserts of one key."""
        s = view.settings
        card = key.key_cardinality
        shards = advice.shards
        if card is not None and card <= s.shard_cardinality_factor * shards:
            most = (
                f"at most {card:,} of the {shards} planned shards can hold data"
                if card <= shards
                else f"few chunks for {shards} planned shards"
            )
            yield self.finding(
                "warning",
                "entity",
                advice.entity,
                f"the shard key {_key_text(key)} of {name} has about {card:,} distinct values: {most} (chunks "
                "split only between values); add a high-cardinality field after it",
                numbers={"cardinality": card, "shards": shards, "limit": s.shard_cardinality_factor * shards},
            )
        top = key.key_top_share
        if top is not None and top >= s.shard_top_share:
            yield self.finding(
                "warning",
                "entity",
                advice.entity,
                f"one value of the shard key {_key_text(key)} of {name} holds about {top:.0%} of the documents: "
                "its chunk cannot split (a jumbo chunk); add a field that splits it",
                numbers={"top_share": round(top, 4), "limit": s.shard_top_share},
            )
        if key.monotonic and advice.inserts_per_sec >= s.shard_heavy_inserts:
            yield from self._monotonic(advice, name, key, s.shard_heavy_inserts, s.shard_top_share)

    def _monotonic(
        self, advice: ShardAdvice, name: str, key: Candidate, limit: float, top_limit: float
    ) -> Iterable[Finding]:
        """A key that only grows under heavy inserts: ranged, one shard takes them all; hashed by the engine in
        place of the user's ranged key, it is a to-do when another key scores better (never a silent switch)."""
        better = better_key(advice, key)
        instead = (
            f"; {_key_text(better)} scores {better.score:.2f} against {key.score:.2f} and targets "
            f"{better.targeted:.0%} of the queries: shard on it"
            if better is not None
            else ""
        )
        lead = better.fields[0] if better is not None and len(better.fields) > 1 else None
        if better is not None and lead is not None and lead.top_share is not None and lead.top_share >= top_limit:
            instead += (
                f" (one {lead.label} value holds about {lead.top_share:.0%} of the documents: alone it would be a jumbo "
                f"chunk, {better.fields[1].label} splits it)"
            )
        plain = _key_text(key) if not key.hashed else "{" + ", ".join(f"{f.label}: 1" for f in key.fields) + "}"
        grows = (
            f"the shard key {plain} of {name} only grows and takes {advice.inserts_per_sec:,.0f} inserts/s: ranged, "
            "every insert goes to the chunk holding maxKey, one shard"
        )
        if not key.hashed:
            text = f'{grows}; hash it ({{{key.fields[0].label}: "hashed"}}) unless queries read ranges of it{instead}'
        elif key.user and better is not None:
            reads = f", and the {key.range_reads:,.0f} range reads/s of it go to every shard" if key.range_reads else ""
            text = f"{grows}; the design hashes your key ({_key_text(key)}) to spread them{reads}{instead}"
        else:
            return
        fix = (
            Fix(
                f"shard {name} on {_key_text(better)}",
                (Change("set", SubjectRef("entity", advice.entity), "shard_key", [f.label for f in better.fields]),),
            )
            if better is not None and key.user
            else None
        )
        yield self.finding(
            "warning",
            "entity",
            advice.entity,
            text,
            fix=fix,
            numbers={"inserts_per_sec": advice.inserts_per_sec, "limit": limit}
            | ({"better_key": better.label, "better_score": better.score} if better is not None else {}),
        )

    def _summary(self, view: RuleView, advice: ShardAdvice, name: str) -> Finding:
        """One finding per sharded collection: the chosen key and the advisor's table in numbers."""
        chosen = advice.chosen
        assert chosen is not None
        kind = "hashed" if chosen.hashed else "ranged"
        if chosen.hashed and chosen.range_reads:
            why = (
                f"it only grows: hashing spreads {advice.inserts_per_sec:,.0f} inserts/s, more than the "
                f"{chosen.range_reads:,.0f} range reads/s it turns into scatter-gather"
            )
        elif chosen.hashed:
            why = "it only grows and no query reads its ranges, so hashing spreads the inserts"
        elif chosen.monotonic:
            why = f"queries read its ranges ({chosen.range_reads:,.0f}/s), more often than it is inserted"
        else:
            why = (
                "nothing marks its values as only growing (Monotonic), and ranged keeps neighbouring values "
                "together for range reads"
            )
        rows = "; ".join(
            f"{c.label}: score {c.score:.2f} (targets {c.targeted:.0%} of queries"
            + (f", about {c.key_cardinality:,} values" if c.key_cardinality is not None else "")
            + (", refused: " + c.refused[0] if c.refused else "")
            + ")"
            for c in advice.candidates
        )
        chosen_by = "your key" if chosen.user else "the best-scoring key"
        return self.finding(
            "info",
            "entity",
            advice.entity,
            f"shard {name} on {_key_text(chosen)} ({kind}; {chosen_by}; {why}); {advice.why}. Candidates: {rows}"
            + (
                f". Zones: {advice.zone_field} can lead the key to pin regions to shards"
                if advice.zone_field is not None
                else ""
            ),
            numbers={
                # the planned shards only when the project gives them (the default an unsharded one assumes is no fact)
                **({"shards": advice.shards} if view.project.shards is not None else {}),
                "targeted_share": round(chosen.targeted, 3),
                "candidates": [c.to_json() for c in advice.candidates],
            },
        )


@register
class ShardKeyTargetingAndConstraints(Rule):
    """Hot queries carry the shard key, and unique indexes start with it.

    *Why*
    A read that holds the shard key goes to the shards owning that key; one
    without it is sent to every shard (scatter-gather) and waits for the
    slowest. The server refuses a unique index that does not start with the
    shard key (it could only check uniqueness per shard), and a range read on
    a hashed key is scatter-gather. Time series sharded on their timeField are
    deprecated in 8.0.

    *Anti-pattern*
    Sharding ``users`` on ``{continent: 1}`` while ``email`` is unique and the
    login query filters by ``email`` only.

    *Best practice*
    Shard on the field the most frequent queries filter by equality, keep every
    unique index prefixed by the shard key, and shard time series on their
    metaField. Check the choice on real traffic with ``analyzeShardKey``.
    """

    id = "shard-key-targeting-and-constraints"
    code = "SH45"
    family = "sharding"
    severities = ("info", "warning", "error")
    sources = ("Manual-shard-key", "Manual-limits", "Manual-multikey", "Manual-TS-best-practices")
    tradeoff = "targeted queries scale with the shards; large analytical reads may still prefer scatter-gather"

    def check_model(self, view: RuleView) -> Iterable[Finding]:
        """The advice of a collection depends on every query reading it: a whole-model property."""
        plans = {p.id: p for p in view.design.queries}
        for advice in view.design.shard_advice.values():
            name = _name(view, advice)
            user = advice.user
            if user is not None:
                for why in user.refused:
                    yield self.finding(
                        "error",
                        "entity",
                        advice.entity,
                        f"the server refuses the shard key {_key_text(user)} of {name}: {why}"
                        + (
                            f"; the design shards on {_key_text(advice.chosen)} instead"
                            if advice.chosen is not None and advice.chosen is not user
                            else ""
                        ),
                    )
            if advice.time_field is not None and user is not None and user.paths[:1] == [advice.time_field]:
                yield self.finding(
                    "warning",
                    "entity",
                    advice.entity,
                    f"the time series {name} is sharded on its timeField {advice.time_field}, deprecated in "
                    "MongoDB 8.0: shard on the metaField" + (f" {advice.meta_field}" if advice.meta_field else ""),
                )
            if advice.chosen is None:
                yield self.finding(
                    "warning",
                    "entity",
                    advice.entity,
                    f"{name} should be sharded ({advice.why}) but no key is allowed: every candidate is refused "
                    "by the server (unique indexes on different fields, or arrays); keep one unique constraint "
                    "in its own collection",
                )
                continue
            for q in view.facts.queries_of.get(advice.entity, []):
                plan = plans.get(q.id)
                if plan is None or plan.collection != advice.collection:
                    continue
                hashed_range = range_targeted(advice, plan)
                if hashed_range is not None:
                    yield self.finding(
                        "info",
                        "query",
                        q.id,
                        f"{view.query_words(q)} reads a range of {hashed_range}, which {name} hashes: every shard "
                        "answers it (scatter-gather)",
                    )
                elif view.facts.is_hot(q) and not targets(advice, plan):
                    yield self.finding(
                        "warning",
                        "query",
                        q.id,
                        f"{view.busy_query_words(q)} does not filter on the shard key "
                        f"{_key_text(advice.chosen)} of {name}: it goes to every shard (scatter-gather)",
                        numbers={"per_sec": q.per_sec},
                    )
