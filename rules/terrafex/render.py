"""A plain-text picture of the board for email: every piece with its colour, size and band."""

from __future__ import annotations

from rules import text as text_board
from rules.terrafex import words
from rules.terrafex.board import band_owner
from rules.terrafex.data import ACTIONS, COLOURS, COLS, FOREST, GLACIER, ROWS, SIZE_NAMES, SIZES
from rules.terrafex.state import State, seat_scores
from rules.words import listed, msg

LETTER = {"green": "g", "yellow": "y", "red": "r", "blue": "b"}
CELL_WIDTH = 8

# One phrase a line, each within 78 columns: `rules.text.fit` never has to break one.
LEGEND = (
    msg("Pieces: g forest (green), y mountain (yellow), r fire (red), b glacier (blue)."),
    msg("Sizes: S small, M medium, L large."),
    msg("gL/bS: a large forest frosted by a small frost."),
    msg("bL/gM: a medium forest capped by a large glacier."),
    msg("+W or +B: the piece lies in White's or Black's band."),
    msg("In a band, forests and mountains add to its owner's score; fires subtract."),
    msg("Bands where row+col is even: small White, medium Black, large White."),
    msg("Bands where row+col is odd: small Black, medium White, large Black."),
)


def _cell_text(square: int, cell) -> str:
    if cell is None:
        return "."
    colour, size, inner = cell
    text = LETTER[colour] + SIZE_NAMES[size]
    if inner:
        text += "/" + ("b" if colour == FOREST else "g") + SIZE_NAMES[inner]
    if colour != GLACIER:
        text += "+" + band_owner(square, size)[0].upper()
    return text


def _board_lines(state: State) -> list[str]:
    header = "    " + "".join(f"{col:<{CELL_WIDTH}}" for col in range(COLS))
    rule = "   +" + ("-" * (CELL_WIDTH - 1) + "+") * COLS
    lines = [header, rule]
    for row in range(ROWS):
        cells = [_cell_text(row * COLS + col, state.board[row * COLS + col]) for col in range(COLS)]
        lines.append(f"{row:>2} |" + "".join(f"{c:<{CELL_WIDTH - 1}}|" for c in cells))
        lines.append(rule)
    return lines


def _supply_line(state: State) -> str:
    parts = []
    for index, colour in enumerate(COLOURS):
        counts = " ".join(f"{SIZE_NAMES[s]}{state.pool[index * 3 + s - 1]}" for s in SIZES)
        parts.append(msg("{colour} {counts}", colour=words.colour(colour), counts=counts))
    return msg("Pool: {counts}", counts=listed(parts, " | "))


def _seat_name(state: State, seat: int) -> str:
    return msg("White (seat {seat})", seat=seat) if seat == state.white else msg("Black (seat {seat})", seat=seat)


def _status_lines(
    state: State, seat: int | None, to_act: tuple[int, ...], result: str | None
) -> list[str]:
    scores = seat_scores(state)
    white, black = state.white, 1 - state.white
    lines = [
        msg("Score so far: {white} {white_score}, {black} {black_score}", white=_seat_name(state, white),
            white_score=scores[white], black=_seat_name(state, black), black_score=scores[black])
    ]
    if result:
        lines.append(msg("Game over: {result}", result=result))
    else:
        # In the reader's words, as the legal moves beside them are (their notation is listed there).
        left = listed(words.action(a) for a in ACTIONS if a not in state.done)
        mover = _seat_name(state, state.mover)
        lines.append(msg("Turn {turn}: {mover} to play; actions left: {left}", turn=state.turn, mover=mover, left=left))
        if state.fire_in_hand:
            lines.append(msg("Fire in hand: {size}, for {seat} to place", size=SIZE_NAMES[state.fire_in_hand],
                             seat=_seat_name(state, to_act[0])))
    if seat is not None:
        you = _seat_name(state, seat)
        lines.append(msg("You are {seat}, to act.", seat=you) if seat in to_act else msg("You are {seat}, waiting.", seat=you))
    return lines


def render(state: State, seat: int | None, to_act: tuple[int, ...], result: str | None) -> str:
    pit = " ".join(f"{SIZE_NAMES[s]}{state.pit[s - 1]}" for s in SIZES)
    lines = ["TERRAFEX", *_status_lines(state, seat, to_act, result), ""]
    lines += _board_lines(state)
    lines += [_supply_line(state), msg("Fire pit: red {counts}", counts=pit), "", *LEGEND]
    return text_board.joined(lines, strip=True)
