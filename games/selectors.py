"""Reads. What each caller may see of a game: its own seat's view, and the log as that seat may
see it (another seat's secret choice shows only as the rules' public form until the game ends)."""

from __future__ import annotations

import datetime as dt
import functools
import json
import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import F, Max, Prefetch, Q, QuerySet

import bots
import rules
from games import deadlines, dispatch, errors, store, time_controls
from games.models import (
    Account,
    ApiToken,
    ChatChannel,
    ChatMessage,
    ChatMute,
    Event,
    EventKind,
    Game,
    IdempotencyKey,
    GameStatus,
    Invitation,
    InvitationStatus,
    Seat,
)
from rules import docs as rules_docs
from rules import notation as move_notation
from rules.errors import UnknownRules

User = get_user_model()
GAME_DOCS = Path(settings.BASE_DIR) / "docs" / "games"


def game_get(*, game_id: int) -> Game:
    try:
        seats = Prefetch("seats", queryset=Seat.objects.select_related("user"))
        return Game.objects.prefetch_related(seats).get(pk=game_id)
    except Game.DoesNotExist:
        raise errors.GameNotFound(f"there is no game {game_id}") from None


def game_owner_id(*, game_id: int) -> int | None:
    """The account that created the game (whose share of the bot workers its bots use)."""
    return Game.objects.filter(pk=game_id).values_list("created_by_id", flat=True).first()


INVITATION_KEY_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def check_invitation(invitation: Any) -> None:
    """Refuse (InvalidInvitation, 400) what cannot be an invitation key: keys are URL-safe ASCII
    (`secrets.token_urlsafe`). Told before any game is looked up, so it says nothing of one."""
    if not isinstance(invitation, str) or len(invitation) > 64 or not INVITATION_KEY_CHARACTERS.issuperset(invitation):
        raise errors.InvalidInvitation("an invitation key has at most 64 letters, digits, - and _")


def invitation_matches(invitation: Any, key: str) -> bool:
    """Whether a well-formed `invitation` is the game's `key`, compared in constant time."""
    if not invitation:
        return False
    check_invitation(invitation)
    return bool(key) and secrets.compare_digest(invitation.encode(), key.encode())


def game_for(*, game_id: int, user: Any, invitation: str = "") -> Game:
    """The game, if the caller may see it: any public game; a private one only with a seat, as its
    creator, as an invited account (not declined), or with its invitation link's key. Otherwise
    GameNotFound, as if there were none (a private game's existence is not told)."""
    if invitation:
        check_invitation(invitation)
    game = game_get(game_id=game_id)
    if game.private and not may_see(game=game, user=user, invitation=invitation):
        raise errors.GameNotFound(f"there is no game {game_id}")
    return game


def may_see(*, game: Game, user: Any, invitation: str = "") -> bool:
    if not game.private:
        return True
    if invitation_matches(invitation, game.invitation_key):
        return True
    if not user.is_authenticated:
        return False
    if game.created_by_id == user.pk or any(seat.user_id == user.pk for seat in game.seats.all()):
        return True
    return Invitation.objects.filter(game=game, user=user, status=InvitationStatus.PENDING).exists()


def private_game_viewers(*, game_id: int) -> set[int] | None:
    """The accounts that may see a private game now (its creator, its seated players, its pending
    invitees), for a notice sent without a request (a webhook); None for a public game."""
    game = Game.objects.filter(pk=game_id).values("private", "created_by_id").first()
    if game is None or not game["private"]:
        return None
    seated = Seat.objects.filter(game_id=game_id, user__isnull=False).values_list("user_id", flat=True)
    invited = Invitation.objects.filter(game_id=game_id, status=InvitationStatus.PENDING).values_list("user_id", flat=True)
    return {game["created_by_id"], *seated, *invited}


def visible_games(user: Any) -> Q:
    """The games a list may show the caller: the public ones and the private ones it may see."""
    if not user.is_authenticated:
        return Q(private=False)
    invited = Invitation.objects.filter(user=user, status=InvitationStatus.PENDING).values("game_id")
    return Q(private=False) | Q(created_by=user) | Q(seats__user=user) | Q(pk__in=invited)


def invitations_of(*, user: Any) -> list[dict[str, Any]]:
    """The private games the account is invited to and has not declined, open ones first."""
    rows = Invitation.objects.filter(user=user, status=InvitationStatus.PENDING).select_related("game", "game__created_by")
    return [
        {"game": row.game_id, "rules": row.game.rules, "status": row.game.status, "by": row.game.created_by.username,
         "created_at": row.created_at}
        for row in sorted(rows, key=lambda row: (row.game.status != GameStatus.OPEN, -row.game_id))
    ]


