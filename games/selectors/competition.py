"""For competitive play (`competition`): finished games as the ratings and tournaments read
them, and an account's games being played (a profile's "current games")."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import Exists, Max, OuterRef

from games.models import Event, EventKind, Game, GameStatus, Seat
from games.selectors.events import SEAT_TAKEN, STAND_IN, STAND_IN_LEFT


def finished_games(*, changed_since: dt.datetime | None = None, game_ids: list[int] | None = None,
                   rules_id: str | None = None, rated_only: bool = True) -> list[dict[str, Any]]:
    """Finished games in the order they finished (their last event's time, then id), each with
    its rules, time control, result, seats ({index, user_id, username, is_bot, bot, level}) and
    `absent`: the seats whose player never came (`seats_absent`), in seat order.
    `changed_since` keeps those that finished at or after it; `game_ids` and `rules_id` only
    those."""
    games = Game.objects.filter(status=GameStatus.FINISHED)
    if rated_only:
        games = games.filter(rated=True)
    if game_ids is not None:
        games = games.filter(pk__in=game_ids)
    if rules_id is not None:
        games = games.filter(rules=rules_id)
    if changed_since is not None:
        games = games.filter(finished_at__gte=changed_since)
    # Plain rows, not model instances: a rebuild reads every finished game (`bench.competition`).
    # A game's finish, for the fold's order, is its last event's time (the row's `finished_at` is
    # stamped a moment later, inside the same transaction).
    # Only a game with a timeout can have a seat that never came: its log is read, no other's
    # (each game's timeouts are found through its own (game, seq) index range).
    timed_out = Exists(Event.objects.filter(game_id=OuterRef("pk"), kind=EventKind.TIMEOUT))
    rows = list(games.annotate(last_event_at=Max("events__created_at"), timed_out=timed_out)
                .order_by("last_event_at", "pk")
                .values("pk", "rules", "players", "time_control", "rated", "private", "result", "last_event_at",
                        "timed_out"))
    absent = seats_absent(game_ids=[row["pk"] for row in rows if row["timed_out"]])
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
        row["finished_at"] = row.pop("last_event_at")
        row["seats"] = seats.get(row["id"], [])
        del row["timed_out"]
        row["absent"] = sorted(absent.get(row["id"], ()))
    return rows


def seats_absent(*, game_ids: list[int]) -> dict[int, set[int]]:
    """Per game, the seats whose player never came: every turn of theirs timed out or was played
    by a stand-in bot, and nothing else of theirs is in the log (no move, offer or resignation;
    only being seated, a stand-in taking over and the resignation their timeouts brought).
    Arbiters score such a game as a forfeit, not a game."""
    timed_out: dict[int, set[int]] = {}
    present: dict[int, set[int]] = {}
    stood_in: set[tuple[int, int]] = set()  # (game, seat) a stand-in bot plays now, in log order
    rows = (Event.objects.filter(game_id__in=game_ids, seat__isnull=False).order_by("game_id", "seq")
            .values_list("game_id", "seat", "kind", "payload__type", "payload__timeouts_in_a_row"))
    for game_id, seat, kind, type_, timeouts_in_a_row in rows:
        if kind == EventKind.TIMEOUT:
            timed_out.setdefault(game_id, set()).add(seat)
        elif kind == EventKind.SYSTEM and type_ == STAND_IN:
            stood_in.add((game_id, seat))
        elif kind == EventKind.SYSTEM and type_ == STAND_IN_LEFT:
            stood_in.discard((game_id, seat))
            present.setdefault(game_id, set()).add(seat)  # the owner came back
        elif kind == EventKind.MOVE and (game_id, seat) in stood_in:
            continue  # the stand-in's move
        elif kind == EventKind.MOVE or not (type_ == SEAT_TAKEN or timeouts_in_a_row):
            present.setdefault(game_id, set()).add(seat)
    return {game_id: seats - present.get(game_id, set()) for game_id, seats in timed_out.items()}


def games_current(*, user: Any) -> list[dict[str, Any]]:
    """The account's games being played now, newest first (a profile's "current games")."""
    games = Game.objects.filter(status=GameStatus.ACTIVE, seats__user=user, private=False).order_by("-pk")[:50]
    return [{"id": game.pk, "rules": game.rules, "players": game.players, "rated": game.rated,
             "time_control": game.time_control or None} for game in games]
