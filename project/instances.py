"""Model instances from rows already in hand, without `Model.__init__`: the fast store's reads
(`games.stores.fast`) and the kept tokens' copies (`accounts.auth`) make them several times a
request. Django's own, not any app's, so every app may use it."""

from __future__ import annotations

from typing import Any

from django.db.models import Model
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init


def loaded_instance(model: type[Model], attnames: tuple[str, ...], values: list[Any], alias: str) -> Model:
    """What `model.from_db(alias, attnames, values)` makes of a whole row (every concrete
    column, in order), without `Model.__init__`: that walks the fields one `setattr` at a time
    (a foreign key's through its descriptor) between a `pre_init` and a `post_init` signal, for
    values already in hand, several times a move (docs/decisions/0001). The instance is the same: each
    column's value under its attname, and a `ModelState` saying it was loaded from `alias`.
    While anything listens for those signals (nothing in this project does), `from_db` is used."""
    if pre_init.receivers or post_init.receivers:
        return model.from_db(alias, attnames, values)
    instance = model.__new__(model)
    instance.__dict__.update(zip(attnames, values))
    state = instance._state = ModelState()
    state.adding, state.db = False, alias
    return instance
