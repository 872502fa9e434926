"""Data steps of a strategy change into or out of the subset, bucket and single collection patterns.

A subset keeps the full N collection and adds, in each One, an array of copies of its latest N
(``subsetIn``); a bucket design keeps the N's collection but holds bucket documents of up to the
design's size, one series (the One) each, with the time bounds, the count and the value statistics
(``bucketIn``, and ``bucketOut`` back); the single collection pattern keeps the N's documents in the
One's collection with the discriminator and a ``links`` element naming their One (``shareIn``, and
``shareOut`` back). Reshaping a collection in place (buckets) or leaving a shared one (single
collection) moves the documents: the new one is written before the old one is removed, and the marker
names both meanwhile, so a run cut at any write completes on the next run without a duplicate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modeller.export.literals import js_string, js_value, quoted
from modeller.review.copy_storage import Calls, Storage

#: what a DBA does by hand for a strategy change the script does not generate, by the NEW strategy
_BY_HAND = {
    "bucket": "group each One's N documents in time order into bucket documents of the design's size "
    "(series, start, end, count, statistics, items)",
    "single-collection": "copy the N documents into the One's collection with the discriminator and a links "
    "element naming their One",
    "embed": "copy each One's N documents into its array (or sub-document) with a pipeline $lookup and $merge",
    "subset": "set each One's array to copies of its latest N documents",
}


def by_hand(old: str, new: str) -> str:
    """The NOT MIGRATED comment of a strategy change whose copy is not generated: what to run instead."""
    todo = _BY_HAND.get(new, "set the N documents' references (or the One's id arrays) from the old shape")
    if old in ("bucket", "single-collection") and new not in ("bucket", "single-collection"):
        todo = f"first move the N documents out of the {old} shape into documents of their own, then {todo}"
    return (
        f"NOT MIGRATED: copying documents for {old} -> {new} is not generated; by hand: {todo}, "
        "and check them against the NEW validator"
    )


def moves_documents(old: Storage, new: Storage) -> bool:
    """Whether the change reshapes a collection (buckets) or shares one (single collection)."""
    return any(s.bucket is not None or s.discriminator is not None for s in (old, new))


def subset_calls(new: Storage, call: Calls, notes: list[str]) -> list[str] | None:
    """Fill the One's subset array from the N documents, once their references are in place."""
    if new.subset is None or new.parent is None or new.child is None or new.ref is None:
        return None
    sort = list(new.subset_sort) if new.subset_sort is not None else None
    copies = [list(c) for c in new.subset_copies]
    call("subsetIn", new.parent, new.subset, new.child, new.ref, new.subset_k, sort, copies)
    return [*notes, f"the full set stays in {quoted(new.child)}; the array keeps copies of the latest {new.subset_k}"]