def game_list(*, user: Any, status: str | None = None, mine: bool = False) -> QuerySet[Game]:
    games = Game.objects.prefetch_related("seats__user", "deadlines").filter(visible_games(user)).distinct()
    if status:
        if status not in GameStatus.values:
            raise errors.InvalidInput(f"status must be one of {', '.join(GameStatus.values)}, not {status!r}")
        games = games.filter(status=status)
    if mine:
        if not user.is_authenticated:
            return games.none()
        games = games.filter(seats__user=user).distinct()
    return games


def seat_of(*, game: Game, user: Any) -> int | None:
    if not user.is_authenticated:
        return None
    return next((seat.index for seat in game.seats.all() if seat.user_id == user.pk), None)


def seats_of(*, game: Game) -> list[dict[str, Any]]:
    return [
        {
            "seat": seat.index,
            "username": seat.user.username if seat.user else None,
            "bot": {"name": seat.bot, "level": seat.bot_level} if seat.bot else None,
        }
        for seat in game.seats.all()
    ]


def game_detail(*, game: Game, user: Any) -> dict[str, Any]:
    seat = seat_of(game=game, user=user)
    state = store.state_at(game)
    return {
        **game_summary(game=game),
        "your_seat": seat,
        "view": store.rules_of(game).view(state, seat),
        "presentation": presentation_of(game=game, state=state, seat=seat),
        "seed": game.seed if game.status == GameStatus.FINISHED else None,
        "you_created": user.is_authenticated and game.created_by_id == user.pk,
        "private": game.private,
        "timeouts_to_resign": game.timeouts_to_resign,
        "invitation_key": (game.invitation_key or None) if user.is_authenticated and game.created_by_id == user.pk else None,
        **pending_proposals(game=game),
        "playing": still_playing(game=game),
    }


def presentation_of(*, game: Game, state: Any, seat: int | None) -> dict[str, Any]:
    """The rules' presentation for the seat, its touched cells against the state before the
    newest event (most often still in the recent states' cache: the move just made it)."""
    before = store.state_at(game, game.seq - 1) if game.seq > 1 else None
    shown = store.rules_of(game).presentation(state, seat, before)
    if game.status != GameStatus.ACTIVE:  # ended by the service (a draw, an abort) or not begun: nobody is asked
        shown["prompt"] = None
    return shown


def game_summary(*, game: Game) -> dict[str, Any]:
    return {
        "id": game.pk,
        "rules": game.rules,
        "status": game.status,
        "players": game.players,
        "options": game.options,
        "rated": game.rated,
        "seats": seats_of(game=game),
        "seq": game.seq,
        "to_act": game.to_act,
        **clocks_of(game=game),
        "result": game.result,
        "seed_sha256": game.seed_sha256,
        "created_at": game.created_at,
    }


def clocks_of(*, game: Game) -> dict[str, Any]:
    """The time control, the timeout policy, the deadline of every seat that must act (`deadline`
    is the earliest running one), and the seats a stand-in bot plays for (`games.deadlines`)."""
    due = deadlines.deadlines_of(game)
    return {
        "time_control": game.time_control or None,
        "timeout_policy": game.timeout_policy,
        "deadline": _earliest(due),
        "deadlines": due,
        "stand_ins": [{"seat": seat.index, "bot": seat.stand_in} for seat in game.seats.all() if seat.stand_in],
    }


def _earliest(due: list[dict[str, Any]]) -> dt.datetime | None:
    """The earliest running deadline of `deadlines.deadlines_of`'s entries."""
    return min((entry["due_at"] for entry in due if entry["due_at"] is not None), default=None)


def legal_moves_for(*, game: Game, user: Any) -> dict[str, Any]:
    seat = seat_of(game=game, user=user)
    if seat is None:
        raise errors.NotAPlayer(f"you have no seat in game {game.pk}")
    if seat not in game.to_act:
        return {"seq": game.seq, "seat": seat, "moves": [], "notation": []}
    game_rules, state = store.rules_of(game), store.state_at(game)
    moves = game_rules.legal_moves(state, seat)
    notation = [game_rules.describe_move(state, seat, move) for move in moves]
    return {"seq": game.seq, "seat": seat, "moves": moves, "notation": notation}


