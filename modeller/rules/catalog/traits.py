"""What a collection holds that several rules look for, read once per collection.

Most collections give the pattern rules nothing to say (no counter, no history, no archive): the engine files
each collection under its traits once per analysis and calls such a rule for the collections holding its trait
alone (``Rule.collections``), instead of each rule reading every collection's entity again (speed only: issue 16,
8,465 collections at 10,000 entities, six rules).
"""

from __future__ import annotations

import operator

from modeller.rules.framework.context import RuleView
from modeller.rules.framework.rule import Traits
from modeller.rules.physical.design import CollectionDesign

#: the entity declares a schema change (``SchemaVersioning``)
SCHEMA_CHANGE = "schema-change"
#: the entity keeps its history (``DocumentVersioning``)
HISTORY = "history"
#: the entity declares an archive (``ArchivePattern``)
ARCHIVED = "archived"
#: an append-only entity on a server known to be 5.0 or later (``TimeSeriesCollection``)
APPENDED_ON_5 = "appended-on-5"
#: the entity has groups of similar fields (``AttributePattern``; ``Context.attribute_groups`` keeps them)
ATTRIBUTE_GROUPS = "attribute-groups"
#: an entity of the collection has a counter field (``ApproximationPattern``)
COUNTER = "counter"

_COUNTER = operator.attrgetter("counter")


def collection_traits(view: RuleView, coll: CollectionDesign) -> Traits:
    """The traits of ``coll``: a rule filtered on one sees only the collections holding it."""
    facts = view.facts
    entity = facts.entities[coll.root]
    found = []
    if entity.schema_change:
        found.append(SCHEMA_CHANGE)
    if entity.history:
        found.append(HISTORY)
    if entity.archive is not None:
        found.append(ARCHIVED)
    if entity.append_only and facts.version_known_at_least_5:
        found.append(APPENDED_ON_5)
    if facts.attribute_groups(entity):
        found.append(ATTRIBUTE_GROUPS)
    fields_of = facts.fields_of
    if any(any(map(_COUNTER, fields_of[eid].values())) for eid in coll.entities):
        found.append(COUNTER)
    return Traits(found)
