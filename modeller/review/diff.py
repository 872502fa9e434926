"""``diff(old, new)``: what changes for the database when a project goes from OLD to NEW.

The diff compares the *resolved* designs (``analyse(project).design``), not the JSON text: a
reviewer wants to know that ``posts.comments`` moves into its own collection, not that a
``strategy`` key changed. Collections are matched by the entity stored at their root (its id
survives a rename); fields by their path, then removed/added pairs are read as moves (same leaf
name, other parent) or renames (same parent and type, the only such pair there).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from modeller.export.common import human_count, index_key, index_options
from modeller.export.literals import one_line, quoted
from modeller.model.project import Project
from modeller.model.wording import counted
from modeller.review.changes import Change
from modeller.review.copy_risk import id_copy_risk
from modeller.review.copy_storage import Storage, storage
from modeller.rules import Analysis, analyse
from modeller.rules.framework.findings import Finding
from modeller.rules.physical.design import CollectionDesign, Design, IndexDesign, ShapeNode


@dataclass(slots=True)
class SchemaDiff:
    """The changes from OLD to NEW, and both sides (the migration script reads them)."""

    old: Project
    new: Project
    old_design: Design
    new_design: Design
    changes: list[Change] = field(default_factory=list)

    @property
    def breaking(self) -> list[Change]:
        return [c for c in self.changes if c.breaking]

    def to_json(self) -> dict[str, Any]:
        return {
            "summary": summary_line(self),
            "breaking": len(self.breaking),
            "changes": [c.to_json() for c in self.changes],
        }


def diff_projects(old: Project, new: Project) -> SchemaDiff:
    """Analyse both projects and compare their resolved designs."""
    return diff_analyses(old, analyse(old), new, analyse(new))


def diff_analyses(old: Project, old_analysis: Analysis, new: Project, new_analysis: Analysis) -> SchemaDiff:
    """The changes between two analysed projects, collections in NEW's order, then removed ones."""
    result = SchemaDiff(old, new, old_analysis.design, new_analysis.design)
    old_colls = {c.root: c for c in old_analysis.design.collections}
    new_colls = {c.root: c for c in new_analysis.design.collections}
    changes = result.changes
    for root, coll in new_colls.items():
        before = old_colls.get(root)
        if before is None:
            changes.append(_collection_added(coll))
            continue
        if before.name != coll.name:
            changes.append(_collection_renamed(before, coll))
        changes.extend(_collection_changes(before, coll))
    for root, coll in old_colls.items():
        if root not in new_colls:
            changes.append(_collection_removed(coll, new_analysis.design))
    changes.extend(_strategy_changes(old, old_analysis.design, new, new_analysis.design))
    changes.extend(_moved_entity_changes(old_analysis.design, new_analysis.design))
    changes.extend(_finding_changes(old_analysis.findings, new_analysis.findings, new_analysis.design))
    return result


def summary_line(diff: SchemaDiff) -> str:
    """One line for the top of a review: how many changes, how many break existing data."""
    schema = [c for c in diff.changes if not c.kind.startswith("finding-")]
    if not diff.changes:
        return "no changes to the resolved design"
    colls = len({c.collection for c in schema if c.collection})
    findings = len(diff.changes) - len(schema)
    parts = [
        f"{counted(len(schema), 'schema change')} in {counted(colls, 'collection')}",
        f"{len(diff.breaking)} breaking",
    ]
    if findings:
        parts.append(
            f"{counted(findings, 'finding')} {'appears or disappears' if findings == 1 else 'appear or disappear'}"
        )
    return ", ".join(parts)


# ---------------------------------------------------------------------------------------------- collections


def _docs(coll: CollectionDesign) -> str:
    """``1.2M documents`` / ``an unknown number of documents`` for a risk line."""
    return "an unknown number of documents" if coll.count is None else f"{human_count(coll.count)} documents"


def _collection_added(coll: CollectionDesign) -> Change:
    return Change(
        "collection-added",
        coll.name,
        coll.name,
        f"new collection {quoted(coll.name)} with {len(coll.indexes)} index(es)",
        "none for existing documents, the collection starts empty",
        details={"count": coll.count},
    )


