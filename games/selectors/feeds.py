"""What the apps beside `games` follow (the account feed, streams, hooks, mail's fan-out): an
account's games as the feed compares them, who sits where, the games with news since a time,
and the deadline warnings due."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.db.models import F, Prefetch, Q

from games import deadlines, errors
from games.models import Event, EventKind, Game, GameStatus, Seat
from games.selectors.access import seat_of
from games.selectors.game import earliest_deadline
from rules.words import msg


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
        "deadline": earliest_deadline(deadlines.deadlines_of(game)),
        "deadline_warning": deadlines.deadline_warning_due(game, seat),
        "result": game.result,
    }


def account_seats(*, game_id: int) -> dict[int, int]:
    """Who sits where: account id -> seat (a built-in bot's seat has no account)."""
    return dict(Seat.objects.filter(game_id=game_id, user__isnull=False).values_list("user_id", "index"))


def account_game_of(*, game_id: int, seat: int | None, adjourned: bool = False) -> dict[str, Any]:
    """One game as the account feed sees it (`account_game`), for the account in `seat`; with
    `adjourned`, its `aborts_at` too (one more look, for a game being played)."""
    seats = Prefetch("seats", queryset=Seat.objects.select_related("user"))
    game = Game.objects.prefetch_related(seats, "deadlines").filter(pk=game_id).first()
    if game is None:
        raise errors.GameNotFound(msg("there is no game {id}", id=game_id))
    aborts_at = _adjourned_now([game.pk]).get(game.pk) if adjourned and game.status == GameStatus.ACTIVE else None
    return account_game(game, seat, aborts_at)


def game_started_between(*, game_id: int, after: int, upto: int) -> bool:
    """Whether the event that started the game has a seq in `after` < seq <= `upto`."""
    return Event.objects.filter(game_id=game_id, seq__gt=after, seq__lte=upto, kind=EventKind.SYSTEM,
                                payload__type="game_started").exists()


def _recent(since: dt.datetime) -> Q:
    return Q(status__in=[GameStatus.OPEN, GameStatus.ACTIVE]) | Q(events__seq=F("seq"), events__created_at__gte=since)


def games_with_news_since(*, since: dt.datetime) -> dict[int, int]:
    """Every game anyone may have missed news of (open, being played, or whose last event is after
    `since`): game id -> its seq. For a follower that knows no accounts to narrow it by."""
    return dict(Game.objects.filter(_recent(since)).values_list("pk", "seq").distinct())


def games_moved_since(*, user_ids: list[int], game_ids: list[int], since: dt.datetime) -> list[dict[str, Any]]:
    """The games a follower of these accounts (or of these games) may have missed news of: those
    open or being played, and those whose last event is after `since`. Each as
    `{"game", "seq", "accounts": {account id: seat}}`."""
    recent = _recent(since)
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
            "deadline": earliest_deadline(deadlines.deadlines_of(game)),
        }
        for game in games
        for seat in game.seats.all()
        if deadlines.deadline_warning_due(game, seat.index)
    ]


def game_has_addressees(*, game_id: int) -> bool:
    """Whether some seat of the game is an account with an email address (anyone to mail)."""
    return Seat.objects.filter(game_id=game_id, user__isnull=False).exclude(user__email="").exists()
