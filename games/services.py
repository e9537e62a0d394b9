"""Writes. Every change to a game goes through here, for people, bots and timers alike.

A change takes the game's row lock (`select_for_update`), checks the version (`seq`) in the same
transaction, folds the move through the rules, and appends one event. The unique (game, seq)
constraint backs the lock: two writers can never both store event n.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from rest_framework.authtoken.models import Token

import bots
import rules
from games import clocks, errors, log, store
from games.models import Event, EventKind, Game, GameStatus, IdempotencyKey, Seat
from rules.base import MalformedMove, Move, NotYourTurn, Rules, canonical_json, require_mapping

User = get_user_model()


# --- accounts ------------------------------------------------------------------------------


def account_create(*, username: str, password: str, email: str = "") -> tuple[Any, Token]:
    candidate = User(username=username, email=email)
    try:
        User.username_validator(username)
        if email:
            validate_email(email)
        validate_password(password, user=candidate)
    except ValidationError as error:
        raise errors.InvalidInput("; ".join(error.messages)) from None
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password, email=email)
    except IntegrityError:
        raise errors.UsernameTaken(f"the username {username!r} is taken") from None
    return user, Token.objects.create(user=user)


def token_obtain(*, username: str, password: str) -> Token:
    user = User.objects.filter(username=username).first()
    if user is None or not user.is_active or not user.check_password(password):
        raise errors.InvalidCredentials("wrong username or password")
    token, _ = Token.objects.get_or_create(user=user)
    return token


# --- games ---------------------------------------------------------------------------------


def new_seed() -> str:
    """The secret seed of a new game: 256 bits, published only when the game ends."""
    return secrets.token_hex(32)


@transaction.atomic
def game_create(
    *,
    creator: Any,
    rules_id: str,
    players: int,
    options: dict | None,
    bot_seats: list[dict] | None = None,
    time_control: dict | None = None,
    timeout_policy: str | None = None,
    creator_plays: bool = True,
) -> Game:
    """A new game; the creator takes seat 0 and `bot_seats` ({seat, bot, level?}) their seats.
    With `creator_plays=False` the creator only watches and bots may take seat 0 too (a game of
    bots only). `time_control` and `timeout_policy` are described in `games.clocks`."""
    game_rules = rules.get(rules_id)
    chosen = game_rules.normalize_options(players, options)
    bot_seats = _checked_bot_seats(bot_seats or [], players, first=1 if creator_plays else 0)
    control = clocks.normalize_time_control(time_control)
    policy = clocks.normalize_policy(timeout_policy)
    seed = new_seed()
    game = Game.objects.create(
        rules=rules_id,
        rules_version=game_rules.version,
        players=players,
        options=chosen,
        seed=seed,
        seed_sha256=Game.hash_seed(seed),
        time_control=control,
        timeout_policy=policy,
        created_by=creator,
    )
    created = {
        "rules": rules_id,
        "rules_version": game_rules.version,
        "players": players,
        "options": chosen,
        "seed_sha256": game.seed_sha256,
    }
    state = store.fold_event(game_rules, seed, None, EventKind.CREATED, None, created)
    log.append(game, kind=EventKind.CREATED, seat=None, payload=created)
    if creator_plays:
        _take_seat(game, Seat(game=game, index=0, user=creator))
    for wanted in bot_seats:
        _take_seat(game, Seat(game=game, index=wanted["seat"], bot=wanted["bot"], bot_level=wanted["level"]))
    _record_state(game, state)
    return game


@transaction.atomic
def bot_seat_add(*, game_id: int, user: Any, bot: str, level: int | None = None) -> Seat:
    """A bot takes the next free seat of an open game; any player seated there may ask."""
    game = _locked_game(game_id)
    if game.created_by_id != user.pk:  # a creator who only watches may seat bots too
        _seat_of(game, user)
    if game.status != GameStatus.OPEN:
        raise errors.GameNotOpen(f"game {game.pk} is {game.status}, not open for players")
    spec = bots.get(bot)
    chosen_level = spec.default_level if level is None else level
    spec.check_level(chosen_level)
    seat = Seat(game=game, index=_next_free_seat(game), bot=bot, bot_level=chosen_level)
    _take_seat(game, seat)
    _record_state(game, store.state_at(game))
    return seat


def _checked_bot_seats(wanted: list[dict], players: int, first: int = 1) -> list[dict]:
    checked, taken = [], set(range(first))
    for entry in wanted:
        seat = entry.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not first <= seat < players or seat in taken:
            raise errors.InvalidInput(
                f"bot seat {seat!r}: each bot needs its own seat from {first} to {players - 1}"
            )
        spec = bots.get(entry.get("bot"))
        level = entry.get("level", spec.default_level)
        spec.check_level(level)
        taken.add(seat)
        checked.append({"seat": seat, "bot": spec.name, "level": level})
    return checked


@transaction.atomic
def game_join(*, game_id: int, user: Any) -> Seat:
    game = _locked_game(game_id)
    if game.status != GameStatus.OPEN:
        raise errors.GameNotOpen(f"game {game.pk} is {game.status}, not open for players")
    if game.seats.filter(user=user).exists():
        raise errors.AlreadySeated(f"you already have a seat in game {game.pk}")
    seat = Seat(game=game, index=_next_free_seat(game), user=user)
    _take_seat(game, seat)
    _record_state(game, store.state_at(game))
    return seat


def _next_free_seat(game: Game) -> int:
    taken = set(game.seats.values_list("index", flat=True))
    return min(set(range(game.players)) - taken)


def _take_seat(game: Game, seat: Seat) -> None:
    seat.save()
    who = {"username": seat.user.username} if seat.user else {"bot": seat.bot, "level": seat.bot_level}
    log.append(game, kind=EventKind.SYSTEM, seat=seat.index, payload={"type": "seat_taken", **who})
    if game.seats.count() == game.players:
        game.status = GameStatus.ACTIVE
        log.append(game, kind=EventKind.SYSTEM, seat=None, payload={"type": "game_started"})


# --- moves ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Submitted:
    event: Event
    replayed: bool  # True when an Idempotency-Key retry returned the first answer


def move_submit(
    *, game_id: int, user: Any, move: Any, expected_seq: int, idempotency_key: str | None = None
) -> Submitted:
    """A person's move. Checks, in order: the idempotency key, the version, the seat, the turn,
    then the move itself through the rules."""
    digest = hashlib.sha256(canonical_json({"move": move, "expected_seq": expected_seq}).encode()).hexdigest()
    try:
        with transaction.atomic():
            game = _locked_game(game_id)
            if idempotency_key:
                earlier = _idempotent_replay(game, user, idempotency_key, digest)
                if earlier is not None:
                    return Submitted(earlier, replayed=True)
            _check_version(game, expected_seq)
            seat = _seat_of(game, user)
            clocks.check_in_time(game, seat)
            event = _act(game, seat, EventKind.MOVE, {"move": move})
            if idempotency_key:
                IdempotencyKey.objects.create(user=user, key=idempotency_key, request_digest=digest, event=event)
    except IntegrityError:
        # Only reachable where the row lock is weaker than the unique (game, seq) constraint.
        raise errors.StaleSeq("another move was stored first", seq=Game.objects.get(pk=game_id).seq) from None
    return Submitted(event, replayed=False)


def seat_act(*, game_id: int, seat: int, expected_seq: int, kind: str, move: Any = None, forfeit: bool = False) -> Event:
    """A move made for a seat by the server (a bot, or a timeout), through the same checks."""
    payload = {"forfeit": True} if forfeit else {"move": move}
    with transaction.atomic():
        game = _locked_game(game_id)
        _check_version(game, expected_seq)
        return _act(game, seat, kind, payload)


def _act(game: Game, seat: int, kind: str, payload: dict) -> Event:
    if game.status != GameStatus.ACTIVE:
        raise errors.GameNotActive(f"game {game.pk} is {game.status}; no moves now")
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
    _record_state(game, after, acted=seat)
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
        raise errors.IdempotencyKeyReused(
            f"the Idempotency-Key {key!r} was used for another request; use a new key for a new move"
        )
    return earlier.event


def _check_version(game: Game, expected_seq: int) -> None:
    if expected_seq != game.seq:
        raise errors.StaleSeq(f"expected_seq is {expected_seq} but the game is at {game.seq}", seq=game.seq)


def _seat_of(game: Game, user: Any) -> int:
    index = game.seats.filter(user=user).values_list("index", flat=True).first()
    if index is None:
        raise errors.NotAPlayer(f"you have no seat in game {game.pk}")
    return index


def _locked_game(game_id: int) -> Game:
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise errors.GameNotFound(f"there is no game {game_id}") from None


def bot_seat_play(*, game_id: int, seq: int) -> Event | None:
    """One bot seat that must act at `seq` makes its move; None if the game has moved on or no
    bot is to act. The bot sees only its seat's view."""
    game = Game.objects.filter(pk=game_id, seq=seq, status=GameStatus.ACTIVE).first()
    if game is None:
        return None
    seat = game.seats.filter(_BOT_PLAYED, index__in=game.to_act).order_by("index").first()
    if seat is None:
        return None
    game_rules = store.rules_of(game)
    view = game_rules.view(store.state_at(game), seat.index)
    spec = bots.get(seat.bot or seat.stand_in)
    level = seat.bot_level if seat.bot else spec.default_level
    move = bots.choose_move(
        game_rules, view, seat.index, bot=spec.name, level=level, seed=bot_seed(game, seq),
        max_seconds=settings.SCRAPYARD_BOT_DECISION_SECONDS,
    )
    try:
        return seat_act(game_id=game_id, seat=seat.index, expected_seq=seq, kind=EventKind.MOVE, move=move)
    except errors.StaleSeq:
        return None  # somebody else acted first: the task for the new seq takes over


