"""Moves: a person's, and one the server makes for a seat (a bot's, a timeout's), through the
same checks. A move reads its game, checks the version (`seq`), folds the move through the
rules, and appends one event to the log, in one unit of work that writes only while the game row
is as the move read it (`games.hotpath.move_transaction`; inside a caller's transaction, under
the row's lock). The unique (game, seq) constraint backs both: two writers can never both store
event n. A move whose game changed in between is decided again from a new read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import IntegrityError

from games import deadlines, hotpath, log, store
from games.errors import GameNotActive, IdempotencyKeyReused, StaleSeq
from games.models import Event, EventKind, Game, GameStatus, IdempotencyKey
from games.services.common import check_version, hide_from_strangers, locked_game_loaded, seat_of
from games.services.recording import record_state
from rules.base import Move, Rules
from rules.errors import MalformedMove, NotYourTurn
from rules.fields import require_mapping
from rules.values import canonical_json


# Reads a move may take while other writes keep changing its game before it is stored. Each
# loss means another writer's commit, which usually moves the seq on (the next read refuses the
# move as stale): a move lost more often than this is refused as stale.
VERSION_TRIES = 8
T = TypeVar("T")


@dataclass(frozen=True)
class Submitted:
    event: Event
    replayed: bool  # True when an Idempotency-Key retry returned the first answer
    game: Game | None = None  # the game as the write left it (its answer is read from it)


def move_submit(
    *, game_id: int, user: Any, move: Any, expected_seq: int, idempotency_key: str | None = None
) -> Submitted:
    """A person's move. Checks, in order: the idempotency key, the version, the seat, the
    deadline, the turn, then the move itself through the rules."""
    digest = hashlib.sha256(canonical_json({"move": move, "expected_seq": expected_seq}).encode()).hexdigest()
    return _until_written(game_id, lambda: _submit_once(game_id, user, move, expected_seq, idempotency_key, digest))


def _submit_once(game_id: int, user: Any, move: Any, expected_seq: int, idempotency_key: str | None,
                 digest: str) -> Submitted:
    try:
        with hotpath.move_transaction() as tx:
            game = locked_game_loaded(game_id, user_id=user.pk, idempotency_key=idempotency_key, tx=tx)
            hide_from_strangers(game, user)
            if idempotency_key and game.earlier_key is not None:
                return Submitted(_idempotent_replay(game.earlier_key, game_id, idempotency_key, digest), True, game)
            check_version(game, expected_seq)
            seat = seat_of(game, user)
            deadlines.check_in_time(game, seat)
            key = (user.pk, idempotency_key, digest) if idempotency_key else None
            event = _act(game, seat, EventKind.MOVE, {"move": move}, idempotency=key, tx=tx)
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
        raise StaleSeq("another move was stored first", seq=Game.objects.get(pk=game_id).seq) from None
    return Submitted(event, replayed=False, game=game)


def seat_act(*, game_id: int, seat: int, expected_seq: int, kind: str, move: Any = None, forfeit: bool = False) -> Event:
    """A move made for a seat by the server (a bot, or a timeout), through the same checks."""
    payload = {"forfeit": True} if forfeit else {"move": move}

    def once() -> Event:
        with hotpath.move_transaction() as tx:
            game = locked_game_loaded(game_id, tx=tx)
            check_version(game, expected_seq)
            return _act(game, seat, kind, payload, tx=tx)

    return _until_written(game_id, once)


def _until_written(game_id: int, attempt: Callable[[], T]) -> T:
    """`attempt()`, read and decided again while its game changed between its read and its write
    (`games.hotpath.VersionMoved`: nothing was written), at most `VERSION_TRIES` times."""
    for _ in range(VERSION_TRIES):
        try:
            return attempt()
        except hotpath.VersionMoved:
            continue
    seq = Game.objects.filter(pk=game_id).values_list("seq", flat=True).first()
    raise StaleSeq("the game kept changing while the move was decided; read it again", seq=seq)


def _act(game: Game, seat: int, kind: str, payload: dict, idempotency: tuple[int, str, str] | None = None,
         tx: hotpath.MoveTransaction | None = None) -> Event:
    """One event on a game already loaded (`locked_game_loaded`) in the move's transaction `tx`
    (`games.hotpath.move_transaction`; without one, the caller holds the row's lock), in one pass:

    - decide: the game is active and the seat to act; the rules fold the move from the state
      before it (which also checks it) into the state after it;
    - append: the event joins the hash chain, its INSERT the first write of the move's unit of
      work (`games.hotpath.Writes`);
    - project: the game row's cached columns, its deadline rows and a snapshot when due join the
      same unit, which runs as one statement, the move's last (it raises `VersionMoved`, having
      written nothing, if the game changed since it was read);
    - notify: bots, live streams and listeners are told after commit (`record_state`), and the
      new state enters the process's cache only then.
    """
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
    unit = tx.writes_for(game) if tx is not None else hotpath.Writes()
    event = log.append(game, kind=kind, seat=seat, payload=payload, public_payload=public, idempotency=idempotency,
                       unit=unit)
    record_state(game, after, acted=seat, unit=unit)
    unit.run()
    store.remember_when_committed(game, event.seq, after)
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
            f"the Idempotency-Key {key!r} was used for another request; use a new key for a new move"
        )
    return Event.objects.get(pk=earlier["event_id"])
