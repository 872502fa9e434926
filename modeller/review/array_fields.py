"""Field changes inside array elements: one pipeline update that rewrites each element with ``$map``.

A field of ``reviews[]`` (or of ``orders[].lines[]``) cannot be renamed with ``$rename`` nor set with a
dotted ``$set``; the update rebuilds the array instead: ``$map`` over it, and for each element that is a
document, ``$mergeObjects`` with the new value (a default, a ``$convert``ed value, the renamed field) and,
for a rename or a move, the old key filtered out (``$objectToArray``/``$filter``/``$arrayToObject``, so it
runs on MongoDB 4.2, where pipeline updates start). Elements that already have the new shape stay as they
are, and the filter (``$elemMatch``) selects only documents with an element still to change: a second run
changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modeller.rules.physical.design import CollectionDesign, walk_shape

#: the mongosh helper of a field moved out of array elements (``pick`` and ``inBatches`` are the script's)
ARRAY_HELPERS = """\
  // Each element of the array `array` that is a document without an _id gets a new one (an element updated on its own
  // after insert is found by its _id, arrayFilters); only documents with such an element are read, so a second run
  // changes nothing.
  function idElements(step, coll, array, label) {
    const c = target.getCollection(coll);
    inBatches(step, coll, { [array]: { $elemMatch: { _id: { $exists: false } } } }, (ids) => {
      for (const doc of c.find({ _id: { $in: ids } }, {}, exact()).toArray()) {
        const items = pick(doc, array);
        if (!Array.isArray(items)) continue;
        const named = items.map((e) =>
          e !== null && typeof e === "object" && !Array.isArray(e) && e._id === undefined
            ? Object.assign({ _id: ObjectId() }, e)
            : e,
        );
        c.updateOne({ _id: doc._id }, { $set: { [array]: named } });
      }
    }, label);
  }

  // The field `rel` of the elements of the array `array` moved up to `path` of their document, where every element
  // that holds it holds the same value; a document whose elements disagree is left as it is, and counted.
  function liftOut(step, coll, array, rel, path, label) {
    const c = target.getCollection(coll);
    const filter = { $and: [{ [path]: { $exists: false } }, { [array]: { $elemMatch: { [rel]: { $exists: true } } } }] };
    let mixed = 0;
    inBatches(step, coll, filter, (ids) => {
      for (const doc of c.find({ _id: { $in: ids } }, {}, exact()).toArray()) {
        if (pick(doc, path) !== undefined) continue;
        const items = pick(doc, array);
        const values = (Array.isArray(items) ? items : [])
          .map((e) => (e !== null && typeof e === "object" ? pick(e, rel) : undefined))
          .filter((v) => v !== undefined);
        if (new Set(values.map((v) => JSON.stringify(v))).size !== 1) {
          mixed += 1;
          continue;
        }
        c.updateOne({ _id: doc._id }, { $set: { [path]: values[0] } });
      }
    }, label);
    if (mixed > 0) print(label + ": " + mixed + " document(s) whose elements hold different values left as they are");
  }
"""

Expr = Any
#: the new value of one element (a ``$$eN`` variable) from the element itself
Rewrite = Callable[[str], Expr]


def array_route(coll: CollectionDesign, path: str) -> tuple[list[str], str] | None:
    """``path`` split at its arrays: the array paths (the first from the document, each next one from the element
    of the one before) and the field's path inside the last element; None when the shape has no such field."""
    walked = walk_shape(coll.shape, path)
    if walked is None or not walked[0]:
        return None
    arrays = walked[0]
    inner = path[len(arrays[-1]) + 1 :]
    if not inner:
        return None
    # each array's path from the element of the one before it
    outer = ["", *arrays[:-1]]
    return [a[len(o) + 1 :] if o else a for o, a in zip(outer, arrays, strict=True)], inner


def element_ids(coll: CollectionDesign | None, path: str) -> str | None:
    """The array whose elements get a new ``_id`` when ``path`` is ``<array>._id`` of an array of the document (not
    inside another array): ``idElements`` gives each element its own; None otherwise."""
    route = array_route(coll, path) if coll is not None else None
    if route is None or route[1] != "_id" or len(route[0]) != 1:
        return None
    return route[0][0]


