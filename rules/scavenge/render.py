"""Scavenge as text: the board, a line per seat, whose turn and the roll."""

from __future__ import annotations

from rules import text as text_board
from rules.scavenge import board, data
from rules.scavenge.state import ScavengeState
from rules.words import msg

LEGEND = (
    msg("P0-P3: players' tokens (P1* carries the good stuff); s0-s3: start points"),
    msg("[G]: the good stuff in the centre (its four middle cells); [ ]: centre, empty"),
)


CELL_WIDTH = 4
HEADER = "    " + "".join(f"{col:^{CELL_WIDTH}}" for col in range(board.SIZE))
EMPTY_CELL = f"{'.':^{CELL_WIDTH}}"


def render(state: ScavengeState, seat: int | None) -> str:
    cells = _cells(state)
    rows = [
        (f"{row:>2}  " + "".join(cells[row * board.SIZE : (row + 1) * board.SIZE])).rstrip()
        for row in range(board.SIZE)
    ]
    title = msg("Scavenge (straight moves)") if state.straight_moves else "Scavenge"
    lines = [title, HEADER.rstrip(), *rows, "", *LEGEND, *_seat_lines(state, seat), _status_line(state)]
    return text_board.joined(lines, newline=False)


def _cells(state: ScavengeState) -> list[str]:
    """Each square's mark, padded to the cell width, indexed by node."""
    cells = [EMPTY_CELL] * (board.SIZE * board.SIZE)
    for seat in state.active_seats():
        cells[state.start_of(seat)] = f"s{seat}".center(CELL_WIDTH)
    centre = "[G]" if state.carrier is None else "[ ]"
    for seat in state.active_seats():
        mark = f"P{seat}" + ("*" if state.carrier == seat else "")
        if state.positions[seat] == board.CENTRE:
            centre = mark
        else:
            cells[state.positions[seat]] = mark.center(CELL_WIDTH)
    for node in board.HOLE_NODES:
        cells[node] = centre.center(CELL_WIDTH)
    return cells


def _seat_lines(state: ScavengeState, viewer: int | None) -> list[str]:
    return [_seat_line(state, seat, viewer) for seat in range(state.players)]


def _seat_line(state: ScavengeState, seat: int, viewer: int | None) -> str:
    you = msg(" (you)") if seat == viewer else ""
    at = state.positions[seat]
    if at is None:
        return msg("P{seat}{you}: left the game", seat=seat, you=you)
    row, col = data.START_CORNERS[state.players][seat]
    home = msg("start row {row}, col {col}", row=row, col=col)
    where = msg("the centre") if at == board.CENTRE else msg("row {row}, col {col}", **dict(zip(("row", "col"), board.coords(at))))
    values = {"seat": seat, "you": you, "home": home, "where": where, "trash": state.trash[seat]}
    if state.carrier == seat:
        return msg("P{seat}{you} ({home}): at {where}, trash {trash}, carries the good stuff", **values)
    return msg("P{seat}{you} ({home}): at {where}, trash {trash}", **values)


def _status_line(state: ScavengeState) -> str:
    if state.over:
        if state.end_reason == "good_stuff_home":
            return msg("Game over: P{seat} brought the good stuff home and wins.", seat=state.winner)
        return msg("Game over: P{seat} is the last player left and wins.", seat=state.winner)
    return msg("P{seat} to move, rolled {roll}.", seat=state.turn, roll=state.roll)
