"""What an inferred model says about its own data: fields held with several BSON types.

Not one of RULES.md's 45 catalog rules: it reads the sentence inference writes
into an entity's description (``modeller.model.mixed_fields``), so it is
numbered after them and registered last.
"""

from __future__ import annotations

from collections.abc import Iterable

from modeller.model.mixed_fields import HEAD, undeclared_entries
from modeller.model.text import shown
from modeller.rules.framework.context import RuleView
from modeller.rules.framework.findings import Finding
from modeller.rules.framework.registry import register
from modeller.rules.framework.rule import Rule


@register
class MixedTypes(Rule):
    """A field the data holds with several BSON types, which no validator or generated model can check.

    *Why*
    Money stored as Decimal128 in most orders and as a double in others, or a
    total that is sometimes a string, sorts, sums and compares wrongly, and a
    validator can name only one type per field: one built from the commonest
    type refuses every document holding another. The model therefore leaves
    such a field undeclared, and nothing checks it until its values agree.

    *Anti-pattern*
    ``{total: 12.5}`` next to ``{total: "12.5"}``; a zip code stored as a
    string in most documents and as a number in some.

    *Best practice*
    Convert the values to one type (an ``updateMany`` with ``$convert``, or
    the schema-versioning pattern while the application still writes the old
    type), then declare the field with that type so the validator keeps it.
    """

    id = "mixed-types"
    code = "AP47"
    family = "antipatterns"
    severities = ("warning",)
    sources = ("BwP-schema-versioning", "BwP-polymorphic")
    tradeoff = "a conversion of the stored documents (and of the code writing them) vs. a field nothing checks"
    explain = (
        "values of several types in one field of {entity} sort, sum and compare wrongly, and a validator names one "
        "type per field: one built from the commonest type refuses every document holding another. The model "
        "therefore leaves such a field undeclared, and nothing checks it until its values agree."
    )

    def check_model(self, view: RuleView) -> Iterable[Finding]:
        """Read from each entity's description: cheap (a substring test) and independent of the design."""
        for entity in view.project.entities:
            description = entity.description
            if not description or HEAD not in description:
                continue
            entries = undeclared_entries(description)
            if not entries:
                continue
            listed = "; ".join(f"'{shown(path, 80)}' ({shown(words, 160)})" for path, words in entries[:5])
            more = f" and {len(entries) - 5} more" if len(entries) > 5 else ""
            yield self.finding(
                "warning",
                "entity",
                entity.id,
                f"{len(entries)} field(s) hold several types in the sampled documents: "
                f"{listed}{more}; no validator or model checks them: convert each to one type, then declare it",
                why=self.why_for(entity=entity.name),
                numbers={"fields": len(entries)},
            )
