"""Reads for the analysis of a finished game (`analysis/`): each move of the log with what its
mover saw just before and just after it. A reader of its own beside `games.selectors`, for the
one app that walks a whole log position by position.

The views are the rules' `view` of the state folded over the log prefix, for the mover's seat:
what that seat knew then, never the whole truth. Only a finished game is walked (its seed and
every secret are public by then; the views still keep each mover to its own knowledge).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from games import errors, selectors, store
from games.models import Event, GameStatus
from rules import notation
from rules.base import Rules
from rules.words import msg


@dataclass(frozen=True)
class MoveSeen:
    seq: int
    seat: int
    move: dict[str, Any]
    text: str  # the move in the rules' notation
    before: dict[str, Any]  # the mover's view before the move
    after: dict[str, Any]  # the mover's view after it


@dataclass(frozen=True)
class FinishedGame:
    game_id: int
    rules: Rules
    players: int
    hidden_information: bool
    moves: Iterator[MoveSeen]


def finished_game(*, game_id: int) -> FinishedGame:
    """A finished game's rules and its moves as their movers saw them (a lazy walk of the log)."""
    game = selectors.game_get(game_id=game_id)
    if game.status != GameStatus.FINISHED:
        raise errors.GameNotFinished(msg("game {game_id} is {status}: only a finished game is analysed", game_id=game_id, status=game.status))
    game_rules = store.rules_of(game)
    return FinishedGame(game_id=game.pk, rules=game_rules, players=game.players,
                        hidden_information=game_rules.hidden_information or game_rules.simultaneous,
                        moves=_walk(game, game_rules))


def move_count(*, game_id: int) -> int:
    return Event.objects.filter(game_id=game_id, payload__has_key="move", seat__isnull=False).count()


def _walk(game: Any, game_rules: Rules) -> Iterator[MoveSeen]:
    state, states = None, {}
    events = Event.objects.filter(game=game).order_by("seq").values_list("seq", "kind", "seat", "payload")
    for seq, kind, seat, payload in list(events):  # read at once: the walk may last minutes
        after = store.fold_event(game_rules, game.seed, state, kind, seat, payload, earlier=states.__getitem__)
        if "move" in payload and seat is not None:
            yield MoveSeen(seq=seq, seat=seat, move=payload["move"], text=_text(game_rules, state, seat, payload["move"]),
                           before=game_rules.view(state, seat), after=game_rules.view(after, seat))
        states[seq] = state = after


def _text(game_rules: Rules, state: Any, seat: int, move: dict[str, Any]) -> str:
    try:
        return game_rules.describe_move(state, seat, move)
    except Exception:  # an old move the notation no longer reads: its fields say it
        return notation.fields_text(move)
