"""After each event: what the game row caches, the snapshot, the deadlines, the bots, the live
streams and the apps listening for new events (`games.signals`).

`record_state` runs in the event's transaction, under the game's row lock; each of its jobs has
its own function so each can be read (and changed) alone. Their writes (the game's changed
columns, the deadline rows, a snapshot when one is due) go to the database together, as one
statement on PostgreSQL (`games.hotpath.Writes`).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from games import announce, deadlines, dispatch, hotpath, signals, store
from games.models import Game, GameStatus, Snapshot


def record_state(game: Game, state: Any, acted: int | None = None, unit: hotpath.Writes | None = None) -> None:
    """`state` is the game's state after its newest event; `acted` the seat whose event it was.
    The writes join `unit` (the event's unit of work, `games.log.append`) and run with it."""
    writes = hotpath.Writes() if unit is None else unit
    _project(game, state)
    game.updated_at = timezone.now()
    changes = hotpath.game_changes(game)
    writes.update(Game, game.pk, changes)
    _snapshot_if_due(game, state, writes)
    deadlines.deadlines_sync(game, acted=acted, writes=writes)
    if unit is None:
        writes.run()
    hotpath.remember_loaded(game)
    _wake_bots_after_commit(game)
    announce.after_commit(game)
    _tell_listeners_after_commit(game, finished="status" in changes and game.status == GameStatus.FINISHED)


def _project(game: Game, state: Any) -> None:
    """Cache on the game row what the lists and the turn checks read: who is to act, and the
    result once the rules say the game is over."""
    game_rules = store.rules_of(game)
    game.to_act = list(game_rules.to_act(state)) if game.status == GameStatus.ACTIVE else []
    outcome = game_rules.outcome(state)
    if outcome is not None and game.status == GameStatus.ACTIVE:
        game.status = GameStatus.FINISHED
        game.result = outcome.as_dict()
        game.to_act = []


def _snapshot_if_due(game: Game, state: Any, writes: hotpath.Writes) -> None:
    if not store.snapshot_due(game.seq):
        return
    if getattr(game, "last_hash", None) is None:  # the event's hash is not at hand: read it
        store.snapshot_write(game, game.seq, state)
        return
    data = store.rules_of(game).dump(state)
    writes.insert(Snapshot, [{"game_id": game.pk, "seq": game.seq, "state": data, "event_hash": game.last_hash,
                              "state_digest": store.state_digest(data), "created_at": timezone.now()}],
                  ignore_conflicts=True)


def _wake_bots_after_commit(game: Game) -> None:
    if game.status != GameStatus.ACTIVE:
        return
    if any((seat.bot or seat.stand_in) and seat.index in game.to_act for seat in game.seats.all()):
        game_id, seq = game.pk, game.seq
        # robust: the move is stored whatever the broker says; `bots_stalled` wakes a bot whose
        # message never left.
        transaction.on_commit(lambda: dispatch.send(dispatch.PLAY_BOTS, (game_id, seq)), robust=True)


def _tell_listeners_after_commit(game: Game, finished: bool) -> None:
    game_id, seq = game.pk, game.seq
    transaction.on_commit(lambda: signals.events_recorded.send(Game, game_id=game_id, seq=seq), robust=True)
    if finished:
        transaction.on_commit(lambda: signals.game_finished.send(Game, game_id=game_id), robust=True)