def _collection_removed(coll: CollectionDesign, new_design: Design) -> Change:
    moved = new_design.embedded.get(coll.root)
    where = f"; its documents now live inside {quoted(moved.collection)}" if moved else ""
    return Change(
        "collection-removed",
        coll.name,
        coll.name,
        f"collection {quoted(coll.name)} is no longer in the design{where}",
        f"queries on it break; its {_docs(coll)} stay until dropped by hand (the migration never drops data)",
        breaking=True,
        details={"count": coll.count},
    )


def _collection_renamed(before: CollectionDesign, after: CollectionDesign) -> Change:
    return Change(
        "collection-renamed",
        after.name,
        after.name,
        f"collection {quoted(before.name)} renamed to {quoted(after.name)}",
        f"renameCollection moves {_docs(before)}; applications using the old name break",
        breaking=True,
        details={"old": before.name, "new": after.name},
    )


def _collection_changes(before: CollectionDesign, after: CollectionDesign) -> list[Change]:
    changes = _field_changes(before, after)
    changes.extend(_index_changes(before, after))
    shape_changed = any(c.kind.startswith("field-") for c in changes)
    if not shape_changed and _validator_state(before) != _validator_state(after):
        stricter = (after.validation_level, after.validation_action) != (
            before.validation_level,
            before.validation_action,
        ) and (after.validation_level, after.validation_action) == ("strict", "error")
        loose_only = before.validator == after.validator and not stricter
        changes.append(
            Change(
                "validator-changed",
                after.name,
                after.name,
                f"validator of {quoted(after.name)}: level {before.validation_level} -> {after.validation_level}, "
                f"action {before.validation_action} -> {after.validation_action}"
                + ("" if before.validator == after.validator else ", $jsonSchema changed"),
                "none: the server checks writes less strictly"
                if loose_only
                else f"existing documents fail the new validator ({_docs(after)} to check)",
                breaking=not loose_only,
            )
        )
    return changes


def _validator_state(coll: CollectionDesign) -> tuple[Any, ...]:
    return (coll.validator, coll.validation_level, coll.validation_action)


# ---------------------------------------------------------------------------------------------- fields


@dataclass(frozen=True, slots=True)
class _Slot:
    """A field of a document shape with its dotted path and whether an array lies on the way to it."""

    path: str
    node: ShapeNode
    in_array: bool

    @property
    def parent(self) -> str:
        return self.path.rpartition(".")[0]

    @property
    def leaf(self) -> str:
        return self.path.rpartition(".")[2]


def _slots(nodes: Iterable[ShapeNode], prefix: str = "", in_array: bool = False) -> Iterator[_Slot]:
    for node in nodes:
        if node.role == "id" and not prefix:
            continue
        path = f"{prefix}.{node.name}" if prefix else node.name
        yield _Slot(path, node, in_array)
        if node.items is not None:
            yield from _slots(node.items.children, path, True)
        else:
            yield from _slots(node.children, path, in_array)


def type_name(node: ShapeNode) -> str:
    """The type a reader knows: ``string``, ``array<string>``, ``uuid``, ``array<object>``."""
    own = node.field_type or node.bson_type
    if node.items is not None:
        return f"array<{node.items.field_type or node.items.bson_type}>"
    return own


def _top(paths: Iterable[str], within: set[str]) -> list[str]:
    """The paths whose parent is not itself in ``within`` (a removed object reports once, not per child)."""
    return [p for p in paths if not any(p.startswith(other + ".") for other in within)]


