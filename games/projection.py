"""The projections of the log, kept by the event writer (`games.writer`) after each change: what
the game row caches, the snapshot, the deadlines, the bots, the live streams and the apps
listening for new events (`games.signals`).

`record_state` runs in the change's unit of work; each of its jobs has its own function so each
can be read (and changed) alone. Their writes (the game's changed columns, the deadline rows, a
snapshot when one is due) join the unit (`games.stores`; one statement on PostgreSQL with the
fast store). What the event sets off outside the database (the streams' notice, the bots' turn,
the other consumers of the log) is handed over after commit (`_notify_after_commit`).
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.utils import timezone

from games import deadlines, signals, store, stores
from games.models import Game, GameStatus, Snapshot

log = logging.getLogger(__name__)


def record_state(game: Game, state: Any, *, acted: int | None, writes: stores.UnitOfWork) -> None:
    """`state` is the game's state after its newest event; `acted` the seat whose own act that
    event was. The writes join `writes`, the change's unit of work, which the writer runs."""
    _project(game, state)
    game.updated_at = timezone.now()
    changes = stores.current().game_changes(game)
    writes.update(Game, game.pk, changes)
    _snapshot_if_due(game, state, writes)
    deadlines.deadlines_sync(game, acted=acted, writes=writes)
    _notify_after_commit(game, finished="status" in changes and game.status == GameStatus.FINISHED)


def clocks_again(game: Game, *, writes: stores.UnitOfWork) -> None:
    """The deadline rows worked out again with no new event (a seat's owner came back)."""
    deadlines.deadlines_sync(game, writes=writes)


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
    if game.status == GameStatus.FINISHED and game.finished_at is None:  # here, or ended by the players
        game.finished_at = timezone.now()


def _snapshot_if_due(game: Game, state: Any, writes: stores.UnitOfWork) -> None:
    if not store.snapshot_due(game.seq):
        return
    if getattr(game, "last_hash", None) is None:  # the event's hash is not at hand: read it
        store.snapshot_write(game, game.seq, state)
        return
    data = store.rules_of(game).dump(state)
    writes.insert(Snapshot, [{"game_id": game.pk, "seq": game.seq, "state": data, "event_hash": game.last_hash,
                              "state_digest": store.state_digest(data), "created_at": timezone.now()}],
                  ignore_conflicts=True)


def _notify_after_commit(game: Game, finished: bool) -> None:
    """Once the transaction commits, `events_recorded` for its receivers: the consumers of the log
    (`consumers.receivers`), which hand the news to the after-commit thread at once, so the
    request pays for none of it (the streams' notice, the bots' turn, the conditional lines, mail,
    webhooks). A finished game's `game_finished` (ratings, tournaments) stays in the request,
    once a game.

    What the commit knew goes with it, so that no consumer asks again: whether a bot seat is to
    act, and whether the game's locked row says a conditional line may wait
    (`Game.lines_waiting`, set under the same lock by the line's storing, so a line stored while
    the move waited for the lock is seen on the row)."""
    game_id, seq = game.pk, game.seq
    bots, lines_waiting = _bot_to_move(game), game.lines_waiting
    transaction.on_commit(lambda: _recorded(game_id, seq, bots, lines_waiting), robust=True)
    if finished:
        transaction.on_commit(lambda: signals.game_finished.send(Game, game_id=game_id), robust=True)


def _bot_to_move(game: Game) -> bool:
    if game.status != GameStatus.ACTIVE:
        return False
    return any((seat.bot or seat.stand_in) and seat.index in game.to_act for seat in game.seat_rows())


def _recorded(game_id: int, seq: int, bots: bool, lines_waiting: bool) -> None:
    for receiver, outcome in signals.events_recorded.send_robust(
        Game, game_id=game_id, seq=seq, bots=bots, lines_waiting=lines_waiting
    ):
        if isinstance(outcome, Exception):
            log.error("events_recorded receiver %s failed for game %s seq %s", receiver, game_id, seq,
                      exc_info=outcome)
