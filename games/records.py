"""A finished game's record, a self-contained file anyone can check without us
(`python -m rules.verify record.json`): the rules id and version, the options, the seats, every
event with its hash-chain fields, the seed's commitment, the seed, and the result.

Only a finished game has one (its seed, and with it every event's private payload, is public
only then), and a private game's record only for its players: anyone else is told there is no
such game, exactly as for an id that does not exist.

A player's finished games export as NDJSON (`player_records`), one record a line, each exactly
the single game's record, so each line verifies alone; a private game only to a caller who sat
in it.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Iterator

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils.dateparse import parse_date, parse_datetime

from accounts import errors as account_errors
from games import errors, selectors, store
from games.models import Event, Game, GameStatus, Seat
from games.words import state_said
from rules.verify import FORMAT
from rules.words import msg

FORMAT_VERSION = 1


def game_record(*, game_id: int, user: Any) -> dict[str, Any]:
    game = selectors.game_get(game_id=game_id)
    if game.private and selectors.seat_of(game=game, user=user) is None:
        raise errors.GameNotFound(msg("there is no game {id}", id=game_id))
    if game.status != GameStatus.FINISHED:
        raise errors.GameNotFinished(msg("game {game_id} is {status}: its record, and its seed, come when it ends", game_id=game_id, status=state_said(game.status)))
    return record_of(game)


def record_of(game: Game) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": game.pk,
        "rules": {"id": game.rules, "version": store.recorded_version(game)},
        "players": game.players,
        "options": game.options,
        "seats": selectors.seats_of(game=game),
        "seed_sha256": game.seed_sha256,
        "seed": game.seed,
        "result": game.result,
        "events": [_event(e) for e in Event.objects.filter(game=game).order_by("seq")],
    }


def _event(event: Event) -> dict[str, Any]:
    return {
        "seq": event.seq,
        "kind": event.kind,
        "seat": event.seat,
        "payload": event.payload,
        "public_payload": event.public_payload,
        "created_at": event.created_at.isoformat(),
        "prev_hash": event.prev_hash,
        "private_digest": event.private_digest,
        "hash": event.hash,
    }


# --- a player's games, in bulk ---------------------------------------------------------------

RESULTS = ("won", "lost", "drawn", "none")  # as the player's seat came out of the game
EXPORT_BATCH = 50  # games read from the database at a time, while the answer streams


def player_games(*, username: str, viewer: Any, since: str | None = None, until: str | None = None,
                 rules_id: str | None = None, result: str | None = None) -> tuple[Any, list[int]]:
    """Checks the filters (InvalidInput names each bad one) and picks the games: the player's
    finished games, oldest first, a private one only if `viewer` sat in it. Returns the player
    and the games' ids; the records are made as they are sent (`records_of`)."""
    player = get_user_model().objects.filter(username=username).first()
    if player is None:
        raise account_errors.PlayerNotFound(msg("there is no player {username!r}", username=username))
    bounds = {name: _moment(name, value, end=name == "until") for name, value in (("since", since), ("until", until))}
    if result is not None and result not in RESULTS:
        raise errors.InvalidInput(msg("result is one of {results}", results=', '.join(RESULTS)), fields={"result": ["unknown result"]})
    games = Game.objects.filter(seats__user=player, status=GameStatus.FINISHED)
    if viewer is not None and getattr(viewer, "is_authenticated", False):
        games = games.filter(Q(private=False) | Q(pk__in=Seat.objects.filter(user=viewer).values("game_id")))
    else:
        games = games.filter(private=False)
    if rules_id:
        games = games.filter(rules=rules_id)
    if bounds["since"] is not None:
        games = games.filter(finished_at__gte=bounds["since"])
    if bounds["until"] is not None:
        games = games.filter(finished_at__lt=bounds["until"])
    rows = list(games.order_by("finished_at", "pk").values_list("pk", "result"))
    seat_in = dict(Seat.objects.filter(user=player, game_id__in=[pk for pk, _ in rows]).values_list("game_id", "index"))
    picked = [pk for pk, outcome in rows if result is None or _came_out(outcome, seat_in.get(pk)) == result]
    return player, list(dict.fromkeys(picked))


def records_of(game_ids: list[int]) -> Iterator[dict[str, Any]]:
    """The records of the games, read a batch at a time as they are sent."""
    for start in range(0, len(game_ids), EXPORT_BATCH):
        batch = game_ids[start:start + EXPORT_BATCH]
        found = {game.pk: game for game in Game.objects.filter(pk__in=batch)}
        for game_id in batch:
            if game_id in found:
                yield record_of(found[game_id])


def _came_out(result: dict | None, seat: int | None) -> str:
    winners = (result or {}).get("winners") or []
    if not winners:
        return "none"
    if seat not in winners:
        return "lost"
    scores = (result or {}).get("scores") or []
    return "drawn" if len(winners) > 1 and len(winners) == len([s for s in scores if s]) else "won"


def _moment(name: str, value: str | None, *, end: bool) -> dt.datetime | None:
    """An ISO 8601 date or date-time; a bare date `until` includes its whole day."""
    if value in (None, ""):
        return None
    try:
        day = parse_date(value) if len(value) == 10 else None  # a bare date (which fromisoformat reads as midnight)
        moment = None if day is not None else parse_datetime(value)
    except ValueError:
        moment = day = None
    if moment is None and day is None:
        raise errors.InvalidInput(msg("{name} is an ISO 8601 date or date-time, not {value!r}", name=name, value=value),
                                  fields={name: ["not a date"]})
    if moment is None:
        if end and day == dt.date.max:  # until the calendar's last day: no end at all (its next day does not exist)
            return None
        moment = dt.datetime.combine(day + dt.timedelta(days=1 if end else 0), dt.time(), tzinfo=dt.timezone.utc)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return moment
