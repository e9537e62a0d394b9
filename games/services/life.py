"""A game's life beyond its moves: resigning, aborting, leaving or cancelling an open game, and a
draw by agreement. Each is an event in the log (kind `system`, the acting seat named), taken under
the game's row lock like a move, so it replays, audits and reaches every client as moves do.

- Resign: the seat leaves the game for good; the rules' `forfeit` says what becomes of its
  pieces (in a two-player game the other wins; with more, the others play on). Resigning twice
  is answered with the first resignation.
- Abort: until every seat has made a move of its own, any player may end the game with no
  result (`reason: "aborted"`, no winner); it is never rated.
- Leave and cancel: before the start, a seated player other than the creator leaves its seat
  (it is open again), and the creator cancels the game (`reason: "cancelled"`).
- Takeback: a player asks to undo its own last move, before anyone else has acted on it; each
  other seat still playing accepts or declines. Agreed, a `takeback` event folds the game to the
  state before that move (the log stays append-only). A move that brought chance into play (a
  roll, a draw) or was a secret or simultaneous choice cannot be taken back: undoing it would
  tell something. The request lapses when anyone acts.
- Abandonment: a seat that times out `timeouts_to_resign` turns in a row (3 unless the game says
  otherwise; 0 never) is resigned for; a game in which no person has moved for 60 days is
  adjourned (an event, so every client and the account stream see it), and aborted as abandoned
  if still nobody moves within 7 more days.
- Draw: a player offers; each other seat still in the game accepts or declines. An offer lapses
  when its seat moves again, and is gone when declined; once all accept, the game ends with a
  shared result (every seat still in the game a winner, `reason: "draw_agreed"`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import Q

from games import selectors, store, writer
from games.errors import (
    CreatorCannotLeave,
    DrawNotOffered,
    GameNotActive,
    GameNotOpen,
    NotTheCreator,
    TakebackNotRequested,
    TakebackRefused,
    TooLateToAbort,
)
from games.models import Event, EventKind, Game, GameStatus, Invitation, InvitationStatus, Seat
from games.services.common import hide_from_strangers, seat_of
from games.words import state_said
from rules.words import msg

RESIGN, ABORT, SEAT_LEFT, CANCEL = "resign", "abort", "seat_left", "cancel"
ADJOURNED = selectors.ADJOURNED
DRAW_OFFERED, DRAW_ACCEPTED, DRAW_DECLINED = selectors.DRAW_OFFERED, selectors.DRAW_ACCEPTED, selectors.DRAW_DECLINED
TAKEBACK_REQUESTED, TAKEBACK_ACCEPTED, TAKEBACK_DECLINED = (
    selectors.TAKEBACK_REQUESTED, selectors.TAKEBACK_ACCEPTED, selectors.TAKEBACK_DECLINED,
)


def resign(*, game_id: int, user: Any) -> Event:
    def decide(change: writer.Change) -> Any:
        game = change.game
        hide_from_strangers(game, user)
        seat = seat_of(game, user)
        earlier = _forfeit_of(game, seat)
        if earlier is not None:
            return earlier  # idempotent: the seat is already out
        _check_active(game)
        return _system(change, seat, {"type": RESIGN, "forfeit": True})

    return writer.write(game_id, decide)


def resign_after_timeouts(*, game_id: int, seat: int) -> Event | None:
    """Resign for a seat whose last `timeouts_to_resign` turns in a row all timed out (the seat's
    owner is gone); None while it is below that, or the seat already out."""
    def decide(change: writer.Change) -> Any:
        game = change.game
        limit = game.timeouts_to_resign
        if not limit or game.status != GameStatus.ACTIVE or _forfeit_of(game, seat) is not None:
            return None
        acted = Event.objects.filter(game=game, seat=seat, kind__in=[EventKind.MOVE, EventKind.TIMEOUT]).order_by("-seq")
        kinds = list(acted.values_list("kind", flat=True)[:limit])
        if len(kinds) < limit or any(kind != EventKind.TIMEOUT for kind in kinds):
            return None
        return _system(change, seat, {"type": RESIGN, "forfeit": True, "timeouts_in_a_row": limit})

    return writer.write(game_id, decide)


def abandoned_end(*, game_id: int, at: Any, idle: Any, grace: Any) -> Event | None:
    """A game no person has moved in for `idle` is adjourned (an event every client sees); if
    still nobody moves within `grace`, it is aborted as abandoned. Returns the event made."""
    def decide(change: writer.Change) -> Any:
        game = change.game
        if game.status != GameStatus.ACTIVE:
            return None
        last_person = selectors.last_person_move_at(game=game)
        if last_person > at - idle:
            return None
        adjourned = (
            Event.objects.filter(game=game, payload__type=ADJOURNED, created_at__gt=last_person).order_by("seq").first()
        )
        if adjourned is None:
            return _system(change, None, {"type": ADJOURNED, "idle_days": idle.days, "at": at.isoformat()})
        if dt.datetime.fromisoformat(adjourned.payload["at"]) <= at - grace:
            return _end(change, None, {"type": ABORT, "abandoned": True}, reason="abandoned", winners=[])
        return None

    return writer.write(game_id, decide)


def abort(*, game_id: int, user: Any) -> Event:
    def decide(change: writer.Change) -> Any:
        game = change.game
        hide_from_strangers(game, user)
        seat = seat_of(game, user)
        _check_active(game)
        moved = set(Event.objects.filter(game=game, kind=EventKind.MOVE).values_list("seat", flat=True))
        if moved >= set(range(game.players)):
            raise TooLateToAbort(msg("every seat of game {pk} has moved: resign, or offer a draw", pk=game.pk))
        return _end(change, seat, {"type": ABORT}, reason="aborted", winners=[])

    return writer.write(game_id, decide)


def leave(*, game_id: int, user: Any) -> None:
    """A seated player leaves an open game before it starts (the creator cancels it instead)."""
    def decide(change: writer.Change) -> Any:
        game = change.game
        hide_from_strangers(game, user)
        seat = seat_of(game, user)
        _check_open(game)
        if game.created_by_id == user.pk:
            raise CreatorCannotLeave(msg("you made this game: cancel it instead of leaving it"))
        Seat.objects.filter(game=game, index=seat).delete()
        # a named invitee who took a seat and left it is invited again, as before it joined
        Invitation.objects.filter(game=game, user=user, status=InvitationStatus.ACCEPTED).update(
            status=InvitationStatus.PENDING)
        change.append(EventKind.SYSTEM, seat, {"type": SEAT_LEFT, "username": user.username})

    return writer.write(game_id, decide)


def cancel(*, game_id: int, user: Any) -> Event:
    """The creator calls off an open game before it starts."""
    def decide(change: writer.Change) -> Any:
        game = change.game
        hide_from_strangers(game, user)
        _check_open(game)
        if game.created_by_id != user.pk:
            raise NotTheCreator(msg("only the game's creator may cancel it"))
        return _end(change, None, {"type": CANCEL}, reason="cancelled", winners=[])

    return writer.write(game_id, decide)


def draw(*, game_id: int, user: Any, action: str) -> Event:
    """`action` is offer, accept or decline."""
    def decide(change: writer.Change) -> Any:
        game = change.game
        hide_from_strangers(game, user)
        seat = seat_of(game, user)
        _check_active(game)
        offer = selectors.draw_offer(game=game)
        if action == "offer":
            if offer is not None and offer["by"] == seat:
                return Event.objects.get(game=game, seq=offer["seq"])  # already offered
            event = _system(change, seat, {"type": DRAW_OFFERED})
            return _draw_if_agreed(change, event)
        refused = DrawNotOffered(msg("no other seat of game {pk} offers a draw now", pk=game.pk))
        return _proposal_answer(change, seat, offer, action, refused, (DRAW_ACCEPTED, DRAW_DECLINED), _draw_if_agreed)

    return writer.write(game_id, decide)


def _proposal_answer(change: writer.Change, seat: int, pending: dict | None, action: str, refused: Exception,
                     types: tuple[str, str], then: Any) -> Event:
    """Another seat's answer to a pending draw offer or takeback request: decline it, or accept
    it (once; then `then` sees whether everyone has)."""
    game, (accepted, declined) = change.game, types
    if pending is None or pending["by"] == seat:
        raise refused
    if action == "decline":
        return _system(change, seat, {"type": declined})
    if seat in pending["accepted"]:
        return Event.objects.filter(game=game, seat=seat, payload__type=accepted).latest("seq")
    return then(change, _system(change, seat, {"type": accepted}))


def _draw_if_agreed(change: writer.Change, event: Event) -> Event:
    game = change.game
    offer = selectors.draw_offer(game=game)
    playing = selectors.still_playing(game=game)
    if offer is not None and set(playing) <= {offer["by"], *offer["accepted"]}:
        return _end(change, None, {"type": "draw_agreed"}, reason="draw_agreed", winners=playing)
    return event


def takeback(*, game_id: int, user: Any, action: str) -> Event:
    """`action` is request (undo your own last move), accept or decline. Once every other seat
    still playing accepts, a takeback event folds the game back to before that move."""
    def decide(change: writer.Change) -> Any:
        game = change.game
        hide_from_strangers(game, user)
        seat = seat_of(game, user)
        _check_active(game)
        request = selectors.takeback_request(game=game)
        if action == "request":
            if request is not None and request["by"] == seat:
                return Event.objects.get(game=game, seq=request["seq"])
            move = _undoable_move_of(game, seat)
            event = _system(change, seat, {"type": TAKEBACK_REQUESTED, "undo": move.seq})
            return _takeback_if_agreed(change, event)
        refused = TakebackNotRequested(msg("no other seat of game {pk} asks for a takeback now", pk=game.pk))
        return _proposal_answer(change, seat, request, action, refused, (TAKEBACK_ACCEPTED, TAKEBACK_DECLINED),
                                _takeback_if_agreed)

    return writer.write(game_id, decide)


def _undoable_move_of(game: Game, seat: int) -> Event:
    """The seat's last move, if nobody has acted since and taking it back reveals nothing."""
    acted = Event.objects.filter(game=game).filter(Q(kind__in=[EventKind.MOVE, EventKind.TIMEOUT]) | Q(payload__forfeit=True))
    last = acted.order_by("-seq").first()
    if last is None or last.kind != EventKind.MOVE or last.seat != seat:
        raise TakebackRefused(msg("only your own last move, before anyone else has acted on it, can be taken back"))
    game_rules = store.rules_of(game)
    before, after = store.state_at(game, last.seq - 1), store.state_at(game, last.seq)
    dumped_before, dumped_after = game_rules.dump(before), game_rules.dump(after)
    if dumped_before.get("rng") != dumped_after.get("rng"):
        raise TakebackRefused(msg("that move brought chance into play (a roll or a draw): it cannot be taken back"),
                              reason="chance")
    if len(game_rules.to_act(before)) > 1 or last.payload != last.public_payload:
        raise TakebackRefused(msg("that move was a secret or simultaneous choice: taking it back would tell what was chosen"),
                              reason="hidden_information")
    return last


