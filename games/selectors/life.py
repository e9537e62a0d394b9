"""A game's life beyond its moves (`games.services.life`): the draw offer and takeback request
pending, the seats still playing, and what the abandonment sweep reads."""

from __future__ import annotations

import datetime as dt
from typing import Any

from games import store, stores
from games.models import Event, EventKind, Game, GameStatus

DRAW_OFFERED, DRAW_ACCEPTED, DRAW_DECLINED = "draw_offered", "draw_accepted", "draw_declined"


def life_facts(*, game: Game) -> dict[str, Any]:
    """`pending_proposals` and `playing` (`still_playing`) from one look at the log: what a game's
    answer says at each seq beyond the game row."""
    marks = _marks(game)
    return {**_pending(game, marks), "playing": _playing(game, marks)}


def pending_proposals(*, game: Game) -> dict[str, Any]:
    """The draw offer and takeback request pending in a running game; one look at the log when
    none was ever made (the usual case)."""
    return _pending(game, _marks(game))


def _marks(game: Game) -> list[tuple[int | None, str | None, bool]]:
    """The events that mark the game's life: proposals made and seats put out (`Store.life_marks`)."""
    return stores.current().life_marks(game.pk, PROPOSALS)


def _pending(game: Game, marks: list[tuple[int | None, str | None, bool]]) -> dict[str, Any]:
    if game.status != GameStatus.ACTIVE or not any(kind in PROPOSALS for _, kind, _ in marks):
        return {"draw_offer": None, "takeback_request": None}
    return {"draw_offer": draw_offer(game=game), "takeback_request": takeback_request(game=game)}


def _playing(game: Game, marks: list[tuple[int | None, str | None, bool]]) -> list[int]:
    out = {seat for seat, _, forfeit in marks if forfeit}
    return [seat for seat in range(game.players) if seat not in out]


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
    return _playing(game, _marks(game))


TAKEBACK_REQUESTED, TAKEBACK_ACCEPTED, TAKEBACK_DECLINED = "takeback_requested", "takeback_accepted", "takeback_declined"
PROPOSALS = (DRAW_OFFERED, TAKEBACK_REQUESTED)  # the events that may leave something pending


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
