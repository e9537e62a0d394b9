"""The log as a seat may see it: another seat's secret choice shows only as the rules' public form
until the game ends; with notation, each event as text."""

from __future__ import annotations

import datetime as dt
from typing import Any

from games import store, stores, words
from games.models import Event, EventKind, Game, GameStatus, IdempotencyKey
from games.selectors.access import seat_of
from rules import notation as move_notation
from rules.words import msg


def events_visible(*, game: Game, user: Any, after: int = 0, upto: int | None = None,
                   notation: bool = False) -> list[dict[str, Any]]:
    """The log after `after` (up to `upto`) as the caller may see it; with `notation`, each event also has
    `text`, the event in the reader's words (a move described in them), and `notation`, a move's
    notation as a reply types it (the rules' `describe_move`; None for an event that is no move
    the caller may see)."""
    seat = seat_of(game=game, user=user)
    everything = game.status == GameStatus.FINISHED
    events = stores.current().events(game.pk, after=after, upto=upto)
    if not notation:
        return [event_visible(event, seat, everything) for event in events]
    return _with_texts(game, events, seat, everything)


def _with_texts(game: Game, events: list[Event], seat: int | None, everything: bool) -> list[dict[str, Any]]:
    """Each event with its text, folding forward once from the state before the first (a move's
    notation is read in the state it was played in) up to the last, which no text is read in: a
    page asks for the one new event at every move."""
    game_rules = store.rules_of(game)
    state = store.state_at(game, events[0].seq - 1) if events and events[0].seq > 1 else None
    told = []
    for number, event in enumerate(events):
        text, notation = _event_text(game_rules, state, event, seat, everything)
        told.append({**event_visible(event, seat, everything), "text": words.translated(text), "notation": notation})
        if number + 1 < len(events):  # the last event's state is nobody's question
            state = store.fold_event(
                game_rules, game.seed, state, event.kind, event.seat, event.payload, earlier=lambda seq: store.state_at(game, seq)
            )
    return told


def _event_text(game_rules: Any, state: Any, event: Event, seat: int | None, everything: bool) -> tuple[str, str | None]:
    """The event in words (`rules.words`: English, to be translated), and a move's notation where
    the seat may see the move (the same text in English: the rules write a move's words so)."""
    payload = event.payload
    if event.kind == EventKind.CREATED:
        return msg("game created"), None
    if event.kind == EventKind.SYSTEM:
        return _system_text(payload), None
    public_move = (event.public_payload or {}).get("move")
    shown = everything or (seat is not None and event.seat == seat) or payload == event.public_payload or (
        # a public copy that adds to the move (a tile it drew, shown to all) hides nothing of it
        isinstance(public_move, dict) and isinstance(payload.get("move"), dict) and public_move.items() >= payload["move"].items()
    )
    if not shown:
        return msg("chose in secret"), None
    move = payload.get("move")  # an event's payload holds the move and what came of it
    if not isinstance(move, dict):
        return (msg("timeout: forfeit") if payload.get("forfeit") else msg("timeout")), None
    try:
        text = game_rules.describe_move(state, event.seat, move)
    except Exception:  # a move as stored that the notation does not read back: its fields say enough
        text = _fields_text(move)
    return (msg("timeout: {move}", move=text) if event.kind == EventKind.TIMEOUT else text), str(text)


def _fields_text(move: dict[str, Any]) -> str:
    if "type" in move:
        return move_notation.fields_text(move)
    return " ".join(f"{key.replace('_', ' ')} {move_notation.value_text(value)}" for key, value in move.items())


def _system_text(payload: dict[str, Any]) -> str:
    if payload.get("type") == store.TAKEBACK:
        return msg("takeback: event {seq} undone", seq=payload["undo"])
    if payload.get("type") == "seat_taken":
        who = payload.get("username") or msg("bot {name}", name=payload.get("bot"))
        return msg("{who} takes a seat", who=who)
    kind = str(payload.get("type", "system"))
    return SYSTEM_WORDS.get(kind) or kind.replace("_", " ")


# The system events' words (games.services.life, lobby), translatable (rules.words).
SYSTEM_WORDS = {
    "game_started": msg("game started"), "resign": msg("resign"), "abort": msg("abort"), "seat_left": msg("seat left"),
    "cancel": msg("cancel"), "adjourned": msg("adjourned"), "draw_offered": msg("draw offered"),
    "draw_accepted": msg("draw accepted"), "draw_declined": msg("draw declined"), "draw_agreed": msg("draw agreed"),
    "takeback_requested": msg("takeback requested"), "takeback_accepted": msg("takeback accepted"),
    "takeback_declined": msg("takeback declined"),
}


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


def events_since_own_move(*, game: Game, user: Any, limit: int = 40) -> list[dict[str, Any]]:
    """What happened since the caller's seat last acted (at most the last `limit` events), in
    notation, as the seat may see it."""
    seat = seat_of(game=game, user=user)
    mine = Event.objects.filter(game=game, seat=seat, kind__in=[EventKind.MOVE, EventKind.TIMEOUT])
    last = mine.order_by("-seq").values_list("seq", flat=True).first() if seat is not None else None
    after = max(last or 0, game.seq - limit)
    return events_visible(game=game, user=user, after=after, notation=True)


FORCED_KEY_PREFIX = "forced-"  # the idempotency key of a move the server played for its seat


def move_was_forced(*, game_id: int, seq: int) -> bool:
    """Whether the move at `seq` was a forced one the server played for its seat (nobody was
    answered for it, so the seat still needs telling what follows)."""
    return IdempotencyKey.objects.filter(event__game_id=game_id, event__seq=seq, key__startswith=FORCED_KEY_PREFIX).exists()


def starts_game(event: dict[str, Any]) -> bool:
    """Whether a visible event (`event_visible`) is the one that started its game."""
    return event["kind"] == EventKind.SYSTEM and event["payload"].get("type") == "game_started"