def bot_seed(game: Game, seq: int) -> str:
    """A bot's randomness for the decision at `seq`: reproducible from the game's seed, one-way,
    so a bot never holds the seed that decides the game's chance."""
    return hashlib.sha256(f"bot:{game.seed}:{seq}".encode()).hexdigest()


# A bot seat, or a person's seat a stand-in bot plays after a timeout (games.clocks).
_BOT_PLAYED = ~Q(bot="") | ~Q(stand_in="")


def _record_state(game: Game, state: Any, acted: int | None = None) -> None:
    """Cache what the lists and the turn checks need, snapshot the fold when due, and set the
    deadlines of the seats that must act (`acted`: the seat whose event this was)."""
    game_rules = store.rules_of(game)
    game.to_act = list(game_rules.to_act(state)) if game.status == GameStatus.ACTIVE else []
    outcome = game_rules.outcome(state)
    if outcome is not None and game.status == GameStatus.ACTIVE:
        game.status = GameStatus.FINISHED
        game.result = outcome.as_dict()
        game.to_act = []
    if store.snapshot_due(game.seq):
        store.snapshot_write(game, game.seq, state)
    game.save()
    clocks.deadlines_sync(game, acted=acted)
    _after_commit_wake_bots(game)


def _after_commit_wake_bots(game: Game) -> None:
    if game.status != GameStatus.ACTIVE:
        return
    if game.seats.filter(_BOT_PLAYED, index__in=game.to_act).exists():
        from games import tasks  # tasks import services: resolve at call time

        game_id, seq = game.pk, game.seq
        # robust: the move is stored whatever the broker says; `bots_stalled` wakes a bot whose
        # message never left.
        transaction.on_commit(lambda: tasks.play_bots.delay(game_id, seq), robust=True)


def bots_stalled(*, idle_seconds: float, limit: int = 500) -> list[tuple[int, int]]:
    """(game, seq) of active games where a bot-played seat is to act and nothing has happened
    for `idle_seconds`: its wake-up message was lost (a broker outage, a worker lost mid-task)."""
    cutoff = timezone.now() - timedelta(seconds=idle_seconds)
    candidates = (
        Game.objects.filter(status=GameStatus.ACTIVE, updated_at__lt=cutoff, seats__in=Seat.objects.filter(_BOT_PLAYED))
        .distinct()
        .prefetch_related("seats")[:limit]
    )
    return [
        (game.pk, game.seq)
        for game in candidates
        if any(seat.index in game.to_act and (seat.bot or seat.stand_in) for seat in game.seats.all())
    ]