def move_answer(*, game: Game | None, user: Any, event: Event) -> dict[str, Any]:
    """The answer to a move: the event as its seat sees it, and the game after it as the caller's
    seat sees it with its legal moves, so a client plays on without another request. `game` is
    the one the move was written through (None: read it)."""
    game = game if game is not None else game_get(game_id=event.game_id)
    legal = legal_moves_for(game=game, user=user)  # the caller has a seat: it just moved
    seat = legal["seat"]
    return {
        **event_visible(event, event.seat),
        "game": {
            "seq": game.seq,
            "status": game.status,
            "to_act": game.to_act,
            # As the move left them: a retry of the move (Idempotency-Key) gets the same answer.
            "deadlines": deadlines.deadlines_of(game, at=event.created_at if game.seq == event.seq else None),
            "result": game.result,
            "your_seat": seat,
            "your_turn": bool(legal["moves"]),
            "view": store.rules_of(game).view(store.state_at(game), seat),
            "moves": legal["moves"],
            "notation": legal["notation"],
        },
    }


def events_visible(*, game: Game, user: Any, after: int = 0, notation: bool = False) -> list[dict[str, Any]]:
    """The log after `after` as the caller may see it; with `notation`, each event also has
    `text`, its human notation (a move in the rules' own, `describe_move`)."""
    seat = seat_of(game=game, user=user)
    everything = game.status == GameStatus.FINISHED
    events = Event.objects.filter(game=game, seq__gt=after).order_by("seq")
    if not notation:
        return [event_visible(event, seat, everything) for event in events]
    return _with_texts(game, list(events), seat, everything)


def _with_texts(game: Game, events: list[Event], seat: int | None, everything: bool) -> list[dict[str, Any]]:
    """Each event with its text, folding forward once from the state before the first (a move's
    notation is read in the state it was played in)."""
    game_rules = store.rules_of(game)
    state = store.state_at(game, events[0].seq - 1) if events and events[0].seq > 1 else None
    told = []
    for event in events:
        told.append({**event_visible(event, seat, everything), "text": _event_text(game_rules, state, event, seat, everything)})
        state = store.fold_event(
            game_rules, game.seed, state, event.kind, event.seat, event.payload, earlier=lambda seq: store.state_at(game, seq)
        )
    return told


def _event_text(game_rules: Any, state: Any, event: Event, seat: int | None, everything: bool) -> str:
    payload = event.payload
    if event.kind == EventKind.CREATED:
        return "game created"
    if event.kind == EventKind.SYSTEM:
        return _system_text(payload)
    public_move = (event.public_payload or {}).get("move")
    shown = everything or (seat is not None and event.seat == seat) or payload == event.public_payload or (
        # a public copy that adds to the move (a tile it drew, shown to all) hides nothing of it
        isinstance(public_move, dict) and isinstance(payload.get("move"), dict) and public_move.items() >= payload["move"].items()
    )
    if not shown:
        return "chose in secret"
    move = payload.get("move")  # an event's payload holds the move and what came of it
    if not isinstance(move, dict):
        return "timeout: forfeit" if payload.get("forfeit") else "timeout"
    try:
        text = game_rules.describe_move(state, event.seat, move)
    except Exception:  # a move as stored that the notation does not read back: its fields say enough
        text = _fields_text(move)
    return f"timeout: {text}" if event.kind == EventKind.TIMEOUT else text


def _fields_text(move: dict[str, Any]) -> str:
    if "type" in move:
        return move_notation.fields_text(move)
    return " ".join(f"{key.replace('_', ' ')} {move_notation.value_text(value)}" for key, value in move.items())


def _system_text(payload: dict[str, Any]) -> str:
    if payload.get("type") == store.TAKEBACK:
        return f"takeback: event {payload['undo']} undone"
    if payload.get("type") == "seat_taken":
        who = payload.get("username") or f"bot {payload.get('bot')}"
        return f"{who} takes a seat"
    return str(payload.get("type", "system")).replace("_", " ")


def account_games(*, user: Any, also: list[int] | tuple[int, ...] = ()) -> list[dict[str, Any]]:
    """What the account feed compares from one look to the next: each game the account has a
    seat in that is open or being played, and the games in `also` (those it already follows,
    so it sees them finish)."""
    seats = Prefetch("seats", queryset=Seat.objects.select_related("user"))
    games = (
        Game.objects.filter(seats__user=user)
        .filter(Q(status__in=[GameStatus.OPEN, GameStatus.ACTIVE]) | Q(pk__in=list(also)))
        .distinct()
        .order_by("pk")
        .prefetch_related(seats, "deadlines")
    )
    adjourned = _adjourned_now([game.pk for game in games if game.status == GameStatus.ACTIVE])
    return [account_game(game, seat_of(game=game, user=user), adjourned.get(game.pk)) for game in games]


