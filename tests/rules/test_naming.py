"""The engine's memoized naming helpers agree with ``modeller.model.conventions`` (the documented convention)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from modeller.model import conventions
from modeller.model.project import Entity, Relationship
from modeller.rules import naming

NAMES = st.text(min_size=1, max_size=30).filter(lambda s: s.strip() != "")
ROLES = st.none() | st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)


@given(
    one=NAMES,
    many=NAMES,
    collection=st.none() | st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True),
    role=ROLES,
    rel_name=ROLES,
    cardinality=st.sampled_from(["one-to-one", "one-to-many"]),
)
def test_naming_matches_conventions(
    one: str, many: str, collection: str | None, role: str | None, rel_name: str | None, cardinality: str
) -> None:
    e1 = Entity(id="a", name=one, collection=collection, fields=[])
    e2 = Entity(id="b", name=many, fields=[])
    rel = Relationship(id="r", one="a", many="b", cardinality=cardinality, inverse=role, name=rel_name)
    for entity in (e1, e2):
        assert naming.collection_name(entity) == conventions.collection_name(entity)
    assert naming.parent_ref_field(rel, e1) == conventions.parent_ref_field(rel, e1)
    assert naming.child_refs_field(rel, e2) == conventions.child_refs_field(rel, e2)
    assert naming.embed_field(rel, e2) == conventions.embed_field(rel, e2)
    assert naming.subset_field(rel, e2) == conventions.subset_field(rel, e2)
    assert naming.extended_ref_field(rel, e1) == conventions.extended_ref_field(rel, e1)
