"""Games as the caller's seat sees them: the list it may see, and one game's summary and clocks,
view and presentation, legal moves, the answer to a move, and a move read from notation."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import connection
from django.db.models import QuerySet

from games import deadlines, errors, store, stores, words
from games.models import Event, EventKind, Game, GameStatus
from games.selectors.access import game_get, seat_of, visible_games
from games.selectors.events import event_visible, player_of
from games.selectors.seen import board, carry_log_facts, game_seen, seen
from rules.words import msg


def game_list(*, user: Any, status: str | None = None, mine: bool = False) -> QuerySet[Game]:
    games = Game.objects.prefetch_related("seats__user", "deadlines").filter(visible_games(user)).distinct()
    if status:
        if status not in GameStatus.values:
            raise errors.InvalidInput(msg("status must be one of {values}, not {status!r}", values=', '.join(GameStatus.values), status=status))
        games = games.filter(status=status)
    if mine:
        if not user.is_authenticated:
            return games.none()
        games = games.filter(seats__user=user).distinct()
    return games


def game_finished(game: Game) -> bool:
    """Whether the game is over (its result is final): what other apps ask of a game's status."""
    return game.status == GameStatus.FINISHED


def seats_of(*, game: Game) -> list[dict[str, Any]]:
    return [{"seat": seat.index, **player_of(seat)} for seat in game.seat_rows()]


def game_detail(*, game: Game, user: Any) -> dict[str, Any]:
    seat = seat_of(game=game, user=user)
    # Worked out once per (game, seq, seat) and kept: `games.selectors.seen`.
    shown, shown_as, facts = game_seen(game=game, seat=seat)
    return {
        **game_summary(game=game),
        "your_seat": seat,
        "view": shown["view"],
        # Kept with the view (no more work), so a page reads the game and its moves in one request.
        **your_moves(shown),
        "presentation": words.translated(shown_as),  # kept raw, read in the reader's language
        "seed": game.seed if game.status == GameStatus.FINISHED else None,
        "you_created": user.is_authenticated and game.created_by_id == user.pk,
        "private": game.private,
        "timeouts_to_resign": game.timeouts_to_resign,
        "invitation_key": (game.invitation_key or None) if user.is_authenticated and game.created_by_id == user.pk else None,
        "draw_offer": facts["draw_offer"],
        "takeback_request": facts["takeback_request"],
        "playing": facts["playing"],
    }


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
        "deadline": earliest_deadline(due),
        "deadlines": due,
        "stand_ins": [{"seat": seat.index, "bot": seat.stand_in} for seat in game.seat_rows() if seat.stand_in],
        # What each seat's bank holds while its clock is stopped (None: not a bank clock, or before its first move).
        "banks": [seat.bank_seconds for seat in game.seat_rows()],
    }


def public_state(*, game: Game) -> dict[str, Any]:
    """What every state frame of a game's stream says, the same for every caller: the seq, the
    status, who is to act, the clocks (each due time) and the result. All of it is in
    `GET /api/games/{id}/` for anyone who may see the game, so sharing it leaks nothing."""
    due = deadlines.deadlines_of(game)
    return {"seq": game.seq, "status": game.status, "to_act": game.to_act, "deadline": earliest_deadline(due),
            "deadlines": due, "result": game.result}


def events_after(*, game_id: int, after: int) -> tuple[list[Event], dict[str, Any], Game]:
    """A game's events after seq `after`, as stored, its public state (`public_state`) just
    after the newest of them, and the game as read then (its seats and clocks loaded with it):
    what a live stream shares between its watchers (each renders the events for its own caller
    with `event_visible`, and a seat to act reads its moves from this game: `seat_moves_at`).
    The game is read first and the events only up to its seq, so the state is exactly the one the
    last event left (a move committed between the two reads comes with the next read, and its
    own state). The game is shared: read it, never change it."""
    game = Game.objects.prefetch_related("deadlines", "seats").filter(pk=game_id).first()  # streams' hot path
    if game is None:
        raise errors.GameNotFound(msg("there is no game {game_id}", game_id=game_id))
    events = stores.current().events(game_id, after=after, upto=game.seq)
    return events, public_state(game=game), game


def seat_moves_at(*, game: Game, user: Any, seat: int) -> dict[str, Any] | None:
    """The legal moves of `seat` at the game's seq, as `/legal-moves/` gives them, if `user` holds
    that seat in this very read of the game (else None: a seat changes hands only by an event, and
    a seat's moves never reach another account). No query when the game came with its seats
    (`events_after`); the moves are the ones kept per (game, seq, seat) (`seen`)."""
    if seat_of(game=game, user=user) != seat:
        return None
    return legal_moves_for(game=game, user=user)


