"""A rule's collection, query or entity filter (``Rule.collections``, ``queries``, ``entities``) only leaves out
subjects its hook has nothing to say about: every hook, run on every subject without the filter, reports only on
subjects the filter keeps. The engine calls a hook for the kept subjects alone (speed only), so a filter that
dropped one would lose findings silently. (``Rule.relationships`` also picks which rule speaks: every strategy rule
would report any relationship's plan, and each reports those whose recommendation it made.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from benchmarks.generate import generate_project
from modeller.model.project import Project
from modeller.persistence.load import load_project
from modeller.rules import engine
from modeller.rules.catalog import load_rules
from modeller.rules.framework.context import RuleView
from modeller.rules.framework.registry import REGISTRY
from modeller.rules.framework.rule import Traits
from modeller.rules.physical.facts import ContextCache, build_context
from modeller.rules.physical.resolver import ResolveCache, resolve
from modeller.rules.settings import DEFAULT_SETTINGS, Settings
from tests.rules.test_cases import CASES_DIR, build

SAMPLES = sorted((Path(__file__).parents[2] / "samples").glob("*.modeller.json"))


def _projects() -> list[Any]:
    out = [
        pytest.param(path.name, lambda path=path: (load_project(path), DEFAULT_SETTINGS), id=path.name)
        for path in SAMPLES
    ]
    out.append(
        pytest.param("generated", lambda: (generate_project(300, 1.5, 0.6, seed=3), DEFAULT_SETTINGS), id="generated")
    )
    for path in sorted(CASES_DIR.glob("*.yml")):
        for n, case in enumerate(yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]):
            settings = DEFAULT_SETTINGS.with_values(**case.get("settings", {}))
            out.append(
                pytest.param(
                    path.stem,
                    lambda case=case, settings=settings: (build(case["project"]), settings),
                    id=f"{path.stem}-{n}",
                )
            )
    return out


def _view(project: Project, settings: Settings) -> RuleView:
    facts = build_context(project, settings, ContextCache())
    design, res = resolve(facts, REGISTRY.deciders(), ResolveCache())
    return RuleView.of(facts, design, res)


@pytest.mark.parametrize(("name", "make"), _projects())
def test_a_filtered_hook_reports_only_on_the_subjects_its_filter_keeps(name: str, make: Any) -> None:
    load_rules()
    view = _view(*make())
    subjects = engine._all_subjects(view)
    filtered = 0
    for cls in REGISTRY:
        rule = cls()
        for at, _kind, hook, only in engine._hooks(cls):
            if only is None or at == 0:  # (0: the relationships)
                continue
            key, value = only
            for _, _, subject in subjects[at]:
                made = list(hook(rule, view, subject))
                if made:
                    got = key(view, subject)
                    assert value in got if isinstance(got, Traits) else got == value, (
                        cls.id,
                        [f.message for f in made],
                    )
                    filtered += 1
    assert filtered or name != "generated", "the generated model must give filtered rules something to report"
