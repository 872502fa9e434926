"""What a strategy change between id arrays and references really does to the stored documents, for its risk line.

A change that only adds the other side's ids (one side -> two-way, one side -> the other) fills one collection's
documents from the ids the other already holds; one that drops a side (two-way -> one side) copies nothing. The
diff lists such a change under the collection that gets the new ids and says so, instead of "must be copied".
"""

from __future__ import annotations

from collections.abc import Callable

from modeller.export.literals import quoted
from modeller.review.copy_storage import Storage


def id_copy_risk(old: Storage | None, new: Storage | None, docs: Callable[[str], str]) -> tuple[str | None, str] | None:
    """(collection that gets the new ids or None, risk line) when the change only writes or drops id arrays and
    references between the same two collections; None for any other change (embedding, copies, patterns).

    ``docs`` names a collection's document count as a risk line does (``1k documents``)."""
    if old is None or new is None or old.parent != new.parent or old.child != new.child:
        return None
    if any(s.embed or s.ext or s.subset or s.bucket or s.discriminator for s in (old, new)):
        return None
    if old.ref is not None and new.ref is not None and old.ref_array != new.ref_array:
        return None
    built: list[tuple[str, str, str, str, bool]] = []  # (collection, field, from field, from collection, array)
    if new.refs is not None and new.refs != old.refs:
        if old.ref is None or new.parent is None or new.child is None:
            return None
        built.append((new.parent, new.refs, old.ref, new.child, True))
    if new.ref is not None and new.ref != old.ref:
        if old.refs is None or new.parent is None or new.child is None:
            return None
        built.append((new.child, new.ref, old.refs, new.parent, new.ref_array))
    if len(built) > 1:
        return None
    dropped = [quoted(name) for name in (old.refs, old.ref) if name is not None and name not in (new.refs, new.ref)]
    if dropped:
        tail = f"queries and code that read {' and '.join(dropped)} break (kept until the removed field is unset)"
    else:
        tail = "code that adds or removes a link must now write both sides"
    if not built:
        return None, f"no documents are copied: the ids the new strategy reads are already stored; {tail}"
    coll, name, source, source_coll, array = built[0]
    what = "the array" if array else "the reference"
    return coll, f"{docs(coll)} of {quoted(coll)} get {what} {quoted(name)}, built from {quoted(source)} in " + (
        f"{quoted(source_coll)}; {tail}"
    )
