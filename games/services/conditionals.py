"""Conditional moves: while it is not your turn, queue "if they play X, I play Y", chained
(X1 Y1 X2 Y2 ...), several lines at once. The server plays your reply as your own ordinary
move once the opponent's real move matches a line, and drops every line the real game left.

Only where nobody's future position is unknown: two-player games, and only through moves the
rules call certain (`Rules.move_is_certain`: no chance, no secret). A line is checked move by
move against the real position when it is queued, and again when it is played: a reply that is
no longer legal (for whatever reason) is dropped, never played.

Secrecy: a line is a side record, never in the log, the game's answers, events or streams; its
id is random. Nothing is written or sent to anyone when a line is queued or cancelled. Lines
are played after the opponent's move commits, by a consumer of the log (`ConditionalLines`,
`consumers.framework`): the writer says at the commit whether a line may wait
(`Game.lines_waiting`, so that a move's answer takes no longer when lines wait on it:
`games.projection`), the fan-out makes one row per (game, seq) and plays it at once in its
worker; the lease, the retries and the sweep (`conditionals_stalled` names what it looks at)
are the framework's.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apikit.errors import ServiceError
from consumers import after_commit, framework
from games import selectors, store, writer
from games.errors import (
    ConditionalDuplicate,
    ConditionalInvalid,
    ConditionalNotFound,
    ConditionalOnYourTurn,
    ConditionalThroughChance,
    ConditionalUnsupported,
    GameNotActive,
    StaleSeq,
    TooManyConditionals,
)
from games.models import ConditionalLine, Event, EventKind, Game, GameStatus
from games.services.common import seat_of
from games.services.moves import canonical_move, seat_act
from games.words import state_said
from rules.base import Rules
from rules.errors import RulesError
from rules.words import msg

MAX_MOVES = 24  # a line of twelve "if ... then ..." pairs
MAX_LINES = 30  # per seat and game


def conditional_create(*, game_id: int, user: Any, moves: list[Any], invitation: str = "") -> ConditionalLine:
    """Queue a line for the caller's seat. Each move is a move object or its notation text; the
    first is the opponent's, the last the caller's. Stored canonical, with the seat of each."""
    game = selectors.game_for(game_id=game_id, user=user, invitation=invitation)
    seat, game_rules, state = _waiting_seat(game, user)
    if not isinstance(moves, list) or not 2 <= len(moves) <= MAX_MOVES:
        raise ConditionalInvalid(msg("a line is 2 to {max_moves} moves, theirs first, yours last", max_moves=MAX_MOVES))
    line = _checked_line(game_rules, state, seat, moves)
    if line[-1]["seat"] != seat:
        raise ConditionalInvalid(msg("a line ends with your own move"), index=len(line) - 1)

    def decide(change: writer.Change) -> ConditionalLine:
        # The writer holds the game's row lock from its read, and writes the flag with the line:
        # a move either waits for this commit and then reads the flag on the row it locks (a
        # move read before it finds the row's version moved and reads again), or committed first,
        # and then `_wake_if_moved_on` sees the game moved on. Only the flag's column is written,
        # so nothing the other seat can read changes (not even `updated_at`).
        change.game.lines_waiting = True
        queued = list(ConditionalLine.objects.select_for_update().filter(game=game, seat=seat))
        if any(kept.anchor_seq == game.seq and kept.moves == line for kept in queued):
            raise ConditionalDuplicate(msg("you have queued this line already"))
        if len(queued) >= MAX_LINES:
            raise TooManyConditionals(msg("at most {max_lines} lines at once in a game; cancel one first", max_lines=MAX_LINES))
        created = ConditionalLine.objects.create(game=game, user=user, seat=seat, moves=line, anchor_seq=game.seq)
        _wake_if_moved_on(created, change.game.seq)
        return created

    return writer.write(game.pk, decide)


def _wake_if_moved_on(line: ConditionalLine, seq: int) -> None:
    """`seq` is the game's as the writer read it under the row lock, after any move holding it had
    committed: a line checked against the position before a move is stored just after that move,
    whose news may have found no line (or been played before this one was stored). Such a line
    makes its own row, in its own transaction: it is played once this commits, or found by the
    sweep."""
    if seq != line.anchor_seq:
        framework.rows_make(CONDITIONAL_LINES, [framework.message(
            recipient=GAME, kind="conditional", game_id=line.game_id, seq=seq,
            key=f"conditionals:{line.game_id}:{seq}:line:{line.pk}")])


def _checked_line(game_rules: Rules, state: Any, seat: int, moves: list[Any]) -> list[dict[str, Any]]:
    """The line, each move canonical and legal where the line puts it, through certain moves
    only. The position is wholly public (no secrets), so checking it tells the caller nothing."""
    line = []
    for index, given in enumerate(moves):
        acting = game_rules.to_act(state)
        if len(acting) != 1:
            raise ConditionalInvalid(msg("move {index}: the game is over there or several seats act", index=index), index=index)
        mover = acting[0]
        try:
            move = game_rules.parse_move(state, mover, given) if isinstance(given, str) else given
            move = canonical_move(game_rules, state, mover, move)
            if not game_rules.move_is_certain(state, mover, move):
                raise ConditionalThroughChance(
                    msg("move {index} leads where chance or a secret decides: no conditional line goes through it", index=index),
                    index=index,
                )
            state = game_rules.apply(state, mover, move)
        except RulesError as error:
            raise ConditionalInvalid(msg("move {index} is not legal there: {error}", index=index, error=error), index=index, reason=error.code) from None
        line.append({"seat": mover, "move": move})
    return line


def _waiting_seat(game: Game, user: Any) -> tuple[int, Rules, Any]:
    """The caller's seat, the rules and the position, if the caller may queue a line now."""
    seat = seat_of(game, user)
    if game.status != GameStatus.ACTIVE:
        raise GameNotActive(msg("game {pk} is {status}; no conditional moves now", pk=game.pk, status=state_said(game.status)))
    if game.seats.count() != 2:
        raise ConditionalUnsupported(msg("conditional moves are for two-player games only"))
    game_rules = store.rules_of(game)
    state = store.state_at(game)
    if tuple(game_rules.to_act(state)) != (1 - seat,):
        raise ConditionalOnYourTurn(msg("it is your turn: play your move; conditional moves wait for the opponent's"))
    return seat, game_rules, state