ADJOURNED = "adjourned"


def _adjourned_now(game_ids: list[int]) -> dict[int, str]:
    """For the games whose newest event is an adjournment (nobody has moved since): when the
    abandonment sweep aborts them if still nobody moves. One look for all of an account's games."""
    if not game_ids:
        return {}
    newest = Event.objects.filter(game_id__in=game_ids, seq=F("game__seq"), kind=EventKind.SYSTEM, payload__type=ADJOURNED)
    grace = dt.timedelta(days=settings.SCRAPYARD_ADJOURN_GRACE_DAYS)
    return {game_id: (dt.datetime.fromisoformat(payload["at"]) + grace).isoformat()
            for game_id, payload in newest.values_list("game_id", "payload")}


def account_game(game: Game, seat: int | None, aborts_at: str | None = None) -> dict[str, Any]:
    return {
        "aborts_at": aborts_at,
        "game": game.pk,
        "rules": game.rules,
        "status": game.status,
        "seq": game.seq,
        "seat": seat,
        "to_act": game.to_act,
        "deadline": _earliest(deadlines.deadlines_of(game)),
        "deadline_warning": deadlines.deadline_warning_due(game, seat),
        "result": game.result,
    }


def events_after(*, game_id: int, after: int) -> tuple[list[Event], bool]:
    """A game's events after seq `after`, as stored, and whether the game is over (what a live
    stream shares between its watchers; each renders its own view with `event_visible`)."""
    status = Game.objects.filter(pk=game_id).values_list("status", flat=True).first()  # streams' hot path
    if status is None:
        raise errors.GameNotFound(f"there is no game {game_id}")
    events = list(Event.objects.filter(game_id=game_id, seq__gt=after).order_by("seq"))
    return events, status == GameStatus.FINISHED


def event_visible(event: Event, seat: int | None, everything: bool = False) -> dict[str, Any]:
    own = seat is not None and event.seat == seat
    return {
        "seq": event.seq,
        "kind": event.kind,
        "seat": event.seat,
        "payload": event.payload if (own or everything) else event.public_payload,
        "created_at": event.created_at,
        "hash": event.hash,
        "prev_hash": event.prev_hash,
        "private_digest": event.private_digest,
    }


def board_text(*, game: Game, user: Any) -> str:
    """The board as text, as the caller's seat may see it (the rules' `render_text`)."""
    return store.rules_of(game).render_text(store.state_at(game), seat_of(game=game, user=user))


def view_at(*, game: Game, user: Any, at: int) -> dict[str, Any]:
    if not 1 <= at <= game.seq:
        raise errors.EventOutOfRange(f"at must be between 1 and {game.seq}, not {at}")
    seat = seat_of(game=game, user=user)
    return {"seq": at, "seat": seat, "view": store.rules_of(game).view(store.state_at(game, at), seat)}



# --- what the apps beside `games` follow (hooks) -------------------------------------------------


def account_seats(*, game_id: int) -> dict[int, int]:
    """Who sits where: account id -> seat (a built-in bot's seat has no account)."""
    return dict(Seat.objects.filter(game_id=game_id, user__isnull=False).values_list("user_id", "index"))


def account_game_of(*, game_id: int, seat: int | None) -> dict[str, Any]:
    """One game as the account feed sees it (`account_game`), for the account in `seat`."""
    seats = Prefetch("seats", queryset=Seat.objects.select_related("user"))
    game = Game.objects.prefetch_related(seats, "deadlines").filter(pk=game_id).first()
    if game is None:
        raise errors.GameNotFound(f"there is no game {game_id}")
    return account_game(game, seat)


def events_seen_by(
    *, game_id: int, seat: int | None, after: int, upto: int, since: dt.datetime | None = None
) -> list[dict[str, Any]]:
    """Events `after` < seq <= `upto` (and recorded at `since` or later) as `seat` may see them,
    as `/events/` gives them."""
    everything = Game.objects.filter(pk=game_id, status=GameStatus.FINISHED).exists()
    events = Event.objects.filter(game_id=game_id, seq__gt=after, seq__lte=upto).order_by("seq")
    if since is not None:
        events = events.filter(created_at__gte=since)
    return [event_visible(event, seat, everything) for event in events]


FORCED_KEY_PREFIX = "forced-"  # the idempotency key of a move the server played for its seat