def earliest_deadline(due: list[dict[str, Any]]) -> dt.datetime | None:
    """The earliest running deadline of `deadlines.deadlines_of`'s entries."""
    return min((entry["due_at"] for entry in due if entry["due_at"] is not None), default=None)


def legal_moves_for(*, game: Game, user: Any) -> dict[str, Any]:
    seat = seat_of(game=game, user=user)
    if seat is None:
        raise errors.NotAPlayer(msg("you have no seat in game {pk}", pk=game.pk))
    if seat not in game.to_act:
        return {"seq": game.seq, "seat": seat, "moves": [], "notation": [], "words": []}
    shown = seen(game=game, seat=seat)
    return {"seq": game.seq, "seat": seat, "moves": shown["moves"], "notation": shown["notation"],
            "words": move_words(shown["notation"])}


def your_moves(shown: dict[str, Any]) -> dict[str, Any]:
    """The caller's legal moves from what its seat sees (`seen`), as the game's answer and a
    move's carry them: none unless the seat is to act (`schema.YourMoves`)."""
    return {"your_turn": bool(shown["moves"]), "moves": shown["moves"], "notation": shown["notation"],
            "words": move_words(shown["notation"])}


def move_words(notation: list[str]) -> list[str]:
    """Each move described in the reader's language: the rules write a move's notation in words
    (`rules.words`) whose English is the notation itself, so an English reader reads the notation,
    and another reader its words (a reply by mail still types the notation)."""
    return words.translated(list(notation))  # one look at the language for the whole list


def move_answer(*, game: Game | None, user: Any, event: Event) -> dict[str, Any]:
    """The answer to a move: the event as its seat sees it, and the game after it as the caller's
    seat sees it (its view, whose turn, clocks, result) with its legal moves
    where it still has to act (a simultaneous step, a turn of several actions), so a client plays
    on and redraws without another request. What the seat sees is kept (`seen`): the caller's
    next read of the game finds it. `game` is the one the move was written through (None: read it)."""
    game = game if game is not None else game_get(game_id=event.game_id)
    seat = seat_of(game=game, user=user)  # the caller has a seat: it just moved
    new = game.seq == event.seq and not connection.in_atomic_block
    shown = seen(game=game, seat=seat, new=new)
    if new:
        carry_log_facts(game=game, event=event)
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
            "view": shown["view"],
            **your_moves(shown),
        },
    }


def board_text(*, game: Game, user: Any) -> str:
    """The board as text, as the caller's seat may see it (the rules' `render_text`)."""
    # Its legend lines in the reader's language (games.words); the text itself is kept per seq.
    return words.text_lines(board(game=game, seat=seat_of(game=game, user=user)))


def view_at(*, game: Game, user: Any, at: int) -> dict[str, Any]:
    if not 1 <= at <= game.seq:
        raise errors.EventOutOfRange(msg("at must be between 1 and {seq}, not {at}", seq=game.seq, at=at))
    seat = seat_of(game=game, user=user)
    if at == game.seq:
        return {"seq": at, "seat": seat, "view": seen(game=game, seat=seat)["view"]}
    return {"seq": at, "seat": seat, "view": store.rules_of(game).view(store.state_at(game, at), seat)}


def move_read(*, game: Game, user: Any, text: str) -> dict[str, Any]:
    """A move written in the rules' human notation (`parse_move`), read in the game's position
    now for the caller's seat; the rules' error when it does not read."""
    seat = seat_of(game=game, user=user)
    if seat is None:
        raise errors.NotAPlayer(msg("you have no seat in game {pk}", pk=game.pk))
    return store.rules_of(game).parse_move(store.state_at(game), seat, text)


def moves_unchanged_since(*, game: Game, user: Any, since: int) -> bool:
    """Whether a move chosen at the position at `since` still means the same now: only other
    seats' moves came since (anything else, a takeback or a seat taken, changes what it meant),
    and the caller's seat was to act then with the very moves it has now (so in a simultaneous
    step another seat's secret choice does not make a move stale). `games.services.move_submit`
    asks this for every door."""
    seat = seat_of(game=game, user=user)
    if seat is None or not 1 <= since <= game.seq:
        return False
    since_then = Event.objects.filter(game=game, seq__gt=since)
    if since_then.filter(seat=seat).exists() or since_then.exclude(kind__in=(EventKind.MOVE, EventKind.TIMEOUT)).exists():
        return False
    game_rules = store.rules_of(game)
    then, now = store.state_at(game, since), store.state_at(game)
    if seat not in game_rules.to_act(then) or seat not in game.to_act:
        return False
    return game_rules.legal_moves(then, seat) == game_rules.legal_moves(now, seat)