def conditional_preview(*, game_id: int, user: Any, moves: list[Any], invitation: str = "") -> dict[str, Any]:
    """"What if": the position after the line so far, as the caller's seat would see it, and the
    legal moves of whoever would act there (the game page picks a line with it). Checked as a
    queued line is, so it shows only positions everybody can know."""
    game = selectors.game_for(game_id=game_id, user=user, invitation=invitation)
    seat, game_rules, state = _waiting_seat(game, user)
    if not isinstance(moves, list) or len(moves) >= MAX_MOVES:
        raise ConditionalInvalid(msg("a line is at most {max_moves} moves", max_moves=MAX_MOVES))
    line = _checked_line(game_rules, state, seat, moves)
    for step in line:
        state = game_rules.apply(state, step["seat"], step["move"])
    acting = game_rules.to_act(state)
    mover = acting[0] if len(acting) == 1 and game_rules.outcome(state) is None else None
    legal = game_rules.legal_moves(state, mover) if mover is not None else []
    notation = [game_rules.describe_move(state, mover, move) for move in legal]
    return {
        "line": line,
        "to_act": mover,
        "moves": legal,
        "notation": notation,
        "words": selectors.move_words(notation),
        "view": game_rules.view(state, seat),
        "board": game_rules.render_text(state, seat),
    }


def conditionals_of(*, game_id: int, user: Any, invitation: str = "") -> list[ConditionalLine]:
    """The caller's own queued lines in the game (nobody sees another's)."""
    game = selectors.game_for(game_id=game_id, user=user, invitation=invitation)
    seat = seat_of(game, user)
    return list(ConditionalLine.objects.filter(game=game, seat=seat, user=user).order_by("created_at", "id"))


def conditional_cancel(*, game_id: int, user: Any, line_id: Any) -> None:
    """Cancel one of the caller's lines; anyone else's is "not found", as a line that never was."""
    deleted, _ = ConditionalLine.objects.filter(pk=line_id, game_id=game_id, user=user).delete()
    if not deleted:
        raise ConditionalNotFound(msg("you have no conditional line {line_id} in game {game_id}", line_id=line_id, game_id=game_id))


def conditionals_play(*, game_id: int, seq: int) -> Event | None:
    """After event `seq` committed: play the reply of the first line the real moves followed,
    move the surviving lines on, drop the others. Nothing if the game has moved past `seq` (the
    task for the newer seq does the work) or no line waits."""
    if not ConditionalLine.objects.filter(game_id=game_id).exists():
        _no_lines_left(game_id)
        return None
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.seq != seq:
        return None
    if game.status != GameStatus.ACTIVE:
        ConditionalLine.objects.filter(game_id=game_id).delete()
        return None
    with transaction.atomic():
        lines = list(ConditionalLine.objects.select_for_update().filter(game_id=game_id).order_by("created_at", "id"))
        events = _events_since(game_id, min(line.anchor_seq for line in lines), seq)
        for line in lines:
            _follow(line, events, seq)
        # A line the real moves followed up to its owner's next move is due; the oldest plays.
        due = [line for line in lines if line.pk is not None and line.moves[0]["seat"] == line.seat]
        for line in due:
            played = _play(line, seq)
            if played is not None:
                return played
    return None


def _no_lines_left(game_id: int) -> None:
    """Clear the game's `lines_waiting`, so its moves stop waking the worker. A game not flagged
    is left alone (no lock, no write). The writer locks the row first and the lines are counted
    after, in a statement of their own: a line being stored holds the same lock while it sets
    the flag, so it is either counted here or sets the flag after."""
    if not Game.objects.filter(pk=game_id, lines_waiting=True).exists():
        return

    def decide(change: writer.Change) -> None:
        if not ConditionalLine.objects.filter(game_id=game_id).exists():
            change.game.lines_waiting = False

    writer.write(game_id, decide)


