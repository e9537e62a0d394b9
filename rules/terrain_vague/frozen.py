"""Immutable values' helpers for the Terrain Vague state: the `FrozenMap` its mappings are, and
`kept_once`, the descriptor that keeps a value derived from a state on the state itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any


class FrozenMap(dict):
    """An immutable, hashable mapping; changes return a new map.

    A dict underneath, so that lookups (`in`, `get`, `[]`), iteration and equality run at C
    speed: the legal moves of a step look hexes up hundreds of thousands of times in a search.
    The dict's own mutators are refused, so a map is never changed in place.
    """

    __slots__ = ("_hash",)

    def __init__(self, items: Mapping | Iterable = ()):
        super().__init__(items)
        self._hash: int | None = None

    def __hash__(self) -> int:  # type: ignore[override]
        if self._hash is None:
            self._hash = hash(frozenset(self.items()))
        return self._hash

    def __repr__(self) -> str:
        return f"FrozenMap({dict.__repr__(self)})"

    def __reduce__(self):
        return (FrozenMap, (dict(self),))

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("a FrozenMap never changes: use set, updated or without")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse  # type: ignore[assignment]
    __ior__ = _refuse  # type: ignore[assignment]

    def __copy__(self) -> FrozenMap:
        return self

    def __deepcopy__(self, memo: dict) -> FrozenMap:
        return self

    # Each change copies the map once and changes the fresh copy, which nobody has seen yet.

    def set(self, key: Any, value: Any) -> FrozenMap:
        new = FrozenMap(self)
        dict.__setitem__(new, key, value)
        return new

    def updated(self, changes: Mapping | Iterable) -> FrozenMap:
        new = FrozenMap(self)
        dict.update(new, changes)
        return new

    def without(self, key: Any) -> FrozenMap:
        new = FrozenMap(self)
        dict.pop(new, key, None)
        return new

    def add(self, key: Any, amount: int) -> FrozenMap:
        """For counters: the value at `key` (0 if missing) plus `amount`."""
        return self.set(key, self.get(key, 0) + amount)


class kept_once:
    """`functools.cached_property` without its lock (Python 3.11 takes one at every first read,
    and a search reads a value first on hundreds of thousands of new states): the value is
    written into the instance's `__dict__`, where later reads find it before this descriptor.
    Working one out twice at once does no harm, since it depends on the state alone."""

    def __init__(self, func: Callable[[Any], Any]):
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.func(instance)
        return value
