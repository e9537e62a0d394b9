"""Helpers for the games' immutable values: fast copies with changes, canonical JSON,
commitments to secret choices."""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import fields
from typing import Any


def evolve(value: Any, **changes: Any) -> Any:
    """`dataclasses.replace` for the games' frozen state values, made cheaper: searches (the
    bots) build millions of states (docs/decisions/0014-small-speedups-in-rules-and-bots.md). It
    copies the fields and sets the changes directly, so it suits only dataclasses without
    `__post_init__` or `init=False` fields, which is all the states here; anything else a state
    keeps in its `__dict__` (a memo) is left behind, as it must be, since it belongs to the old
    value."""
    names = _field_names(type(value))
    if not names.issuperset(changes):
        unknown = sorted(changes.keys() - names)[0]
        raise TypeError(f"{type(value).__name__} has no field {unknown!r}")
    old = value.__dict__
    new = object.__new__(type(value))
    attrs = new.__dict__
    if len(old) == len(names):  # fields only: copy the whole dict at C speed
        attrs.update(old)
    else:
        for name in names:
            attrs[name] = old[name]
    attrs.update(changes)
    return new


@functools.cache
def _field_names(cls: type) -> frozenset[str]:
    declared = fields(cls)
    if hasattr(cls, "__post_init__") or any(not f.init for f in declared):
        raise TypeError(f"evolve() cannot build {cls.__name__}: use dataclasses.replace")
    return frozenset(f.name for f in declared)


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def commitment(choice: Any, salt: str) -> str:
    """The public hash of a secret choice: SHA-256 of its canonical JSON, a colon and the salt.

    Published when the choice is made; the choice and salt are published when it resolves, so
    anyone can check `commitment(choice, salt)` against the hash seen earlier.
    """
    return hashlib.sha256(f"{canonical_json(choice)}:{salt}".encode()).hexdigest()
