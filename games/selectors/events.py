"""The log as a seat may see it: another seat's secret choice shows only as the rules' public form
until the game ends; with notation, each event as text."""

from __future__ import annotations

import datetime as dt
from typing import Any

from games import store, stores, words
from games.models import Event, EventKind, Game, GameStatus, IdempotencyKey
from games.selectors.access import seat_of
from rules import notation as move_notation
from rules.words import msg, nmsg


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
    """Each event with its text and its player (`by`), folding forward once from the state before
    the first (a move's notation is read in the state it was played in) up to the last, which no
    text is read in: a page asks for the one new event at every move."""
    game_rules = store.rules_of(game)
    state = store.state_at(game, events[0].seq - 1) if events and events[0].seq > 1 else None
    told = []
    for number, (event, by) in enumerate(zip(events, _players_then(game, events), strict=True)):
        text, notation = _event_text(game_rules, state, event, seat, everything, by)
        told.append({**event_visible(event, seat, everything), "text": words.translated(text), "notation": notation,
                     "by": by})
        if number + 1 < len(events):  # the last event's state is nobody's question
            state = store.fold_event(
                game_rules, game.seed, state, event.kind, event.seat, event.payload, earlier=lambda seq: store.state_at(game, seq)
            )
    return told


def _event_text(game_rules: Any, state: Any, event: Event, seat: int | None, everything: bool,
                by: dict[str, Any] | None) -> tuple[str, str | None]:
    """The event in words (`rules.words`: English, to be translated), and a move's notation where
    the seat may see the move (the same text in English: the rules write a move's words so). A
    system event names its player (`by`) in its own words; a move's player is told beside it."""
    payload = event.payload
    if event.kind == EventKind.CREATED:
        return msg("game created"), None
    if event.kind == EventKind.SYSTEM:
        return _system_text(payload, by and _player_said(by)), None
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


SEAT_TAKEN, SEAT_LEFT = "seat_taken", "seat_left"
# A stand-in bot takes a person's seat after a timeout (the `bot` policy) and leaves it when the
# owner comes back; what the seat does in between is the bot's.
STAND_IN, STAND_IN_LEFT = "stand_in", "stand_in_left"


def player_of(seat: Any) -> dict[str, Any]:
    """A seat row's player as the API names one: an account's `username`, or a `bot` and its level."""
    return {"username": seat.user.username if seat.user else None,
            "bot": {"name": seat.bot, "level": seat.bot_level} if seat.bot else None}


def _players_then(game: Game, events: list[Event]) -> list[dict[str, Any] | None]:
    """Who acted in each event (None for no seat), as the log tells it. A seat is taken and left
    only while the game waits for its players, and those events name their player: every other
    event of a seat comes after the start, when its player is the one the seat's last `seat_taken`
    named, as the game lists the seats, or a stand-in bot between its `stand_in` and
    `stand_in_left`. A seat taken after the game was read (the page's read of the game, then of
    the log) is among the events, and names its player for those after it."""
    owners = {seat.index: player_of(seat) for seat in game.seat_rows()}
    players = {**owners, **_stand_ins_as_events_begin(game, events)}
    found = []
    for event in events:
        named = _named_in(event)
        kind = _system_kind(event)
        if named is not None and kind == SEAT_TAKEN:
            players[event.seat] = owners[event.seat] = named
        elif kind == STAND_IN_LEFT:
            players[event.seat] = owners.get(event.seat)  # the owner is back: this event is theirs
        found.append(None if event.seat is None else named or players.get(event.seat))
        if kind == STAND_IN:
            players[event.seat] = _bot_player(event.payload["bot"])  # what the seat does next is the bot's
    return found


def _system_kind(event: Event) -> str | None:
    return event.payload.get("type") if event.kind == EventKind.SYSTEM and event.seat is not None else None