def pattern_calls(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    """The calls of a change into or out of buckets or a single collection (notes; None: not generated)."""
    notes = []
    if old.subset is not None and new.subset != old.subset:
        notes.append(f"the array {quoted(old.subset)} of copies stays until the removed field is unset")
    steps: list[tuple[Callable[[Storage, Storage, Calls], list[str] | None], Storage, Storage]]
    if old.discriminator is not None and new.bucket is not None:  # through documents of their own
        plain = Storage(parent=new.parent, child=new.child, ref=new.ref)
        steps = [(_out_of_shared, old, plain), (into_buckets, plain, new)]
    elif old.bucket is not None and new.discriminator is not None:
        plain = Storage(parent=old.parent, child=old.child, ref=old.ref)
        steps = [(_out_of_buckets, old, plain), (into_shared, plain, new)]
    elif old.embed is not None and new.discriminator is not None:
        steps = [(_embedded_to_shared, old, new)]
    elif old.discriminator is not None and new.embed is not None:
        steps = [(_shared_to_embedded, old, new)]
    elif old.embed is not None and new.bucket is not None:
        plain = Storage(parent=new.parent, child=new.child, ref=new.ref)
        steps = [(_embedded_out, old, plain), (into_buckets, plain, new)]
    elif old.bucket is not None and (new.embed is not None or (new.refs is not None and new.ref is None)):
        plain = Storage(parent=old.parent, child=old.child, ref=old.ref)
        steps = [(_out_of_buckets, old, plain), (_into_embedded if new.embed is not None else _into_refs, plain, new)]
    elif new.bucket is not None and old.timeseries and old.child == new.child and old.embed is None:
        steps = [(_series_into_buckets, old, new)]
    elif new.bucket is not None and old.bucket is None:
        steps = [(into_buckets, old, new)]
    elif old.bucket is not None and new.bucket is None:
        steps = [(_out_of_buckets, old, new)]
    elif new.discriminator is not None and old.discriminator is None:
        steps = [(into_shared, old, new)]
    elif old.discriminator is not None and new.discriminator is None:
        steps = [(_out_of_shared, old, new)]
    else:
        return None
    for step, before, after in steps:
        done = step(before, after, call)
        if done is None:
            return None
        notes += done
    return notes


def into_buckets(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    if old.child != new.child or old.embed is not None or old.discriminator is not None or old.timeseries:
        return None
    notes: list[str] = []
    series = old.ref
    if series is None and old.refs is not None and new.ref is not None and old.parent is not None:
        call("refsOut", old.parent, old.refs, old.child, new.ref)  # child-refs: each N names its One first
        series = new.ref
    if series is None:
        return None
    for index in old.unique:  # a bucket document lacks the fields a unique index of the documents holds
        notes.append(f"the unique index {quoted(index)} would refuse the bucket documents; drop it first:")
        notes.append(f"target.getCollection({js_string(old.child or '')}).dropIndex({js_string(index)});")
    drop = sorted({"_id", series.split(".")[0], *([old.ext] if old.ext is not None else [])})
    call("bucketIn", new.child, series, bucket_layout(new, drop))
    return [*notes, f"each bucket document replaces, in {quoted(new.child or '')}, the documents it holds"]


def staging(collection: str) -> str:
    """The collection the buckets of a native time series collection are built in: the time series collection
    cannot hold them (nor be renamed), so it is replaced by this one, by hand, once they are checked."""
    return f"{collection}_buckets"


def _series_into_buckets(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    """The measurements of a native time series collection grouped into bucket documents built aside."""
    if old.child is None or old.ref is None or new.parent is None or "." in old.ref:
        return None
    aside = staging(old.child)
    call("bucketFromSeries", old.child, aside, new.parent, old.ref, bucket_layout(new, ["_id", old.ref]))
    return [
        f"the time series collection {quoted(old.child)} cannot hold bucket documents: they are built in "
        f"{quoted(aside)} from the measurements of each document of {quoted(new.parent)} in time order (those "
        f"whose {quoted(old.ref)} names none stay only in {quoted(old.child)})",
        "once the buckets are checked and nothing writes to the time series collection (uncomment; the drop "
        "deletes its measurements):",
        f"target.getCollection({js_string(old.child)}).drop();",
        f"target.getCollection({js_string(aside)}).renameCollection({js_string(old.child)});",
    ]


def _embedded_to_shared(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    if old.embed is None or old.parent != new.child or new.child is None or new.discriminator is None:
        return None
    call("shareEmbedded", new.child, old.embed, shared_layout(new))
    call.migrate(new.child, {new.discriminator: {"$exists": False}}, {"$set": {new.discriminator: new.one_type}})
    return [f"the embedded copies stay in {quoted(new.child)} until the removed field is unset (step below)"]


def _shared_to_embedded(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    if new.embed is None or new.parent != old.child or old.child is None:
        return None
    call("embedShared", old.child, new.embed, shared_layout(old), new.single, [] if new.item_id else ["_id"])
    call("removeEmbedded", old.child, shared_layout(old))
    return [f"each document moves into the parents it links to; it then leaves {quoted(old.child)}"]


def _embedded_out(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    """Embedded documents copied out into documents of their own that name their parent."""
    if old.embed is None or new.child is None or new.ref is None or "." in new.ref:
        return None
    call("copyOut", new.parent, old.embed, new.child, new.ref)
    return [f"the embedded copies stay in {quoted(new.parent or '')} until the removed field is unset (step below)"]


def _into_embedded(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    """Documents that name their parent copied into it (its array, or its sub-document when one-to-one)."""
    if old.child is None or old.ref is None or new.embed is None:
        return None
    drop = [old.ref] if "." not in old.ref else []
    call(
        "copyIn",
        new.parent,
        new.embed,
        old.child,
        {"ref": old.ref},
        new.single,
        [*drop, *([] if new.item_id else ["_id"])],
    )
    return [f"the documents of {quoted(old.child)} stay until you drop that collection"]


def _into_refs(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    """Each parent's id array built from the documents that name it; the reference stays in them until unset."""
    if old.child is None or old.ref is None or new.refs is None or new.child != old.child:
        return None
    call("refsIn", new.parent, new.refs, new.child, old.ref)
    unset = {"$unset": {old.ref: ""}}
    return [
        f"each document keeps {quoted(old.ref)}, which the new design does not read; once nothing does (uncomment):",
        f"target.getCollection({js_string(old.child)}).updateMany({{}}, {js_value(unset)});",
    ]


def _out_of_buckets(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    if new.child != old.child or new.ref is None or new.embed is not None or new.discriminator is not None:
        return None
    call("bucketOut", old.child, new.ref, bucket_layout(old, []))
    return _references_filled(new, call, ["each bucket document is replaced by the documents it held"])


def into_shared(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    if old.child is None or old.child == new.child or (old.ref is None and old.refs is None):
        return None
    if old.embed is not None or old.bucket is not None or new.child is None or new.discriminator is None:
        return None
    drop = [name for name in (old.ref, old.ext) if name is not None and "." not in name]
    call.migrate(new.child, {new.discriminator: {"$exists": False}}, {"$set": {new.discriminator: new.one_type}})
    if old.ref is None:  # child-refs: the links come from the parents' arrays; the N no parent lists follow
        call("shareListed", old.child, old.refs, drop, new.child, shared_layout(new))
    call("shareIn", old.child, old.ref, drop, new.child, shared_layout(new))
    return [f"the documents of {quoted(old.child)} stay until you drop that collection"]


def _out_of_shared(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    if new.child is None or new.child == old.child or (new.ref is None and new.refs is None):
        return None
    if new.embed is not None or new.bucket is not None or old.child is None:
        return None
    if new.refs is not None:
        call("refsFromLinks", old.child, shared_layout(old), new.refs)
    call("shareOut", old.child, shared_layout(old), new.child, new.ref, new.ref_array)
    note = f"each document moves: it leaves {quoted(old.child)} once its copy is in {quoted(new.child)}"
    return _references_filled(new, call, [note], refs_done=True)


def _references_filled(new: Storage, call: Calls, notes: list[str], refs_done: bool = False) -> list[str] | None:
    """After the N documents got their reference: the One's id array (two-way), the extended reference's copies,
    the subset's array."""
    if new.refs is not None and new.ref is not None and not refs_done and new.parent is not None:
        call("refsIn", new.parent, new.refs, new.child, new.ref)
    if new.ext is not None and new.child is not None and new.ref is not None and new.parent is not None:
        call("extend", new.child, new.ref, new.parent, new.ext, [list(c) for c in new.copies])
    if new.subset is not None:
        return subset_calls(new, call, notes)
    return notes


def bucket_layout(where: Storage, drop: list[str]) -> dict[str, Any]:
    """The bucket layout the helpers read; ``drop``: the fields of a document its bucket item leaves out."""
    b = where.bucket
    assert b is not None
    return {
        "size": b.size,
        "series": b.series_field,
        "items": b.items_field,
        "time": b.time_field,
        "start": b.start_field,
        "end": b.end_field,
        "value": b.value_field,
        "drop": drop,
        "parent": where.parent,
        "copies": [list(c) for c in where.bucket_copies],
    }


def shared_layout(where: Storage) -> dict[str, Any]:
    return {
        "type": where.discriminator,
        "many": where.many_type,
        "one": where.one_type,
        "links": where.links,
        "target": where.link_target,
        "linkType": where.link_type,
    }
