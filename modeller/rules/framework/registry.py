"""The rule registry: every rule class once, with unique ids and codes."""

from __future__ import annotations

from modeller.rules.framework.rule import Rule
from modeller.rules.physical.strategy import Deciders


class DuplicateRuleError(ValueError):
    """Two rules claim the same id or code: findings would be ambiguous."""


class Registry:
    """Ordered collection of rule classes; refuses duplicate ids and codes."""

    def __init__(self) -> None:
        self._rules: dict[str, type[Rule]] = {}
        self._codes: dict[str, str] = {}
        self._deciders: Deciders | None = None

    def register(self, rule: type[Rule]) -> type[Rule]:
        if not rule.id or not rule.code:
            raise ValueError(f"{rule.__name__} needs an id and a code")
        if rule.id in self._rules:
            raise DuplicateRuleError(f"rule id {rule.id!r} is registered twice")
        if rule.code in self._codes:
            raise DuplicateRuleError(f"rule code {rule.code!r} is used by {self._codes[rule.code]!r} and {rule.id!r}")
        self._rules[rule.id] = rule
        self._codes[rule.code] = rule.id
        self._deciders = None
        return rule

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._rules.values())

    def __len__(self) -> int:
        return len(self._rules)

    def get(self, key: str) -> type[Rule] | None:
        """A rule by id or by code (case-insensitive for codes)."""
        if key in self._rules:
            return self._rules[key]
        rule_id = self._codes.get(key.upper())
        return self._rules.get(rule_id) if rule_id else None

    def ids(self) -> list[str]:
        return list(self._rules)

    def deciders(self) -> Deciders:
        """The strategy rules (``Rule.decides``) in registration order and the rules behind each index reason
        (``Rule.index_claims``, by rank then registration order), as the resolver takes them."""
        if self._deciders is None:
            # asked in this order: highest precedence first, then registration order (``sorted`` is stable)
            rules = sorted((cls() for cls in self._rules.values() if cls.decides), key=_by_precedence)
            for rule in rules:
                if rule.decides not in ("base", "refinement"):
                    raise ValueError(f"{type(rule).__name__}.decides must be 'base' or 'refinement'")
            claims = sorted(
                (rank, order, reason, cls.id)
                for order, cls in enumerate(self._rules.values())
                for reason, rank in cls.index_claims
            )
            index_rules: dict[str, tuple[str, ...]] = {}
            for _, _, reason, rule_id in claims:
                index_rules[reason] = (*index_rules.get(reason, ()), rule_id)
            self._deciders = Deciders(
                tuple(r for r in rules if r.decides == "base"),
                tuple(r for r in rules if r.decides == "refinement"),
                index_rules,
            )
        return self._deciders


REGISTRY = Registry()


def _by_precedence(rule: Rule) -> int:
    return -rule.precedence


def register(rule: type[Rule]) -> type[Rule]:
    """Class decorator adding a rule to the global registry."""
    return REGISTRY.register(rule)
