"""Moves: a person's, and one the server makes for a seat (a bot's, a timeout's), through the
same checks. A move takes the game's row lock, checks the version (`seq`) in the same
transaction, folds the move through the rules, and appends one event to the log. The unique
(game, seq) constraint backs the lock: two writers can never both store event n.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction

from games import deadlines, log, store
from games.errors import GameNotActive, IdempotencyKeyReused, StaleSeq
from games.models import Event, EventKind, Game, GameStatus, IdempotencyKey
from games.services.common import check_version, locked_game, seat_of
from games.services.recording import record_state
from rules.base import Move, Rules
from rules.errors import MalformedMove, NotYourTurn
from rules.fields import require_mapping
from rules.values import canonical_json


@dataclass(frozen=True)
class Submitted:
    event: Event
    replayed: bool  # True when an Idempotency-Key retry returned the first answer


def move_submit(
    *, game_id: int, user: Any, move: Any, expected_seq: int, idempotency_key: str | None = None
) -> Submitted:
    """A person's move. Checks, in order: the idempotency key, the version, the seat, the
    deadline, the turn, then the move itself through the rules."""
    digest = hashlib.sha256(canonical_json({"move": move, "expected_seq": expected_seq}).encode()).hexdigest()
    try:
        with transaction.atomic():
            game = locked_game(game_id)
            if idempotency_key:
                earlier = _idempotent_replay(game, user, idempotency_key, digest)
                if earlier is not None:
                    return Submitted(earlier, replayed=True)
            check_version(game, expected_seq)
            seat = seat_of(game, user)
            deadlines.check_in_time(game, seat)
            event = _act(game, seat, EventKind.MOVE, {"move": move})
            if idempotency_key:
                IdempotencyKey.objects.create(user=user, key=idempotency_key, request_digest=digest, event=event)
    except IntegrityError:
        # Only reachable where the row lock is weaker than the unique (game, seq) constraint.
        raise StaleSeq("another move was stored first", seq=Game.objects.get(pk=game_id).seq) from None
    return Submitted(event, replayed=False)


def seat_act(*, game_id: int, seat: int, expected_seq: int, kind: str, move: Any = None, forfeit: bool = False) -> Event:
    """A move made for a seat by the server (a bot, or a timeout), through the same checks."""
    payload = {"forfeit": True} if forfeit else {"move": move}
    with transaction.atomic():
        game = locked_game(game_id)
        check_version(game, expected_seq)
        return _act(game, seat, kind, payload)


def _act(game: Game, seat: int, kind: str, payload: dict) -> Event:
    if game.status != GameStatus.ACTIVE:
        raise GameNotActive(f"game {game.pk} is {game.status}; no moves now")
    if "move" in payload and seat not in game.to_act:
        raise NotYourTurn(f"seat {seat} is not to act now; seats to act: {game.to_act}")
    game_rules = store.rules_of(game)
    before = store.state_at(game)
    if "move" in payload:
        payload = {"move": canonical_move(game_rules, before, seat, payload["move"])}
    after = store.fold_event(game_rules, game.seed, before, kind, seat, payload, new=True)
    public = (
        {"move": game_rules.public_move(before, seat, payload["move"], after)} if "move" in payload else payload
    )
    event = log.append(game, kind=kind, seat=seat, payload=payload, public_payload=public)
    store.remember_when_committed(game, event.seq, after)
    record_state(game, after, acted=seat)
    return event


def canonical_move(game_rules: Rules, state: Any, seat: int, move: Any) -> Move:
    """The move as the log stores it: the rules' normal form, with no field that no listed move
    of its type has. The log is insert-only, so whatever a client adds would be kept (and served
    with every poll) for ever: an unknown field is refused, naming it, for every game alike."""
    move = game_rules.normalize_move(state, seat, require_mapping(move))
    known = {key for listed in game_rules.legal_moves(state, seat) if listed.get("type") == move["type"] for key in listed}
    unknown = sorted(set(move) - known) if known else []
    if unknown:
        raise MalformedMove(f"a {move['type']!r} move has no field {unknown[0]!r}", "unknown_field")
    return move


def _idempotent_replay(game: Game, user: Any, key: str, digest: str) -> Event | None:
    earlier = IdempotencyKey.objects.select_related("event").filter(user=user, key=key).first()
    if earlier is None:
        return None
    if earlier.event.game_id != game.pk or earlier.request_digest != digest:
        raise IdempotencyKeyReused(
            f"the Idempotency-Key {key!r} was used for another request; use a new key for a new move"
        )
    return earlier.event
