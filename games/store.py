"""The fold: a game's state from its events, through its rules module, with snapshots as a cache.

`state_at` is the one way to get a state. It starts from the newest snapshot at or before the
wanted event (or from setup) and applies the events after it, so its cost is bounded by the
snapshot interval, not by the length of the game.

Because the log is append-only, the state after event n of a game never changes, so each process
also keeps the most recently used states in memory, keyed by (game, its creation time, n). Only
committed states enter it: a state read outside any transaction, or one a write computed, once
that write has committed. Several processes each keep their own; none can hold a stale one.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from django.conf import settings
from django.db import connection, transaction

import rules
from games.models import Event, EventKind, Game, Snapshot
from rules.base import Rules


def rules_of(game: Game) -> Rules:
    return rules.get(game.rules)


def fold_event(game_rules: Rules, seed: str, state: Any, kind: str, seat: int | None, payload: dict) -> Any:
    """One event's effect. Moves and timeouts carry a `move` or `forfeit`; system events none."""
    if kind == EventKind.CREATED:
        return game_rules.setup(payload["players"], payload["options"], seed)
    if "move" in payload:
        return game_rules.apply(state, seat, payload["move"])
    if payload.get("forfeit"):
        return game_rules.forfeit(state, seat)
    return state


class _RecentStates:
    """A small thread-safe LRU of committed states."""

    def __init__(self, size: int):
        self.size = size
        self._states: OrderedDict[tuple, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Any | None:
        with self._lock:
            state = self._states.get(key)
            if state is not None:
                self._states.move_to_end(key)
            return state

    def put(self, key: tuple, state: Any) -> None:
        with self._lock:
            self._states[key] = state
            self._states.move_to_end(key)
            while len(self._states) > self.size:
                self._states.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._states.clear()


recent_states = _RecentStates(settings.SCRAPYARD_RECENT_STATES)


def _key(game: Game, seq: int) -> tuple:
    return (game.pk, game.created_at, seq)


def remember_when_committed(game: Game, seq: int, state: Any) -> None:
    """Cache a state a write computed, once (and only if) its transaction commits."""
    key = _key(game, seq)
    transaction.on_commit(lambda: recent_states.put(key, state), robust=True)


def state_at(game: Game, seq: int | None = None) -> Any:
    """The state after event `seq` (default: the newest)."""
    target = game.seq if seq is None else seq
    key = _key(game, target)
    state = recent_states.get(key)
    if state is None:
        state = _fold_from_snapshot(game, target)
        if not connection.in_atomic_block:  # autocommit: it read committed events only
            recent_states.put(key, state)
    return state


def _fold_from_snapshot(game: Game, target: int) -> Any:
    game_rules = rules_of(game)
    snapshot = (
        Snapshot.objects.filter(game=game, seq__lte=target).order_by("-seq").only("seq", "state").first()
    )
    state, start = (game_rules.load(snapshot.state), snapshot.seq) if snapshot else (None, 0)
    events = (
        Event.objects.filter(game=game, seq__gt=start, seq__lte=target)
        .order_by("seq")
        .values_list("kind", "seat", "payload")
    )
    for kind, seat, payload in events:
        state = fold_event(game_rules, game.seed, state, kind, seat, payload)
    return state


def state_from_zero(game: Game, seq: int | None = None) -> Any:
    """The same state folded from the first event, ignoring every snapshot: the audit path."""
    target = game.seq if seq is None else seq
    game_rules = rules_of(game)
    state = None
    for kind, seat, payload in (
        Event.objects.filter(game=game, seq__lte=target).order_by("seq").values_list("kind", "seat", "payload")
    ):
        state = fold_event(game_rules, game.seed, state, kind, seat, payload)
    return state


def snapshot_due(seq: int) -> bool:
    return seq % settings.SCRAPYARD_SNAPSHOT_EVERY == 0


def snapshot_write(game: Game, seq: int, state: Any) -> None:
    Snapshot.objects.get_or_create(game=game, seq=seq, defaults={"state": rules_of(game).dump(state)})
