"""``worded`` writes a template's source keys as names before the user's names go in (speed only): after the
finding's own ``plain`` the text is what writing the keys of the whole formatted text gives."""

from __future__ import annotations

import inspect
import re

from modeller.rules.catalog import load_rules
from modeller.rules.catalog import shape as shape_rules
from modeller.rules.framework.references import plain
from modeller.rules.framework.registry import REGISTRY
from modeller.rules.framework.rule import _template_names, worded

#: names a user may give, some holding what looks like a source key or an article
NAMES = ("Order", "Line item", "CN", "Zola-3", "the Univ", "[Compass]", "Manual-AP-unbounded seed", "Æon", "x1", "_")


def _templates() -> list[str]:
    """Every ``explain`` template of the catalog and the decision-specific templates ``shape`` words."""
    load_rules()
    found = [cls.explain for cls in REGISTRY if cls.explain]
    source = inspect.getsource(shape_rules)
    found += [
        "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', block))
        for block in re.findall(r"(?:worded\(|template = \()\s*((?:\"(?:[^\"\\]|\\.)*\"\s*)+)", source)
    ]
    return found


def test_the_catalog_has_templates_to_check() -> None:
    templates = _templates()
    assert len(templates) >= 10
    assert sum("Zola-2" in t for t in templates) >= 2  # the many-to-many-refs whys are among them


def test_worded_then_plain_is_plain_of_the_whole_text() -> None:
    checked = 0
    for template in _templates():
        keys = _template_names(template)
        for i in range(len(NAMES)):
            names = {key: NAMES[(i + j) % len(NAMES)] for j, key in enumerate(sorted(keys))}
            expected = plain(template.format(**names))
            assert plain(worded(template, **names)) == expected, (template, names)
            checked += expected != template.format(**names)
    assert checked > 20  # the templates do hold keys