def _stand_ins_as_events_begin(game: Game, events: list[Event]) -> dict[int, dict[str, Any]]:
    """The stand-in bots playing a seat when `events` begin (a page reads only the log's new
    events): the bot a seat's first `stand_in_left` among them names, if that comes before any
    `stand_in` of the seat; else the seat's stand-in now, if none of them took the seat."""
    first: dict[int, Event] = {}
    for event in events:
        if _system_kind(event) in (STAND_IN, STAND_IN_LEFT):
            first.setdefault(event.seat, event)
    playing = {}
    for seat in game.seat_rows():
        event = first.get(seat.index)
        if event is None and seat.stand_in:
            playing[seat.index] = _bot_player(seat.stand_in)
        elif event is not None and event.payload["type"] == STAND_IN_LEFT:
            playing[seat.index] = _bot_player(event.payload["bot"])
    return playing


def _bot_player(name: str) -> dict[str, Any]:
    return {"username": None, "bot": {"name": name, "level": None}}


def _named_in(event: Event) -> dict[str, Any] | None:
    """The player a seat's taking or leaving names in its payload (`games.services.lobby`, `life`)."""
    payload = event.payload
    if event.kind != EventKind.SYSTEM or event.seat is None or payload.get("type") not in (SEAT_TAKEN, SEAT_LEFT):
        return None
    bot = {"name": payload["bot"], "level": payload.get("level")} if payload.get("bot") else None
    return {"username": payload.get("username"), "bot": bot}


def _player_said(player: dict[str, Any]) -> str:
    """A player in words: the account's name, or "bot random"."""
    return player["username"] or msg("bot {name}", name=player["bot"]["name"])


def _system_text(payload: dict[str, Any], who: str | None) -> str:
    """A system event in words: its seat's player, `who`, named in them where it acted."""
    kind = str(payload.get("type", "system"))
    if kind == store.TAKEBACK:
        return msg("takeback: event {seq} undone", seq=payload["undo"])
    said = SYSTEM_WORDS.get(kind) or kind.replace("_", " ")
    if who is None:
        return said
    if kind in SEAT_WORDS:
        return SEAT_WORDS[kind](who, payload)
    return msg("{who}: {said}", who=who, said=said)


def _resigned(who: str, payload: dict[str, Any]) -> str:
    count = payload.get("timeouts_in_a_row")
    if not count:
        return msg("{who} resigns", who=who)
    return nmsg("{who} resigns after {count} timeout in a row", "{who} resigns after {count} timeouts in a row", count,
                who=who)


# The system events' words (games.services.life, lobby), translatable (rules.words): the kind alone,
# for an event of no seat (or whose player the log does not name).
SYSTEM_WORDS = {
    "game_started": msg("game started"), "resign": msg("resign"), "abort": msg("abort"), "seat_left": msg("seat left"),
    "cancel": msg("cancel"), "adjourned": msg("adjourned"), "draw_offered": msg("draw offered"),
    "draw_accepted": msg("draw accepted"), "draw_declined": msg("draw declined"), "draw_agreed": msg("draw agreed"),
    "takeback_requested": msg("takeback requested"), "takeback_accepted": msg("takeback accepted"),
    "takeback_declined": msg("takeback declined"),
    STAND_IN: msg("a stand-in bot takes the seat"), STAND_IN_LEFT: msg("the stand-in bot leaves the seat"),
}

# A seat's own act, its player named once in the words (a page, a mail shows no "ann: " before them).
SEAT_WORDS = {
    SEAT_TAKEN: lambda who, _: msg("{who} takes a seat", who=who),
    SEAT_LEFT: lambda who, _: msg("{who} leaves the seat", who=who),
    "resign": _resigned,
    "abort": lambda who, _: msg("{who} aborts the game", who=who),
    "draw_offered": lambda who, _: msg("{who} offers a draw", who=who),
    "draw_accepted": lambda who, _: msg("{who} accepts the draw", who=who),
    "draw_declined": lambda who, _: msg("{who} declines the draw", who=who),
    "takeback_requested": lambda who, _: msg("{who} asks to take back a move", who=who),
    "takeback_accepted": lambda who, _: msg("{who} accepts the takeback", who=who),
    "takeback_declined": lambda who, _: msg("{who} declines the takeback", who=who),
    STAND_IN: lambda who, payload: msg("bot {bot} plays for {who}", bot=payload.get("bot"), who=who),
    STAND_IN_LEFT: lambda who, _: msg("{who} is back and plays again", who=who),
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
