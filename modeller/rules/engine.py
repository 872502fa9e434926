"""``analyse(project) -> Analysis``: the resolver, then every registered rule.

Pure and deterministic: no I/O, no clock, no randomness; findings are sorted
by the subject's position in the project, then severity (most severe first),
then rule id, so the GUI and ``modeller check`` list them the same way.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field, replace

from modeller.model.project import Project
from modeller.rules.context import Context, build_context
from modeller.rules.design import Analysis, CollectionDesign, Design, RelationshipDesign
from modeller.rules.findings import SEVERITY_RANK, Finding
from modeller.rules.naming import collection_name
from modeller.rules.plans import RelPlan
from modeller.rules.registry import REGISTRY
from modeller.rules.resolver import Resolution, resolve
from modeller.rules.settings import DEFAULT_SETTINGS, Settings


@dataclass(slots=True)
class RuleContext:
    """What a rule sees: the indexed project, the plans and the resolved design."""

    facts: Context
    design: Design
    res: Resolution
    _inverse: dict[str, dict[str, str]] = field(default_factory=dict)
    _collections: dict[str, CollectionDesign] = field(default_factory=dict)
    _rel_designs: dict[str, RelationshipDesign] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._collections = {c.name: c for c in self.design.collections}
        self._rel_designs = {r.id: r for r in self.design.relationships}

    def collection(self, name: str) -> CollectionDesign | None:
        return self._collections.get(name)

    def rel_design(self, rel_id: str) -> RelationshipDesign:
        return self._rel_designs[rel_id]

    @property
    def project(self) -> Project:
        return self.facts.project

    @property
    def settings(self) -> Settings:
        return self.facts.settings

    def plan(self, rel_id: str) -> RelPlan:
        return self.res.plans[rel_id]

    def logical_keys(self, entity_id: str, keys: list[tuple[str, object]]) -> list[tuple[str, object]] | None:
        """Index keys in the model's own paths (for a fix), or None when a key has no model path."""
        inverse = self._inverse.get(entity_id)
        if inverse is None:
            inverse = {}
            routes = self.res.builder.routes.get(entity_id, {})
            for name, route in routes.items():
                if route.only is not None:
                    for sub, phys in route.only.items():
                        inverse.setdefault(phys, f"{name}.{sub}")
                elif route.entity is None:
                    inverse.setdefault(route.path, name)
            for path in self.facts.fields_of.get(entity_id, {}):
                physical = self.res.resolve_path(entity_id, path)
                if physical is not None:
                    inverse.setdefault(physical, path)
            self._inverse[entity_id] = inverse
        out: list[tuple[str, object]] = []
        for key, value in keys:
            logical = inverse.get(key)
            if logical is None:
                return None
            out.append((logical, value))
        return out

    def collection_of(self, entity_id: str) -> CollectionDesign | None:
        loc = self.res.location.get(entity_id)
        return None if loc is None else self._collections.get(loc[0])


def _load_rules() -> None:
    """Import the rule families so their classes register themselves."""
    # order of import = order of registration = order of `modeller rules` and docs/rules.md
    from modeller.rules import shape  # noqa: F401, I001
    from modeller.rules import denormalization  # noqa: F401
    from modeller.rules import patterns  # noqa: F401
    from modeller.rules import indexes  # noqa: F401
    from modeller.rules import antipatterns  # noqa: F401


def analyse(project: Project, settings: Settings | None = None) -> Analysis:
    """Findings and the resolved physical design of ``project``."""
    _load_rules()
    # analyse allocates many small objects that are all alive until it returns: cyclic GC passes in
    # the middle would only rescan them (2-3x slower on big models); collection resumes afterwards
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _analyse(project, settings)
    finally:
        if gc_was_enabled:
            gc.enable()


def _analyse(project: Project, settings: Settings | None) -> Analysis:
    facts = build_context(project, settings or DEFAULT_SETTINGS)
    design, res = resolve(facts)
    rctx = RuleContext(facts, design, res)
    findings: list[Finding] = []
    for rule_cls in REGISTRY:
        findings.extend(rule_cls().check(rctx))
    findings = _apply_overrides(project, findings)
    order = _subject_order(project)
    findings.sort(
        key=lambda f: (
            order.get((f.subject.kind, f.subject.id), _fallback(order, f)),
            -SEVERITY_RANK[f.severity],
            f.rule,
            f.subject.id,
            f.message,
        )
    )
    return Analysis(findings=findings, design=design)


def _apply_overrides(project: Project, findings: list[Finding]) -> list[Finding]:
    overrides = {(o.rule, o.subject.kind, o.subject.id): o.note for o in project.overrides}
    decisions = {r.id: r.decision for r in project.relationships if r.decision is not None}
    out = []
    for f in findings:
        key = (f.rule, f.subject.kind, f.subject.id)
        if key in overrides:
            f = replace(f, overridden=True, note=overrides[key] or None)
        elif f.subject.kind == "relationship" and f.subject.id in decisions:
            f = replace(f, overridden=True, note=decisions[f.subject.id].note or None)
        out.append(f)
    return out


def _subject_order(project: Project) -> dict[tuple[str, str], tuple[int, ...]]:
    order: dict[tuple[str, str], tuple[int, ...]] = {}
    for i, e in enumerate(project.entities):
        order.setdefault(("entity", e.id), (0, i, 0))
        order.setdefault(("collection", collection_name(e)), (0, i, 1))
    for j, r in enumerate(project.relationships):
        order.setdefault(("relationship", r.id), (1, j))
    for k, q in enumerate(project.queries):
        order.setdefault(("query", q.id), (2, k))
    return order


def _fallback(order: dict[tuple[str, str], tuple[int, ...]], f: Finding) -> tuple[int, ...]:
    """Fields and indexes sort under their entity / collection."""
    head = f.subject.id.split(".", 1)[0].split("#", 1)[0]
    for kind in ("entity", "collection"):
        if (kind, head) in order:
            return order[(kind, head)] + (2,)
    return (3,)