def _takeback_if_agreed(change: writer.Change, event: Event) -> Event:
    game = change.game
    request = selectors.takeback_request(game=game)
    playing = selectors.still_playing(game=game)
    if request is None or not set(playing) <= {request["by"], *request["accepted"]}:
        return event
    undo = request["undo"]
    return _system(change, None, {"type": store.TAKEBACK, "undo": undo, "to": undo - 1})


def _forfeit_of(game: Game, seat: int) -> Event | None:
    return Event.objects.filter(game=game, seat=seat, payload__forfeit=True).order_by("seq").first()


def _check_active(game: Game) -> None:
    if game.status != GameStatus.ACTIVE:
        raise GameNotActive(msg("game {pk} is {status}", pk=game.pk, status=state_said(game.status)))


def _check_open(game: Game) -> None:
    if game.status != GameStatus.OPEN:
        raise GameNotOpen(msg("game {pk} is {status}, not open", pk=game.pk, status=state_said(game.status)))


def _system(change: writer.Change, seat: int | None, payload: dict) -> Event:
    """Append a system event, folded as a move is (a `forfeit` through the rules, a takeback to
    the state it names)."""
    return change.append(EventKind.SYSTEM, seat, payload, acted=True)


def _end(change: writer.Change, seat: int | None, payload: dict, *, reason: str, winners: list[int]) -> Event:
    """End the game by agreement or by a player's call: the rules have no say in the result."""
    game = change.game
    share = 1 / len(winners) if winners else 0
    game.status = GameStatus.FINISHED
    game.result = {"scores": [share if s in winners else 0 for s in range(game.players)], "winners": winners, "reason": reason}
    return _system(change, seat, {**payload, "result": game.result})