def _field_changes(before: CollectionDesign, after: CollectionDesign) -> list[Change]:
    old = {s.path: s for s in _slots(before.shape)}
    new = {s.path: s for s in _slots(after.shape)}
    removed_all = {p for p in old if p not in new}
    added_all = {p for p in new if p not in old}
    removed = _top(sorted(removed_all), removed_all)
    added = _top(sorted(added_all), added_all)
    changes: list[Change] = []
    docs = _docs(before)
    # moves: the same leaf name and type under another parent
    for path in list(removed):
        slot = old[path]
        match = [a for a in added if new[a].leaf == slot.leaf and type_name(new[a].node) == type_name(slot.node)]
        if len(match) == 1:
            target = new[match[0]]
            removed.remove(path)
            added.remove(target.path)
            into = f"into {quoted(target.parent)}" if target.parent else "out of its sub-document"
            changes.append(
                Change(
                    "field-moved",
                    after.name,
                    target.path,
                    f"{quoted(path)} moved {into}: now {quoted(target.path)}",
                    f"existing documents fail the new validator until moved "
                    f"({_how('$rename', target, slot)} on {docs}); "
                    f"queries on {quoted(path)} find nothing",
                    breaking=True,
                    details=_pair(slot, target),
                )
            )
    # renames: the only removed/added pair of one type under one parent
    for path in list(removed):
        slot = old[path]
        same_kind = [r for r in removed if old[r].parent == slot.parent and _kind(old[r]) == _kind(slot)]
        match = [a for a in added if new[a].parent == slot.parent and _kind(new[a]) == _kind(slot)]
        if len(same_kind) == 1 and len(match) == 1:
            target = new[match[0]]
            removed.remove(path)
            added.remove(target.path)
            changes.append(
                Change(
                    "field-renamed",
                    after.name,
                    target.path,
                    f"{quoted(path)} renamed to {quoted(target.path)}",
                    f"existing documents fail the new validator until renamed "
                    f"({_how('$rename', target, slot)} on {docs}); "
                    f"queries on {quoted(path)} find nothing",
                    breaking=True,
                    details=_pair(slot, target),
                )
            )
    for path in added:
        slot = new[path]
        required = slot.node.required
        changes.append(
            Change(
                "field-added",
                after.name,
                path,
                f"new {'required ' if required else ''}field {quoted(path)}: {type_name(slot.node)}",
                f"existing documents fail the new validator until they get a default ({docs} to update)"
                if required
                else "none: existing documents may lack an optional field",
                breaking=required,
                details={
                    "path": path,
                    "type": type_name(slot.node),
                    "bson_type": slot.node.bson_type,
                    "required": required,
                    "in_array": slot.in_array,
                    "example": slot.node.example,
                    "enum": slot.node.enum,
                },
            )
        )
    for path in removed:
        slot = old[path]
        changes.append(
            Change(
                "field-removed",
                after.name,
                path,
                f"field {quoted(path)} ({type_name(slot.node)}) removed",
                f"code and queries reading {quoted(path)} get nothing; the values stay in {docs} until unset by hand",
                breaking=True,
                details={"path": path, "in_array": slot.in_array},
            )
        )
    for path in sorted(set(old) & set(new)):
        changes.extend(_same_path_changes(old[path], new[path], after.name, docs))
    return changes


def _how(operator: str, *slots: _Slot) -> str:
    """The update that migrates a field: the operator, or for a field inside array elements a ``$map`` over them."""
    return "$map over the array elements" if any(s.in_array for s in slots) else operator


def _kind(slot: _Slot) -> tuple[str, str]:
    return (type_name(slot.node), slot.node.role)


def _pair(old: _Slot, new: _Slot) -> dict[str, Any]:
    return {
        "old": old.path,
        "new": new.path,
        "type": type_name(new.node),
        "in_array": old.in_array or new.in_array,
    }


