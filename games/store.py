"""The fold: a game's state from its events, through its rules module, with snapshots as a cache.

`state_at` is the one way to get a state. It starts from the newest snapshot at or before the
wanted event (or from setup) and applies the events after it, so its cost is bounded by the
snapshot interval, not by the length of the game.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

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


def state_at(game: Game, seq: int | None = None) -> Any:
    """The state after event `seq` (default: the newest)."""
    target = game.seq if seq is None else seq
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
