"""The JSON codec of the games' frozen dataclasses, read from their type hints.

`dump(value)` turns a value into JSON-ready data: a dataclass becomes an object of its fields, a
tuple or list a list, a dict an object. `load(cls, data)` rebuilds the value from the class's
type hints (`tuple[int | None, ...]`, `Rng`, nested dataclasses, `dict[str, int]`), so a state's
codec is its class definition and no game lists its fields twice. `load(cls, dump(x)) == x`.

Where a game's JSON is an API shape that differs from its fields (a board as rows a client reads,
a hex as `[q, r]`), the game keeps that shape by hand in its `state.py`: the API is a promise, the
field layout is not.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any, Callable

_PLAIN = (int, float, str, bool, type(None))


def dump(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: dump(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [dump(item) for item in value]
    if isinstance(value, dict):
        return {_key_text(key): dump(item) for key, item in value.items()}
    if isinstance(value, _PLAIN):
        return value
    raise TypeError(f"no JSON for {type(value).__name__}: give its class a codec of its own")


def load(cls: Any, data: Any) -> Any:
    return _loader(cls)(data)


def _key_text(key: Any) -> str:
    if isinstance(key, bool) or not isinstance(key, (str, int)):
        raise TypeError(f"a JSON object's keys are text or whole numbers, not {key!r}")
    return str(key)


def _same(data: Any) -> Any:
    return data


@functools.cache
def _loader(hint: Any) -> Callable[[Any], Any]:
    """How to rebuild a value of `hint` from its JSON; built once per hint (folds load often)."""
    if dataclasses.is_dataclass(hint):
        return _dataclass_loader(hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple:
        return _tuple_loader(args)
    if origin is dict:
        return _dict_loader(*args)
    if origin in (typing.Union, types.UnionType):
        return _optional_loader(args)
    if hint in _PLAIN or hint is Any or hint is tuple:
        return tuple if hint is tuple else _same
    raise TypeError(f"no JSON codec for {hint!r}")


def _dataclass_loader(cls: type) -> Callable[[Any], Any]:
    hints = typing.get_type_hints(cls)
    parts = [(f.name, _loader(hints[f.name])) for f in dataclasses.fields(cls) if f.init]

    def load_dataclass(data: Any) -> Any:
        # A field missing from older JSON takes its default, so adding a field with a default
        # keeps every stored value loadable.
        return cls(**{name: load_field(data[name]) for name, load_field in parts if name in data})

    return load_dataclass


def _tuple_loader(args: tuple[Any, ...]) -> Callable[[Any], Any]:
    if len(args) == 2 and args[1] is Ellipsis:
        load_item = _loader(args[0])
        if load_item is _same:
            return tuple
        return lambda data: tuple(load_item(item) for item in data)
    loaders = [_loader(arg) for arg in args]
    return lambda data: tuple(load_item(item) for load_item, item in zip(loaders, data, strict=True))


def _dict_loader(key_hint: Any, value_hint: Any) -> Callable[[Any], Any]:
    load_key = int if key_hint is int else _same
    load_value = _loader(value_hint)
    return lambda data: {load_key(key): load_value(item) for key, item in data.items()}


def _optional_loader(args: tuple[Any, ...]) -> Callable[[Any], Any]:
    present = [arg for arg in args if arg is not type(None)]
    if all(arg in _PLAIN for arg in present):
        return _same
    if len(present) != 1:
        raise TypeError(f"no JSON codec for a union of {present!r}: JSON cannot tell them apart")
    load_present = _loader(present[0])
    return lambda data: None if data is None else load_present(data)
