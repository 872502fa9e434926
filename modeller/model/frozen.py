"""Containers that refuse change: what a model object holds instead of a dict or a list.

Model objects are frozen (pydantic ``frozen=True``) and their lists are
tuples, so an object that is still the same object still has the same
content. That is what lets the engine key its caches on identity and the
GUI hand a project to a worker thread as it is. A dict-valued attribute
(``Query.filter``, ``Project.layout``) or free JSON (``example``, an index's
``partial`` filter) would still be open to change inside: they hold a
:class:`FrozenDict` and :class:`FrozenList` instead. Both are plain ``dict`` /
``list`` subclasses, so reading code, ``isinstance`` checks, ``==`` and JSON
output stay what they were; every method that would change them raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn, TypeVar, get_args

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

K = TypeVar("K")
V = TypeVar("V")

#: what a refused change says (the way to change a model object)
REFUSAL = "model objects are immutable: build a new one with model_copy(update=...)"


def _refuse(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(REFUSAL)


class FrozenDict(dict[K, V]):
    """A dict that cannot be changed after it is built."""

    __slots__ = ()

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        # copy/deepcopy/pickle rebuild through the constructor, never through __setitem__
        return type(self), (dict(self),)

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        """Validated as the ``dict[K, V]`` it stands for (same JSON schema), then frozen."""
        args = get_args(source) or (Any, Any)
        return core_schema.no_info_after_validator_function(cls, handler.generate_schema(dict[args[0], args[1]]))  # type: ignore[valid-type]


class FrozenList(list[V]):
    """A list that cannot be changed after it is built (inside free JSON values such as ``example``)."""

    __slots__ = ()

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return type(self), (list(self),)

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self))


def deep_frozen(value: Any) -> Any:
    """``value`` with every dict and list inside it (free JSON) made a :class:`FrozenDict` / :class:`FrozenList`."""
    if isinstance(value, dict):
        return FrozenDict({k: deep_frozen(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return FrozenList(deep_frozen(v) for v in value)
    return value
