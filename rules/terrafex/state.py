"""The game state, its JSON form (dump/load) and the seats' views (open information)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.terrafex.board import SQUARES, band_scores, coords, square_at
from rules.terrafex.data import ACTIONS, BANDS, COLOURS, FOREST, GLACIER, SIZE_BY_NAME, SIZE_NAMES, SIZES


@dataclass(frozen=True)
class State:
    board: tuple  # SQUARES cells, see board.py
    pool: tuple[int, ...]  # 12 counts: colour-major (green, yellow, red, blue), then S, M, L
    pit: tuple[int, int, int]  # red S, M, L in the fire pit
    white: int  # the seat playing White (moves first)
    mover: int  # the seat whose turn it is
    turn: int = 1
    done: tuple[str, ...] = ()  # actions taken this turn, in order
    fire_in_hand: int = 0  # size of the red piece the mover took, awaiting the opponent
    melted: bool = False  # a glacier met a fire this turn
    quiet_turns: int = 0  # turns in a row, before this one, with no glacier meeting a fire
    forfeited: int | None = None


def seat_of(state: State, colour: str) -> int:
    return state.white if colour == "white" else 1 - state.white


def seat_scores(state: State) -> tuple[int, int]:
    totals = band_scores(state.board)
    scores = [0, 0]
    scores[state.white] = totals["white"]
    scores[1 - state.white] = totals["black"]
    return scores[0], scores[1]


# --- JSON form ---------------------------------------------------------------------------------


def _cell_json(square: int, cell) -> dict[str, Any]:
    colour, size, inner = cell
    row, col = coords(square)
    data: dict[str, Any] = {"row": row, "col": col, "colour": colour, "size": SIZE_NAMES[size]}
    if inner and colour == FOREST:
        data["frost"] = SIZE_NAMES[inner]
    if inner and colour == GLACIER:
        data["capped_forest"] = SIZE_NAMES[inner]
    return data


def _cell_from_json(data: dict[str, Any]) -> tuple[int, tuple]:
    inner = data.get("frost") or data.get("capped_forest")
    cell = (data["colour"], SIZE_BY_NAME[data["size"]], SIZE_BY_NAME[inner] if inner else 0)
    return square_at(data["row"], data["col"]), cell


def _supply_json(pool: tuple[int, ...]) -> dict[str, dict[str, int]]:
    return {
        colour: {SIZE_NAMES[size]: pool[c * 3 + size - 1] for size in SIZES}
        for c, colour in enumerate(COLOURS)
    }


def dump(state: State) -> dict[str, Any]:
    return {
        "board": [_cell_json(sq, cell) for sq, cell in enumerate(state.board) if cell is not None],
        "pool": _supply_json(state.pool),
        "fire_pit": {SIZE_NAMES[size]: state.pit[size - 1] for size in SIZES},
        "white": state.white,
        "mover": state.mover,
        "turn": state.turn,
        "actions_done": list(state.done),
        "fire_in_hand": SIZE_NAMES[state.fire_in_hand] if state.fire_in_hand else None,
        "melted_this_turn": state.melted,
        "quiet_turns": state.quiet_turns,
        "forfeited": state.forfeited,
    }


def load(data: dict[str, Any]) -> State:
    """The inverse of `dump`; reads a view too (it holds the dump and more)."""
    board: list = [None] * SQUARES
    for item in data["board"]:
        square, cell = _cell_from_json(item)
        board[square] = cell
    pool = tuple(data["pool"][colour][SIZE_NAMES[size]] for colour in COLOURS for size in SIZES)
    in_hand = data["fire_in_hand"]
    return State(
        board=tuple(board),
        pool=pool,
        pit=tuple(data["fire_pit"][SIZE_NAMES[size]] for size in SIZES),
        white=data["white"],
        mover=data["mover"],
        turn=data["turn"],
        done=tuple(data["actions_done"]),
        fire_in_hand=SIZE_BY_NAME[in_hand] if in_hand else 0,
        melted=data["melted_this_turn"],
        quiet_turns=data["quiet_turns"],
        forfeited=data["forfeited"],
    )


def view(state: State, seat: int | None, to_act: tuple[int, ...]) -> dict[str, Any]:
    """Everything is open (no chance after setup, no hidden pieces): the dump plus what follows,
    and the printed board's bands (whose band rings a piece of each size on a square whose
    row + column is even or odd), so a client draws them without knowing the rule."""
    view = dump(state)
    view.update(
        seat=seat,
        black=1 - state.white,
        actions_left=[a for a in ACTIONS if a not in state.done],
        to_act=list(to_act),
        scores=list(seat_scores(state)),
        bands={
            parity: {SIZE_NAMES[size]: owner for size, owner in BANDS[number].items()}
            for number, parity in ((0, "even"), (1, "odd"))
        },
    )
    return view


def from_view(view: dict[str, Any]) -> State:
    """The whole state: Terrafex is open information, so a view holds everything."""
    return load(view)