def _events_since(game_id: int, after: int, upto: int) -> dict[int, Event]:
    return {event.seq: event for event in Event.objects.filter(game_id=game_id, seq__gt=after, seq__lte=upto)}


def _follow(line: ConditionalLine, events: dict[int, Event], seq: int) -> None:
    """Move the line on over the events after its anchor: each must be the move the line
    expected, by the seat it expected; any other event leaves the line, which is dropped."""
    moves = list(line.moves)
    for at in range(line.anchor_seq + 1, seq + 1):
        event = events.get(at)
        expected = moves[0] if moves else None
        if (event is None or expected is None or event.kind != EventKind.MOVE or event.seat != expected["seat"]
                or event.payload.get("move") != expected["move"]):
            line.delete()
            return
        moves.pop(0)
    if not moves:  # the whole line was played
        line.delete()
        return
    if moves != line.moves:
        line.moves, line.anchor_seq = moves, seq
        line.save(update_fields=["moves", "anchor_seq"])


def _play(line: ConditionalLine, seq: int) -> Event | None:
    """The owner's next move of the line, as the owner's ordinary move at `seq`. A move that is
    no longer legal (any reason: a takeback, a changed rule, a time-out) drops the line."""
    reply = line.moves[0]
    try:
        with transaction.atomic():
            event = seat_act(game_id=line.game_id, seat=line.seat, expected_seq=seq, kind=EventKind.MOVE,
                             move=reply["move"])
    except StaleSeq:
        return None  # someone moved first; the task for the newer seq looks again
    except (RulesError, ServiceError):
        line.delete()
        return None
    rest = line.moves[1:]
    if rest:
        line.moves, line.anchor_seq = rest, event.seq
        line.save(update_fields=["moves", "anchor_seq"])
    else:
        line.delete()
    return event


def conditionals_stalled(*, idle_seconds: float, limit: int = 500) -> list[tuple[int, int]]:
    """(game, seq) of games with a line whose anchor the game has moved past, quiet for
    `idle_seconds`: the wake-up after its last event was lost."""
    cutoff = timezone.now() - timedelta(seconds=idle_seconds)
    rows = (
        ConditionalLine.objects.filter(game__updated_at__lt=cutoff)
        .values_list("game_id", "game__seq", "anchor_seq")
        .order_by("game_id")
    )
    stalled: dict[int, int] = {}
    for game_id, game_seq, anchor in rows[: limit * 4]:
        if game_seq != anchor:
            stalled[game_id] = game_seq
    return list(stalled.items())[:limit]


GAME = 0  # the one recipient of a game's lines: the framework's cursor is the game's


class ConditionalLines(framework.Consumer):
    """After an event, the lines waiting on it: one row per (game, seq), played by the fan-out's
    worker at once (`conditionals_play`; a duplicate finds nothing due)."""

    name = "conditionals"
    queue = "deadlines"  # a reply is a quick fold, and a waiting player's clock may be running
    attempt_in_fan_out = True
    retry_waits = (1, 5, 30)

    @property
    def missed_sweep_seconds(self) -> float:
        return settings.SCRAPYARD_CONDITIONALS_STALLED_SECONDS

    def wanted(self, game_id: int, hints: dict[str, Any]) -> bool | None:
        """Where the request itself tells the consumers (no after-commit thread), every event of
        every game alike, so that no answer takes longer because the other seat queued a line;
        from the thread, only a game whose locked row said a line may wait (`games.projection`)."""
        if "lines_waiting" not in hints:
            return None
        return bool(hints["lines_waiting"]) or not after_commit.in_background()

    def listens_to(self, game_id: int) -> bool:
        return ConditionalLine.objects.filter(game_id=game_id).exists()

    def recipients(self, game_id: int) -> dict[int, int | None]:
        if ConditionalLine.objects.filter(game_id=game_id).exists():
            return {GAME: None}
        _no_lines_left(game_id)  # so its moves stop waking anyone
        return {}

    def game(self, game_id: int, seat: int | None) -> dict[str, Any]:
        seq = Game.objects.filter(pk=game_id).values_list("seq", flat=True).first() or 0
        return {"game": game_id, "seq": seq}

    def notices(self, recipient: int, seat: int | None, game: dict[str, Any], after: int) -> list[dict[str, Any]]:
        return [framework.message(recipient=GAME, kind="conditional", game_id=game["game"], seq=game["seq"],
                                  key=f"conditionals:{game['game']}:{game['seq']}")]

    def followed(self, since: Any) -> list[dict[str, Any]]:
        return [{"game": game_id, "seq": seq, "recipients": [GAME]}
                for game_id, seq in conditionals_stalled(idle_seconds=settings.SCRAPYARD_CONDITIONALS_STALLED_SECONDS)]

    def deliver(self, row: Any) -> framework.Outcome:
        conditionals_play(game_id=row.game_id, seq=row.seq)
        return framework.Outcome(delivered=True)


CONDITIONAL_LINES = framework.register(ConditionalLines())