def _same_path_changes(old: _Slot, new: _Slot, collection: str, docs: str, was: str = "") -> list[Change]:
    """Type, required and bound changes of one field; ``was`` names where it was when it moved with its entity."""
    changes: list[Change] = []
    path = new.path
    label = quoted(path) + (f" ({was})" if was else "")
    if type_name(old.node) != type_name(new.node):
        changes.append(
            Change(
                "field-retyped",
                collection,
                path,
                f"{label}: {type_name(old.node)} -> {type_name(new.node)}",
                f"existing documents fail the new validator until converted ({_how('$convert', new)} on {docs})",
                breaking=True,
                details={
                    "path": path,
                    "old_type": type_name(old.node),
                    "type": type_name(new.node),
                    "bson_type": new.node.bson_type,
                    "in_array": new.in_array,
                },
            )
        )
        return changes  # the type change explains the rest
    if old.node.required != new.node.required:
        required = new.node.required
        changes.append(
            Change(
                "field-required" if required else "field-optional",
                collection,
                path,
                f"{label} is now {'required' if required else 'optional'}",
                f"existing documents without {quoted(path)} fail the new validator ({docs} to check)"
                if required
                else "none: documents may now omit it",
                breaking=required,
                details={
                    "path": path,
                    "bson_type": new.node.bson_type,
                    "required": required,
                    "in_array": new.in_array,
                    "example": new.node.example,
                    "enum": new.node.enum,
                },
            )
        )
    tighter, what = _constraints(old.node, new.node)
    if what:
        changes.append(
            Change(
                "field-constraint",
                collection,
                path,
                f"{label}: {what}",
                f"existing documents outside the new bound fail the new validator ({docs} to check)"
                if tighter
                else "none: the bound is looser",
                breaking=tighter,
                details={
                    "path": path,
                    "bson_type": new.node.bson_type,
                    "type": type_name(new.node),
                    "in_array": new.in_array,
                    # the types its values may no longer have: the migration converts them to ``bson_type``
                    "dropped_types": _dropped_types(old.node, new.node),
                },
            )
        )
    return changes


def _dropped_types(old: ShapeNode, new: ShapeNode) -> list[str]:
    """The BSON types OLD's validator took for the field and NEW's refuses (``null`` among them)."""
    before = set(old.other_types) | ({"null"} if old.nullable else set())
    after = set(new.other_types) | ({"null"} if new.nullable else set())
    return sorted(before - after - {new.bson_type})


def _constraints(old: ShapeNode, new: ShapeNode) -> tuple[bool, str]:
    """Whether the enum / maxItems / null bounds got tighter, and what changed."""
    what: list[str] = []
    tighter = False
    if old.enum != new.enum:
        what.append(f"allowed values {_values(old.enum)} -> {_values(new.enum)}")
        narrowed = old.enum is None or not set(map(repr, old.enum)) <= set(map(repr, new.enum or ()))
        tighter = tighter or (new.enum is not None and narrowed)
    if old.max_items != new.max_items:
        what.append(f"maxItems {old.max_items or 'none'} -> {new.max_items or 'none'}")
        shorter = old.max_items is None or (new.max_items or 0) < old.max_items
        tighter = tighter or (new.max_items is not None and shorter)
    if set(old.other_types) != set(new.other_types):
        before, after = set(old.other_types), set(new.other_types)
        what.append(f"other types {_kinds(old.other_types)} -> {_kinds(new.other_types)}")
        tighter = tighter or not before <= after
    if old.nullable != new.nullable:
        what.append("may be null" if new.nullable else "may no longer be null")
        tighter = tighter or not new.nullable
    return tighter, ", ".join(what)


def _kinds(kinds: tuple[str, ...]) -> str:
    """Types besides the field's own, as a reader writes them: ``[string, null]``, ``none``."""
    return f"[{', '.join(kinds)}]" if kinds else "none"


def _values(values: list[Any] | None) -> str:
    """Allowed values as the user wrote them: strings quoted, numbers and booleans as numbers and booleans."""
    return (
        "any"
        if values is None
        else "["
        + ", ".join(quoted(v) if isinstance(v, str) else one_line(json.dumps(v, default=str)) for v in values)
        + "]"
    )


# ---------------------------------------------------------------------------------------------- indexes


def _index_spec(index: IndexDesign) -> tuple[Any, ...]:
    options = index_options(index)
    options.pop("name")
    return (list(index_key(index).items()), sorted(options.items(), key=lambda kv: kv[0]))


def _index_text(index: IndexDesign) -> str:
    keys = ", ".join(f"{quoted(k)}: {v}" for k, v in index.keys)
    extra = " unique" if index.unique else ""
    if index.expire_after_s is not None:
        extra += f" ttl {index.expire_after_s}s"
    return f"{{{keys}}}{extra}"