def move_was_forced(*, game_id: int, seq: int) -> bool:
    """Whether the move at `seq` was a forced one the server played for its seat (nobody was
    answered for it, so the seat still needs telling what follows)."""
    return IdempotencyKey.objects.filter(event__game_id=game_id, event__seq=seq, key__startswith=FORCED_KEY_PREFIX).exists()


def starts_game(event: dict[str, Any]) -> bool:
    """Whether a visible event (`event_visible`) is the one that started its game."""
    return event["kind"] == EventKind.SYSTEM and event["payload"].get("type") == "game_started"


def games_moved_since(*, user_ids: list[int], game_ids: list[int], since: dt.datetime) -> list[dict[str, Any]]:
    """The games a follower of these accounts (or of these games) may have missed news of: those
    open or being played, and those whose last event is after `since`. Each as
    `{"game", "seq", "accounts": {account id: seat}}`."""
    recent = Q(status__in=[GameStatus.OPEN, GameStatus.ACTIVE]) | Q(events__seq=F("seq"), events__created_at__gte=since)
    followed = Q(seats__user_id__in=user_ids) | Q(pk__in=game_ids)
    ids = Game.objects.filter(followed).filter(recent).values_list("pk", flat=True).distinct()
    games = Game.objects.filter(pk__in=list(ids)).prefetch_related("seats").order_by("pk")
    return [
        {
            "game": game.pk,
            "seq": game.seq,
            "accounts": {seat.user_id: seat.index for seat in game.seats.all() if seat.user_id},
        }
        for game in games
    ]


def deadline_warnings(*, user_ids: list[int]) -> list[dict[str, Any]]:
    """Every seat of these accounts that has used 80% of its time for the move it owes
    (`deadlines.deadline_warning_due`), as `{"account", "game", "rules", "seat", "seq", "deadline"}`."""
    seats = Prefetch("seats", queryset=Seat.objects.filter(user_id__in=user_ids))
    games = (
        Game.objects.filter(status=GameStatus.ACTIVE, seats__user_id__in=user_ids, deadlines__isnull=False)
        .distinct()
        .prefetch_related(seats, "deadlines")
    )
    return [
        {
            "account": seat.user_id,
            "game": game.pk,
            "rules": game.rules,
            "seat": seat.index,
            "seq": game.seq,
            "deadline": _earliest(deadlines.deadlines_of(game)),
        }
        for game in games
        for seat in game.seats.all()
        if deadlines.deadline_warning_due(game, seat.index)
    ]


# --- accounts -------------------------------------------------------------------------------


def vacation_of(*, user: Any) -> Account | None:
    """The user's account row, if it has one yet (a new account has no vacation history)."""
    return Account.objects.filter(user=user).first()


def vacation_info(account: Account | None, at: dt.datetime | None = None) -> dict[str, Any]:
    """Where the account's vacation stands this (UTC) year; a missing row is a fresh account."""
    at = at or time_controls.now()
    account = account or Account()
    used = _vacation_used_this_year(account, at)
    allowed = account.vacation_days_per_year * time_controls.DAY
    return {
        "on_vacation": account.vacation_since is not None,
        "since": account.vacation_since,
        "year": at.year,
        "days_per_year": account.vacation_days_per_year,
        "days_used": round(used / time_controls.DAY, 4),
        "days_left": round(max(0.0, allowed - used) / time_controls.DAY, 4),
        "ends_at": vacation_end(account, at),
    }


def _vacation_used_this_year(account: Account, at: dt.datetime) -> float:
    earlier = account.vacation_used_seconds if account.vacation_year == at.year else 0.0
    running = (at - account.vacation_since).total_seconds() if account.vacation_since else 0.0
    return earlier + running


def vacation_end(account: Account, at: dt.datetime) -> dt.datetime | None:
    """When the days left run out, for an account on vacation."""
    if account.vacation_since is None:
        return None
    earlier = account.vacation_used_seconds if account.vacation_year == at.year else 0.0
    left = max(0.0, account.vacation_days_per_year * time_controls.DAY - earlier)
    return account.vacation_since + dt.timedelta(seconds=left)


def account_email(*, user_id: int) -> str:
    """Where to write to the account ("" if it gave no address)."""
    return User.objects.filter(pk=user_id).values_list("email", flat=True).first() or ""


def account_settings(account: Account) -> dict[str, Any]:
    """The account as its owner sees it: name, email, whether a program plays it, and which
    notices it wants by email."""
    return {
        **account_info(account),
        "email": account.user.email,
        "notify": {notice: account.wants(notice) for notice in Account.NOTICES},
    }