def _missing(path: str) -> Expr:
    return {"$eq": [{"$type": path}, "missing"]}


def _with(var: str, rel: str, value: Expr) -> Expr:
    """The document at path ``var`` with ``rel`` (dotted, below it) set to ``value``."""
    head, _, rest = rel.partition(".")
    inner = value if not rest else _with(f"{var}.{head}", rest, value)
    return {"$mergeObjects": [var, {head: inner}]}


def _without(var: str, rel: str) -> Expr:
    """The document at path ``var`` without ``rel``."""
    head, _, rest = rel.partition(".")
    if rest:
        return {"$mergeObjects": [var, {head: _without(f"{var}.{head}", rest)}]}
    pairs = {"$filter": {"input": {"$objectToArray": var}, "as": "kv", "cond": {"$ne": ["$$kv.k", {"$literal": head}]}}}
    return {"$arrayToObject": pairs}


def renamed(old: str, new: str) -> tuple[Rewrite, dict[str, Any]]:
    """Element rewrite and element filter: ``old`` (a path in the element) becomes ``new``."""

    def rewrite(var: str) -> Expr:
        moved = {"$let": {"vars": {"kept": _without(var, old)}, "in": _with("$$kept", new, f"{var}.{old}")}}
        return {"$cond": [_missing(f"{var}.{old}"), var, moved]}

    return rewrite, {old: {"$exists": True}}


def defaulted(path: str, value: Expr) -> tuple[Rewrite, dict[str, Any]]:
    """``path`` gets ``value`` in the elements that lack it."""

    def rewrite(var: str) -> Expr:
        return {"$cond": [_missing(f"{var}.{path}"), _with(var, path, value), var]}

    return rewrite, {path: {"$exists": False}}


def unset(path: str) -> tuple[Rewrite, dict[str, Any]]:
    """``path`` removed from the elements that hold it (the copies a move out of the array leaves behind)."""

    def rewrite(var: str) -> Expr:
        return {"$cond": [_missing(f"{var}.{path}"), var, _without(var, path)]}

    return rewrite, {path: {"$exists": True}}


def converted(path: str, to: str, only: list[str] | None = None) -> tuple[Rewrite, dict[str, Any]]:
    """``path`` converted to the BSON type ``to`` where it holds another type, or one of the types ``only``
    (the ones a validator no longer takes); a value ``$convert`` cannot change is kept."""

    def rewrite(var: str) -> Expr:
        value = f"{var}.{path}"
        convert = {"$convert": {"input": value, "to": to, "onError": value, "onNull": None}}
        if only is None:
            return {"$cond": [_missing(value), var, _with(var, path, convert)]}
        return {"$cond": [{"$in": [{"$type": value}, only]}, _with(var, path, convert), var]}

    if only is None:
        return rewrite, {path: {"$exists": True, "$not": {"$type": to}}}
    return rewrite, {path: {"$type": only}}


def array_update(arrays: list[str], rewrite: Rewrite, element_filter: dict[str, Any]) -> tuple[Expr, Expr]:
    """The ``updateMany`` filter and pipeline that apply ``rewrite`` to every element the arrays hold."""

    def mapped(source: str, depth: int) -> Expr:
        var = f"e{depth}"
        element = f"$${var}"
        if depth + 1 < len(arrays):
            inner = arrays[depth + 1]
            changed = _with(element, inner, mapped(f"{element}.{inner}", depth + 1))
        else:
            changed = rewrite(element)
        is_doc = {"$eq": [{"$type": element}, "object"]}
        each = {"$cond": [is_doc, changed, element]}
        return {"$cond": [{"$isArray": source}, {"$map": {"input": source, "as": var, "in": each}}, source]}

    filter_: dict[str, Any] = element_filter
    for array in reversed(arrays):
        filter_ = {array: {"$elemMatch": filter_}}
    return filter_, [{"$set": {arrays[0]: mapped("$" + arrays[0], 0)}}]