def _index_changes(before: CollectionDesign, after: CollectionDesign) -> list[Change]:
    old = {ix.name: ix for ix in before.indexes}
    new = {ix.name: ix for ix in after.indexes}
    changes: list[Change] = []
    build = f"index build on {_docs(after)}"
    for name, index in new.items():
        previous = old.get(name)
        if previous is None:
            unique = " ; existing duplicates make the build fail" if index.unique else ""
            changes.append(
                Change(
                    "index-added",
                    after.name,
                    name,
                    f"new index {quoted(name)} {_index_text(index)}",
                    build + unique,
                    breaking=index.unique,
                    details={"name": name, "key": index_key(index), "options": index_options(index)},
                )
            )
        elif _index_spec(previous) != _index_spec(index):
            changes.append(
                Change(
                    "index-changed",
                    after.name,
                    name,
                    f"index {quoted(name)}: {_index_text(previous)} -> {_index_text(index)}",
                    f"dropped and rebuilt: {build}"
                    + ("; existing duplicates make the build fail" if index.unique and not previous.unique else ""),
                    breaking=index.unique and not previous.unique,
                    details={"name": name, "key": index_key(index), "options": index_options(index)},
                )
            )
    for name, index in old.items():
        if name not in new:
            changes.append(
                Change(
                    "index-removed",
                    after.name,
                    name,
                    f"index {quoted(name)} {_index_text(index)} removed",
                    "queries it served scan the collection or sort in memory; hide it first, drop it later",
                    details={"name": name},
                )
            )
    return changes


# ---------------------------------------------------------------------------------------------- relationships


def _relationship_names(project: Project) -> dict[str, str]:
    """Relationship id -> "Post comments" (the one side's name and the role), as the user reads it."""
    names = {e.id: e.name for e in project.entities}
    out: dict[str, str] = {}
    for rel in project.relationships:
        role = rel.name or names.get(rel.many, rel.many)
        out[rel.id] = f"{names.get(rel.one, rel.one)} -> {role}"
    return out


def _strategy_changes(old: Project, old_design: Design, new: Project, new_design: Design) -> list[Change]:
    before = {r.id: r for r in old_design.relationships}
    labels = _relationship_names(new)
    many = {r.id: r.many for r in new.relationships}
    counts = {e.id: e.count for e in new.entities}
    names = {e.id: e.name for e in new.entities}
    colls = {c.root: c.name for c in new_design.collections}
    changes: list[Change] = []

    def sized(name: str) -> str:
        coll = new_design.collection(name)
        return _docs(coll) if coll is not None else "an unknown number of documents"

    for rel in new_design.relationships:
        previous = before.get(rel.id)
        if previous is None or previous.strategy == rel.strategy:
            continue
        child = many.get(rel.id, "")
        n = counts.get(child)
        docs = "an unknown number of documents" if n is None else f"{human_count(n)} documents"
        placement = new_design.embedded.get(child)
        collection = placement.collection if placement else colls.get(child, "")
        risk = f"{docs} must be copied into the new shape; queries and code that read the old shape break"
        was, now = storage(old_design, old, rel.id), storage(new_design, new, rel.id)
        risk += _embedded_id_risk(was, now, names.get(child, child))
        ids = id_copy_risk(was, now, sized)
        if ids is not None:
            collection, risk = ids[0] or collection, ids[1]
        changes.append(
            Change(
                "strategy-changed",
                collection,
                labels.get(rel.id, rel.id),
                f"{quoted(labels.get(rel.id, rel.id))}: {previous.strategy} -> {rel.strategy}",
                risk,
                breaking=True,
                details={"relationship": rel.id, "old": previous.strategy, "new": rel.strategy},
            )
        )
    return changes


def _embedded_id_risk(old: Storage | None, new: Storage | None, entity: str) -> str:
    """What copying N documents into their parent loses (tryout item 7): the copies keep no ``_id`` unless the
    design gives the embedded elements one, and the source collection stays until dropped by hand."""
    if old is None or new is None or old.embed is not None or new.embed is None or old.child is None:
        return ""
    kept = f"; the documents of {quoted(old.child)} stay until you drop that collection"
    if new.item_id:
        return kept
    return (
        f"; each embedded {entity} keeps no _id (the design gives embedded documents none), so nothing outside "
        f"can point at one any more" + kept
    )


# ---------------------------------------------------------------------------------------------- entities that move


@dataclass(frozen=True, slots=True)
class _Home:
    """Where a design keeps one entity's own fields: the collection, the path of its documents in it ("" at the
    top level), and its fields by their path inside the entity."""

    collection: CollectionDesign
    path: str
    fields: dict[str, _Slot]