def account_info(account: Account) -> dict[str, Any]:
    return {"username": account.user.username, "bot": account.is_bot}


# --- tokens ---------------------------------------------------------------------------------


def tokens_live(*, user: Any, at: dt.datetime | None = None):
    """The account's scoped tokens that still work: not revoked, not expired."""
    at = at or time_controls.now()
    live = ApiToken.objects.filter(user=user, revoked_at__isnull=True)
    return live.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=at))


def token_info(token: ApiToken, key: str | None = None) -> dict[str, Any]:
    """A token as its owner sees it; the key only in the answer that made it."""
    return {
        "id": token.pk,
        "name": token.name,
        "scopes": token.scopes,
        "prefix": token.prefix,
        "created_at": token.created_at,
        "expires_at": token.expires_at,
        **({"token": key} if key is not None else {}),
    }


def token_list(*, user: Any) -> list[dict[str, Any]]:
    return [token_info(token) for token in tokens_live(user=user).order_by("pk")]


# --- the server -----------------------------------------------------------------------------


def rules_catalogue() -> list[dict[str, Any]]:
    """Every game this server plays, as `GET /api/rules/` lists it."""
    return [game.describe() for game in rules.catalog().values()]


def rules_detail(*, rules_id: str) -> dict[str, Any]:
    """One game as `GET /api/rules/{id}/` gives it: its description, its move schema and its page
    (`docs/games/<id>.md`, made by `python -m rules.docs`)."""
    try:
        game = rules.get(rules_id)
    except UnknownRules as error:
        raise errors.RulesNotFound(str(error.message if hasattr(error, "message") else error)) from None
    return {**game.describe(), "move_schema": _move_schema(game.id), "doc": _doc_of(game.id)}


@functools.cache
def _move_schema(rules_id: str) -> dict[str, Any]:
    stored = GAME_DOCS / f"{rules_id}.moves.json"
    if stored.exists():
        return json.loads(stored.read_text())
    return rules_docs.move_schema(rules.get(rules_id))  # a game kept outside this repository


@functools.cache
def _doc_of(rules_id: str) -> str | None:
    page = GAME_DOCS / f"{rules_id}.md"
    return page.read_text() if page.exists() else None


def bots_catalogue() -> list[dict[str, Any]]:
    """Every bot, with its levels, as `GET /api/bots/` lists it."""
    return [spec.describe() for spec in bots.catalog().values()]


def health() -> dict[str, str]:
    """Whether this process reaches the database and the broker; any failure is the answer."""
    checks = {"database": _database_check(), "broker": dispatch.broker_check()}
    return {"status": "ok" if all(value == "ok" for value in checks.values()) else "degraded", **checks}


def _database_check() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return "ok"
    except Exception as error:  # any failure is the answer
        return f"error: {type(error).__name__}"


# --- what play by email reads (mail) -----------------------------------------------------------


def mail_account(*, user_id: int) -> dict[str, Any] | None:
    """Who an account is to the mailer: its name, address and the notices it wants."""
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        return None
    account = Account.objects.filter(user=user).first()
    wants = {notice: account.wants(notice) if account else True for notice in Account.NOTICES}
    return {"user": user, "username": user.username, "email": user.email, "notify": wants}


def accounts_with_email(*, email: str) -> list[int]:
    """The accounts that gave this address (a bounce names an address, not an account)."""
    return list(User.objects.filter(email__iexact=email).values_list("pk", flat=True))


def user_get(*, user_id: int) -> Any:
    return User.objects.get(pk=user_id)


def move_read(*, game: Game, user: Any, text: str) -> dict[str, Any]:
    """A move written in the rules' human notation (`parse_move`), read in the game's position
    now for the caller's seat; the rules' error when it does not read."""
    seat = seat_of(game=game, user=user)
    if seat is None:
        raise errors.NotAPlayer(f"you have no seat in game {game.pk}")
    return store.rules_of(game).parse_move(store.state_at(game), seat, text)


def events_since_own_move(*, game: Game, user: Any, limit: int = 40) -> list[dict[str, Any]]:
    """What happened since the caller's seat last acted (at most the last `limit` events), in
    notation, as the seat may see it."""
    seat = seat_of(game=game, user=user)
    mine = Event.objects.filter(game=game, seat=seat, kind__in=[EventKind.MOVE, EventKind.TIMEOUT])
    last = mine.order_by("-seq").values_list("seq", flat=True).first() if seat is not None else None
    after = max(last or 0, game.seq - limit)
    return events_visible(game=game, user=user, after=after, notation=True)


