"""What a page shows of a Terrafex position (`rules.presentation`): White's and Black's panels
with the score and its parts (forests, mountains, fires under each player's bands), the actions
left, a prompt for the action or the fire to place, and each square's piece."""

from __future__ import annotations

from typing import Any

from rules.presentation import cell_name, item, panel
from rules.terrafex import turns, words
from rules.terrafex.board import SCORE_SIGN, band_owner, coords
from rules.terrafex.data import ACTIONS, FIRE, FOREST, MOUNTAIN, SIZE_NAMES
from rules.terrafex.state import State, seat_scores
from rules.words import either, listed, msg

PART_NAMES = {FOREST: msg("forests"), MOUNTAIN: msg("mountains"), FIRE: msg("fires")}
SEAT_NAMES = {"white": msg("White"), "black": msg("Black")}
SIZE_SAID = words.SIZES


def _colour_of(state: State, seat: int) -> str:
    return "white" if seat == state.white else "black"


def panels(state: State, seat: int | None) -> list[dict[str, Any]]:
    parts = {"white": dict.fromkeys(PART_NAMES.values(), 0), "black": dict.fromkeys(PART_NAMES.values(), 0)}
    for square, cell in enumerate(state.board):
        if cell is not None and SCORE_SIGN[cell[0]]:
            parts[band_owner(square, cell[1])][PART_NAMES[cell[0]]] += SCORE_SIGN[cell[0]] * cell[1]
    scores = seat_scores(state)
    over = turns.is_over(state)
    found = []
    for s in (0, 1):
        colour = _colour_of(state, s)
        resources = []
        if not over and s == state.mover:
            left = [action for action in ACTIONS if action not in state.done]
            resources.append(item(msg("actions left"), listed(words.action(a) for a in left) or msg("none")))
        if not over and state.fire_in_hand and s != state.mover:
            resources.append(item(msg("fire to place"), SIZE_SAID[state.fire_in_hand]))
        notes = [msg("moves first")] if s == state.white else []
        if state.forfeited == s:
            notes.append(msg("resigned"))
        found.append(panel(s, SEAT_NAMES[colour], colour=colour, score=scores[s],
                           score_parts=[item(name, value) for name, value in parts[colour].items()],
                           resources=resources, notes=notes, out=state.forfeited == s))
    return found


def prompt(state: State, seat: int) -> str:
    if state.fire_in_hand:
        return msg("Place the {size} fire your opponent took: start a fire on an empty square, grow a "
                   "fire, or burn a forest or a frost.", size=SIZE_SAID[state.fire_in_hand])
    kinds = []
    for move in turns.moves_for(state):
        if move["type"] not in kinds:
            kinds.append(move["type"])
    return msg("Turn {turn}: take an action ({kinds}); each colour once a turn.", turn=state.turn, kinds=either(words.action(kind) for kind in kinds))


def cells(state: State, seat: int | None) -> dict[str, str]:
    found = {}
    for square, cell in enumerate(state.board):
        content = ""
        if cell is not None:
            colour, size, inner = cell
            content = f"{colour}{SIZE_NAMES[size]}{SIZE_NAMES.get(inner, '')}"
        found[cell_name(coords(square))] = content
    return found
