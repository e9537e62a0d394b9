"""What a page shows of a Scavenge position (`rules.presentation`): a panel per player with its
trash and the roll, a prompt that says what the roll asks for, and each square's token."""

from __future__ import annotations

from typing import Any

from rules.presentation import SEAT_COLOURS, cell_name, item, panel
from rules.scavenge import board, data
from rules.scavenge.moves import CENTRE_NAME
from rules.scavenge.state import ScavengeState
from rules.scavenge.turns import legal_moves
from rules.words import msg, nmsg


def panels(state: ScavengeState, seat: int | None) -> list[dict[str, Any]]:
    found = []
    for s in range(state.players):
        colour = SEAT_COLOURS[s]
        notes = []
        if state.carrier == s:
            notes.append(msg("carries the good stuff"))
        if state.winner == s:
            notes.append(msg("brought the good stuff home"))
        resources = [item(msg("trash"), state.trash[s])]
        if state.turn == s and state.roll is not None:
            resources.append(item(msg("roll"), state.roll))
        start = data.START_CORNERS[state.players][s]
        resources.append(item(msg("home"), cell_name(start)))
        score = None if not state.over else (1 if state.winner == s else 0)
        # Named by the token the text board shows (P0..P3): a colour means nothing in plain text.
        found.append(panel(s, f"P{s}", colour=colour, score=score, resources=resources,
                           notes=notes, out=state.positions[s] is None))
    return found


def prompt(state: ScavengeState, seat: int) -> str:
    roll = state.roll
    if legal_moves(state, seat) == [{"type": "stay"}]:
        if roll == 0:
            return msg("You rolled 0: your token stays where it is.")
        return nmsg("You rolled {count}, but no path of exactly {count} step is open: your token stays.",
                    "You rolled {count}, but no path of exactly {count} steps is open: your token stays.", roll)
    if state.carrier == seat:
        home = cell_name(data.START_CORNERS[state.players][seat])
        return nmsg("You rolled {count}: carry the good stuff {count} step towards your start at {home}, landing on no token.",
                    "You rolled {count}: carry the good stuff {count} steps towards your start at {home}, landing on no token.",
                    roll, home=home)
    if state.carrier is None and state.trash[seat] == 0:
        return nmsg("You rolled {count}: move {count} step; you carry no trash, so land exactly on the centre to take the good stuff.",
                    "You rolled {count}: move {count} steps; you carry no trash, so land exactly on the centre to take the good stuff.",
                    roll)
    if state.carrier is not None and state.trash[seat] == 0:
        return nmsg("You rolled {count}: move {count} step; land on the carrier to take the good stuff.",
                    "You rolled {count}: move {count} steps; land on the carrier to take the good stuff.", roll)
    return nmsg("You rolled {count}: move {count} step; land on another player to send it home with a piece of your trash.",
                "You rolled {count}: move {count} steps; land on another player to send it home with a piece of your trash.", roll)


def cells(state: ScavengeState, seat: int | None) -> dict[str, str]:
    """Every square's content by name, then the centre's: each reader's first view of a position
    works it out twice (the touched cells against the position before), so the squares' names
    and their empty content are made once, and only the occupied squares looked at."""
    found = _EMPTY_SQUARES.copy()
    centre = "stuff" if state.carrier is None else ""
    for s, node in enumerate(state.positions):
        if node is None:
            continue
        token = f"p{s}t{state.trash[s]}{'*' if state.carrier == s else ''}"
        if node == board.CENTRE:
            centre = token
        elif node in _SQUARE_NAMES:
            found[_SQUARE_NAMES[node]] = token
    found[CENTRE_NAME] = centre
    return found


_SQUARE_NAMES = {node: cell_name(board.coords(node)) for node in board.SQUARES}
_EMPTY_SQUARES = dict.fromkeys(_SQUARE_NAMES.values(), "")
