"""What an inferred model says about its own data: fields held with several BSON types.

Not one of RULES.md's 45 catalog rules: it reads the fields' ``other_types``
(inference declares a field seen with several types that way) and, for what
stays undeclared (only nulls seen, an array of mixed elements, a file written
before the key), the sentence inference writes into an entity's description
(``modeller.model.mixed_fields``); so it is numbered after them and registered last.
"""

from __future__ import annotations

from collections.abc import Iterable

from modeller.model.mixed_fields import HEAD, undeclared_entries
from modeller.model.paths import all_fields, iter_paths, sub_fields
from modeller.model.project import Entity, Field
from modeller.model.text import shown
from modeller.rules.framework.context import RuleView
from modeller.rules.framework.findings import Finding
from modeller.rules.framework.registry import register
from modeller.rules.framework.rule import Rule


def may_mix_types(view: RuleView, entity: Entity) -> bool:
    """A field of ``entity`` holds a type besides null in ``other_types``, or its description lists undeclared ones:
    what ``MixedTypes`` reports on (without the paths it words; a cold analysis of 10,000 entities finds none)."""
    description = entity.description
    return bool(description and HEAD in description) or _mixed(all_fields(entity))


def _mixed(fields: Iterable[Field]) -> bool:
    """A field among ``fields`` or below them holds a type besides null (without spelling paths, as
    ``iter_paths`` does: every field of every entity is asked in a cold analysis)."""
    for f in fields:
        if f.other_types and any(kind != "null" for kind in f.other_types):
            return True
        if _mixed(sub_fields(f)):
            return True
    return False


@register
class MixedTypes(Rule):
    """A field the data holds with several BSON types, which a validator can only let through.

    *Why*
    Money stored as Decimal128 in most orders and as a double in others, or a
    total that is sometimes a string, sorts, sums and compares wrongly. A
    validator built from the commonest type would refuse every document
    holding another, so the model declares the field with all of them
    (``other_types``; the validator's ``bsonType`` lists each) and the
    validator keeps letting the wrong ones in until the values agree.

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
    entities = (may_mix_types, True)
    explain = (
        "values of several types in one field of {entity} sort, sum and compare wrongly; a validator of the "
        "commonest type alone would refuse every document holding another, so the model accepts each type it saw "
        "and nothing keeps the wrong ones out until the values agree."
    )

    def check_entity(self, view: RuleView, entity: Entity) -> Iterable[Finding]:
        """Read from the entity's fields and description alone, independent of the design: after an edit only
        the replaced entities are read again (a walk over every entity's fields was a quarter of an edit's
        analysis at 10,000 entities; edit -> findings <= 200 ms, DESIGN.md)."""
        entries = [
            (path, f"{f.type}, also {', '.join(f.other_types)}")
            for path, f in iter_paths(all_fields(entity))
            if f.other_types and any(kind != "null" for kind in f.other_types)  # a null alone: a nullable field
        ]
        description = entity.description
        if description and HEAD in description:
            entries += [(path, f"{words}; left undeclared") for path, words in undeclared_entries(description)]
        if not entries:
            return
        listed = "; ".join(f"'{shown(path, 80)}' ({shown(words, 160)})" for path, words in entries[:5])
        more = f" and {len(entries) - 5} more" if len(entries) > 5 else ""
        yield self.finding(
            "warning",
            "entity",
            entity.id,
            f"{len(entries)} field(s) hold several types in the sampled documents: "
            f"{listed}{more}; convert each to one type, then declare it with that type alone",
            why=self.why_for(entity=entity.name),
            numbers={"fields": len(entries)},
        )