def accounts_with_any_email() -> list[int]:
    """Every account that gave an address (those play by email may write to)."""
    return list(User.objects.exclude(email="").values_list("pk", flat=True))


def moves_unchanged_since(*, game: Game, user: Any, since: int) -> bool:
    """Whether a reply written for the position at `since` still means the same now: the caller's
    seat has not acted since, and was to act then with the very moves it has now (so in a
    simultaneous step another seat's secret choice does not make a mail stale)."""
    seat = seat_of(game=game, user=user)
    if seat is None or not 1 <= since <= game.seq:
        return False
    if Event.objects.filter(game=game, seq__gt=since, seat=seat).exists():
        return False
    game_rules = store.rules_of(game)
    then, now = store.state_at(game, since), store.state_at(game)
    if seat not in game_rules.to_act(then) or seat not in game.to_act:
        return False
    return game_rules.legal_moves(then, seat) == game_rules.legal_moves(now, seat)


def game_has_addressees(*, game_id: int) -> bool:
    """Whether some seat of the game is an account with an email address (anyone to mail)."""
    return Seat.objects.filter(game_id=game_id, user__isnull=False).exclude(user__email="").exists()


# --- a game's life beyond its moves (games.services.life) ----------------------------------------

DRAW_OFFERED, DRAW_ACCEPTED, DRAW_DECLINED = "draw_offered", "draw_accepted", "draw_declined"


def pending_proposals(*, game: Game) -> dict[str, Any]:
    """The draw offer and takeback request pending in a running game; one look at the log when
    none was ever made (the usual case, read on every poll of the game)."""
    types = [DRAW_OFFERED, TAKEBACK_REQUESTED]
    if game.status != GameStatus.ACTIVE or not Event.objects.filter(game=game, payload__type__in=types).exists():
        return {"draw_offer": None, "takeback_request": None}
    return {"draw_offer": draw_offer(game=game), "takeback_request": takeback_request(game=game)}


def draw_offer(*, game: Game) -> dict[str, Any] | None:
    """The draw on offer now, `{"by", "seq", "accepted"}`, or None: the newest offer, unless
    declined since or its seat has moved since."""
    offered = (
        Event.objects.filter(game=game, kind=EventKind.SYSTEM, payload__type=DRAW_OFFERED).order_by("-seq").first()
    )
    if offered is None:
        return None
    since = list(Event.objects.filter(game=game, seq__gt=offered.seq).values_list("kind", "seat", "payload"))
    if any(kind == EventKind.MOVE and seat == offered.seat for kind, seat, _ in since):
        return None
    if any(payload.get("type") == DRAW_DECLINED for _, _, payload in since):
        return None
    accepted = sorted({seat for _, seat, payload in since if payload.get("type") == DRAW_ACCEPTED})
    return {"by": offered.seat, "seq": offered.seq, "accepted": accepted}


def still_playing(*, game: Game) -> list[int]:
    """The seats not out of the game (resigned, or forfeited on time)."""
    out = set(Event.objects.filter(game=game, payload__forfeit=True).values_list("seat", flat=True))
    return [seat for seat in range(game.players) if seat not in out]


TAKEBACK_REQUESTED, TAKEBACK_ACCEPTED, TAKEBACK_DECLINED = "takeback_requested", "takeback_accepted", "takeback_declined"


def takeback_request(*, game: Game) -> dict[str, Any] | None:
    """The takeback asked for now, `{"by", "seq", "undo", "accepted"}`, or None: the newest
    request, unless declined, carried out, or overtaken by anyone's move since."""
    asked = Event.objects.filter(game=game, kind=EventKind.SYSTEM, payload__type=TAKEBACK_REQUESTED).order_by("-seq").first()
    if asked is None:
        return None
    since = list(Event.objects.filter(game=game, seq__gt=asked.seq).values_list("kind", "payload"))
    ended = (TAKEBACK_DECLINED, store.TAKEBACK)
    if any(kind in (EventKind.MOVE, EventKind.TIMEOUT) or payload.get("forfeit") or payload.get("type") in ended
           for kind, payload in since):
        return None
    accepted = sorted(set(Event.objects.filter(game=game, seq__gt=asked.seq, payload__type=TAKEBACK_ACCEPTED)
                          .values_list("seat", flat=True)))
    return {"by": asked.seat, "seq": asked.seq, "undo": asked.payload["undo"], "accepted": accepted}


# --- chat (games.services.chat) -----------------------------------------------------------------