def _homes(design: Design) -> dict[str, _Home]:
    """Entity id -> its one home (an entity kept in two places, or in none, is left out)."""
    found: dict[str, list[_Home]] = {}

    def own(
        coll: CollectionDesign, nodes: Iterable[ShapeNode], at: str, inner: str, in_array: bool, home: _Home
    ) -> None:
        for node in nodes:
            path = f"{at}.{node.name}" if at else node.name
            if node.role == "embedded" and node.entity:
                below = node.items if node.items is not None else node
                place(coll, node.entity, path, below.children, in_array or node.items is not None)
            elif node.role == "field":
                relative = f"{inner}.{node.name}" if inner else node.name
                home.fields[relative] = _Slot(path, node, in_array)
                below = node.items if node.items is not None else node
                own(coll, below.children, path, relative, in_array or node.items is not None, home)

    def place(coll: CollectionDesign, entity: str, at: str, nodes: Iterable[ShapeNode], in_array: bool) -> None:
        home = _Home(coll, at, {})
        found.setdefault(entity, []).append(home)
        own(coll, nodes, at, "", in_array, home)

    for coll in design.collections:
        place(coll, coll.root, "", coll.shape, False)
    return {entity: homes[0] for entity, homes in found.items() if len(homes) == 1}


def _moved_entity_changes(old_design: Design, new_design: Design) -> list[Change]:
    """Type, required and bound changes of the fields of an entity that moved (a strategy change embeds it or
    takes it out): their paths change with the entity, so the per-collection comparison never pairs them."""
    old_homes, new_homes = _homes(old_design), _homes(new_design)
    changes: list[Change] = []
    for entity, after in new_homes.items():
        before = old_homes.get(entity)
        if before is None or (before.collection.root, before.path) == (after.collection.root, after.path):
            continue
        docs = _docs(before.collection)
        for relative in sorted(set(before.fields) & set(after.fields)):
            old, new = before.fields[relative], after.fields[relative]
            if old.path == new.path and before.collection.root == after.collection.root:
                continue  # compared with its collection
            was = f"was {quoted(old.path)} in {quoted(before.collection.name)}"
            changes.extend(_same_path_changes(old, new, after.collection.name, docs, was))
    return changes


# ---------------------------------------------------------------------------------------------- findings


def _finding_key(finding: Finding) -> tuple[str, str, str]:
    return (finding.rule, finding.subject.kind, finding.subject.id)


def _finding_collection(finding: Finding, design: Design) -> str:
    kind, ident = finding.subject.kind, finding.subject.id
    if kind == "collection":
        return ident
    if kind == "index":
        return ident.partition("#")[0]
    entity = ident.partition(".")[0] if kind == "field" else ident if kind == "entity" else None
    if entity is None:
        return ""
    placement = design.embedded.get(entity)
    if placement is not None:
        return placement.collection
    return next((c.name for c in design.collections if c.root == entity), "")


def _finding_changes(old: Iterable[Finding], new: Iterable[Finding], design: Design) -> list[Change]:
    before = {_finding_key(f): f for f in old if not f.overridden}
    after = {_finding_key(f): f for f in new if not f.overridden}
    changes: list[Change] = []
    for key, finding in after.items():
        if key not in before:
            changes.append(_finding_change("finding-appeared", finding, design))
    for key, finding in before.items():
        if key not in after:
            changes.append(_finding_change("finding-disappeared", finding, design))
    return changes


def _finding_change(kind: Any, finding: Finding, design: Design) -> Change:
    verb = "new" if kind == "finding-appeared" else "gone"
    return Change(
        kind,
        _finding_collection(finding, design),
        finding.rule,
        f"{verb} {finding.severity} {finding.rule}: {finding.message}",
        "advice only: no effect on stored documents",
        details={"severity": finding.severity},
    )


def by_collection(changes: Iterable[Change]) -> Mapping[str, list[Change]]:
    """Changes grouped by collection, in first-seen order ("" = about the whole project)."""
    groups: dict[str, list[Change]] = {}
    for change in changes:
        groups.setdefault(change.collection, []).append(change)
    return groups
