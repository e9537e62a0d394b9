"""Moves: a person's, and one the server makes for a seat (a bot's, a timeout's), through the
same checks, written by the event writer (`games.writer`). What a move means is decided here
once for every door (the API, mail, the web page, bots): its idempotency key, whether it is
stale, the seat, the deadline, the turn, then the move itself through the rules.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError

from games import deadlines, selectors, store, writer
from games.errors import GameNotActive, IdempotencyKeyReused, StaleSeq
from games.models import Event, EventKind, Game, GameStatus, IdempotencyKey
from games.services.common import check_version, hide_from_strangers, seat_of
from games.words import state_said
from rules.base import Move, Rules
from rules.errors import MalformedMove, NotYourTurn
from rules.fields import require_mapping
from rules.values import canonical_json
from rules.words import msg


@dataclass(frozen=True)
class Submitted:
    event: Event
    replayed: bool  # True when an Idempotency-Key retry returned the first answer
    game: Game | None = None  # the game as the write left it (its answer is read from it)


def move_submit(
    *, game_id: int, user: Any, move: Any, expected_seq: int, idempotency_key: str | None = None
) -> Submitted:
    """A person's move, from any door. Checks, in order: the idempotency key, the version, the
    seat, the deadline, the turn, then the move itself through the rules.

    A move sent at an older seq is stale, except where only other seats chose since and the
    caller's moves are the very ones it chose from (a simultaneous step: another seat's secret
    choice may land while this one chooses); then it means what it meant and is played on the
    game as it is now."""
    digest = hashlib.sha256(canonical_json({"move": move, "expected_seq": expected_seq}).encode()).hexdigest()

    def decide(change: writer.Change) -> Submitted:
        game = change.game
        hide_from_strangers(game, user)
        if idempotency_key and game.earlier_key is not None:
            return Submitted(_idempotent_replay(game.earlier_key, game_id, idempotency_key, digest), True, game)
        if expected_seq != game.seq and not selectors.moves_unchanged_since(game=game, user=user, since=expected_seq):
            check_version(game, expected_seq)
        seat = seat_of(game, user)
        deadlines.check_in_time(game, seat)
        key = (user.pk, idempotency_key, digest) if idempotency_key else None
        return Submitted(act(change, seat, EventKind.MOVE, {"move": move}, idempotency=key), False, game)

    try:
        return writer.write(game_id, decide, move=True, user_id=user.pk, idempotency_key=idempotency_key)
    except (StaleSeq, IntegrityError) as error:
        # A stale seq: the same request may have just been stored by a retry we waited for. An
        # IntegrityError: only reachable where a unique constraint catches what the lock or the
        # version check cannot, one Idempotency-Key sent for two games at once. Either way a
        # stored key answers as any later use of it does: replayed if it was this very request,
        # else refused as a key reused (not as a stale seq: the loser's game did not move).
        earlier = _earlier_use(user, idempotency_key) if idempotency_key else None
        if earlier is not None:
            return Submitted(_idempotent_replay(earlier, game_id, idempotency_key, digest), replayed=True)
        if isinstance(error, StaleSeq):
            raise
        raise StaleSeq(msg("another move was stored first"), seq=Game.objects.get(pk=game_id).seq) from None


def seat_act(*, game_id: int, seat: int, expected_seq: int, kind: str, move: Any = None, forfeit: bool = False) -> Event:
    """A move made for a seat by the server (a bot, or a timeout), through the same checks."""
    payload = {"forfeit": True} if forfeit else {"move": move}

    def decide(change: writer.Change) -> Event:
        check_version(change.game, expected_seq)
        return act(change, seat, kind, payload)

    return writer.write(game_id, decide, move=True)


def act(change: writer.Change, seat: int, kind: str, payload: dict,
        idempotency: tuple[int, str, str] | None = None) -> Event:
    """One move or forfeit of `seat` on the game open in `change`: the game is active and the
    seat to act; the rules fold the move from the state before it (which also checks it) into
    the state after it, and the event keeps what every seat may see of it apart."""
    game = change.game
    if game.status != GameStatus.ACTIVE:
        raise GameNotActive(msg("game {pk} is {status}; no moves now", pk=game.pk, status=state_said(game.status)))
    if "move" in payload and seat not in game.to_act:
        raise NotYourTurn(msg("seat {seat} is not to act now; seats to act: {acting}", seat=seat, acting=game.to_act))
    game_rules = store.rules_of(game)
    before = change.state()
    if "move" in payload:
        payload = {"move": canonical_move(game_rules, before, seat, payload["move"])}
    after = store.fold_event(game_rules, game.seed, before, kind, seat, payload, new=True)
    public = (
        {"move": game_rules.public_move(before, seat, payload["move"], after)} if "move" in payload else payload
    )
    return change.append(kind, seat, payload, public_payload=public, idempotency=idempotency, state=after, acted=True)


def canonical_move(game_rules: Rules, state: Any, seat: int, move: Any) -> Move:
    """The move as the log stores it: the rules' normal form, with no field that no listed move
    of its type has. The log is insert-only, so whatever a client adds would be kept (and served
    with every poll) for ever: an unknown field is refused, naming it, for every game alike."""
    move = game_rules.normalize_move(state, seat, require_mapping(move))
    known = {key for listed in game_rules.legal_moves(state, seat) if listed.get("type") == move["type"] for key in listed}
    unknown = sorted(set(move) - known) if known else []
    if unknown:
        raise MalformedMove(msg("a {type!r} move has no field {unknown!r}", type=move['type'], unknown=unknown[0]), "unknown_field")
    return move


def _earlier_use(user: Any, key: str) -> dict[str, Any] | None:
    found = IdempotencyKey.objects.filter(user=user, key=key).values("event_id", "request_digest", "event__game_id").first()
    if found is None:
        return None
    return {"event_id": found["event_id"], "request_digest": found["request_digest"], "event_game": found["event__game_id"]}


def _idempotent_replay(earlier: dict[str, Any], game_id: int, key: str, digest: str) -> Event:
    """The event the key's first request stored, if the key was used for this very request; a
    key used for anything else is refused."""
    if earlier["event_game"] != game_id or earlier["request_digest"] != digest:
        raise IdempotencyKeyReused(
            msg("the Idempotency-Key {key!r} was used for another request; use a new key for a new move", key=key)
        )
    return Event.objects.get(pk=earlier["event_id"])