def chat_channel(*, game: Game, user: Any) -> str:
    """Where the caller talks: with the players if seated, else with the spectators."""
    return ChatChannel.PLAYERS if seat_of(game=game, user=user) is not None else ChatChannel.SPECTATORS


def chat_lines(*, game: Game, user: Any, after: int = 0, limit: int = 200) -> list[dict[str, Any]]:
    """The chat lines the caller may read after id `after`: its own channel while the game runs,
    both once it is over; none from accounts it muted."""
    lines = ChatMessage.objects.filter(game=game, id__gt=after).select_related("user").order_by("id")
    if game.status != GameStatus.FINISHED:
        lines = lines.filter(channel=chat_channel(game=game, user=user))
    if user.is_authenticated:
        lines = lines.exclude(user__in=ChatMute.objects.filter(user=user).values("muted"))
    return [
        {"id": line.pk, "channel": line.channel, "username": line.user.username, "text": line.text, "at": line.created_at}
        for line in lines[:limit]
    ]


def last_person_move_at(*, game: Game) -> dt.datetime:
    """When a person (not a bot, not a timeout) last moved in the game; its creation if never."""
    people = [seat.index for seat in game.seats.all() if seat.user_id is not None]
    moved = (
        Event.objects.filter(game=game, kind=EventKind.MOVE, seat__in=people)
        .order_by("-seq").values_list("created_at", flat=True).first()
    )
    return moved or game.created_at


def games_maybe_abandoned(*, before: dt.datetime) -> list[int]:
    """Games being played that nothing has touched since `before` (the abandonment sweep's
    candidates: a bot's moves touch a game, and a person's are checked one by one)."""
    return list(Game.objects.filter(status=GameStatus.ACTIVE, created_at__lt=before).values_list("pk", flat=True))


# --- for competitive play (`competition`): finished games as the ratings and tournaments read them


def finished_games(*, changed_since: dt.datetime | None = None, game_ids: list[int] | None = None,
                   rules_id: str | None = None, rated_only: bool = True) -> list[dict[str, Any]]:
    """Finished games in the order they finished (their last event's time, then id), each with
    its rules, time control, result and seats ({index, user_id, username, is_bot, bot, level}).
    `changed_since` keeps those whose row changed at or after it (a game's row changes last when
    it finishes); `game_ids` and `rules_id` only those."""
    games = Game.objects.filter(status=GameStatus.FINISHED)
    if rated_only:
        games = games.filter(rated=True)
    if game_ids is not None:
        games = games.filter(pk__in=game_ids)
    if rules_id is not None:
        games = games.filter(rules=rules_id)
    if changed_since is not None:
        games = games.filter(updated_at__gte=changed_since)
    # Plain rows, not model instances: a rebuild reads every finished game (`bench.competition`).
    rows = list(games.annotate(finished_at=Max("events__created_at")).order_by("finished_at", "pk")
                .values("pk", "rules", "players", "time_control", "rated", "private", "result", "finished_at"))
    seats: dict[int, list[dict[str, Any]]] = {}
    for seat in (Seat.objects.filter(game__in=games.values("pk")).order_by("game_id", "index")
                 .values("game_id", "index", "user_id", "user__username", "user__account__is_bot", "bot", "bot_level")):
        seats.setdefault(seat["game_id"], []).append({
            "index": seat["index"],
            "user_id": seat["user_id"],
            "username": seat["user__username"],
            "is_bot": bool(seat["bot"]) or bool(seat["user__account__is_bot"]),
            "bot": seat["bot"],
            "level": seat["bot_level"],
        })
    for row in rows:
        row["id"] = row.pop("pk")
        row["seats"] = seats.get(row["id"], [])
    return rows


def games_hidden_from(*, user: Any, game_ids: Any) -> set[int]:
    """Of `game_ids`, the private games `user` may not see (a profile's history leaves them out)."""
    private = Game.objects.filter(pk__in=game_ids, private=True)
    return set(private.exclude(pk__in=Game.objects.filter(visible_games(user)).values("pk")).values_list("pk", flat=True))


def games_current(*, user: Any) -> list[dict[str, Any]]:
    """The account's games being played now, newest first (a profile's "current games")."""
    games = Game.objects.filter(status=GameStatus.ACTIVE, seats__user=user, private=False).order_by("-pk")[:50]
    return [{"id": game.pk, "rules": game.rules, "players": game.players, "rated": game.rated,
             "time_control": game.time_control or None} for game in games]


def is_bot_account(*, user: Any) -> bool:
    return Account.objects.filter(user=user, is_bot=True).exists()
