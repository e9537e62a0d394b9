"""What a page shows of a Space Junkyard position (`rules.presentation`): a panel per ship with
its score, sections and stores (and the phase for the ship to act), a prompt for the phase, and
the map's cells and each ship's places."""

from __future__ import annotations

from typing import Any

from rules.presentation import COLOUR_NAMES, SEAT_COLOURS, item, panel
from rules.space_junkyard.ship import capacity, score
from rules.space_junkyard.state import JUNK_PHASE, MOVE_PHASE, OVER, RESOURCES_PHASE, START_PHASE, State
from rules.words import msg, nmsg

STORE_NAMES = (msg("radioactive (Y)"), msg("carbon (B)"), msg("metal (R)"))
PHASE_NAMES = {START_PHASE: msg("placing ships"), RESOURCES_PHASE: msg("resources"), MOVE_PHASE: msg("movement"),
               JUNK_PHASE: msg("new junk"), OVER: msg("over")}


def panels(state: State, seat: int | None) -> list[dict[str, Any]]:
    found = []
    for s, ship in enumerate(state.ships):
        room = capacity(ship.parts, state.turn.number)
        resources = [item(name, f"{ship.stores[i]}/{room[i]}") for i, name in enumerate(STORE_NAMES)]
        if state.turn.phase != OVER and state.turn.seat == s:
            resources.append(item(msg("phase"), PHASE_NAMES[state.turn.phase]))
            if state.turn.phase == MOVE_PHASE:
                resources.append(item(msg("steps left"), state.turn.steps))
        notes = []
        if ship.at is None and not ship.out and state.turn.phase != START_PHASE:
            notes.append(msg("pushed off the {side} side", side=ship.off_side) if ship.off_side else msg("not on the map"))
        colour = SEAT_COLOURS[s]
        found.append(panel(s, msg("{colour} ship", colour=COLOUR_NAMES[colour]), colour=colour,
                           score=0 if ship.out else score(ship.parts),
                           score_parts=[item(msg("sections"), len(ship.parts) - 1)],
                           resources=resources, notes=notes, out=ship.out))
    return found


def prompt(state: State, seat: int) -> str:
    turn = state.turn
    ship = state.ships[seat]
    if turn.phase == START_PHASE:
        return msg("Place your ship on a free corner of the map.")
    if turn.phase == RESOURCES_PHASE:
        return msg("Resources: produce and convert on your ship's sections, then end the phase.")
    if turn.phase == MOVE_PHASE:
        if ship.at is None:
            return msg("Your ship was pushed off: bring it back in on a border cell of the {side} side.", side=ship.off_side)
        return nmsg("Movement: {count} step left. Step, buy more steps, take the tile under your ship, or end your move.",
                    "Movement: {count} steps left. Step, buy more steps, take the tile under your ship, or end your move.",
                    turn.steps)
    if turn.phase == JUNK_PHASE:
        return msg("New junk: push the drawn tile {tile} into the map from an open entry.", tile=state.drawn)
    return msg("Your move.")


def cells(state: State, seat: int | None) -> dict[str, str]:
    found = {}
    for y in range(state.size):
        for x in range(state.size):
            ships = "".join(str(s) for s, ship in enumerate(state.ships) if ship.at == (x, y) and not ship.out)
            found[f"map:{x},{y}"] = f"{state.cell(x, y) or ''}@{ships}"
    for s, ship in enumerate(state.ships):
        for part in ship.parts:
            place = f"{part.x},{part.y}"
            found[place if s == seat else f"ship{s}:{place}"] = f"{part.tile}/{part.rotation}"
    return found


def cell_words(name: str, seat: int | None) -> str:
    """A name of `cells` as the text board shows the cell: a map cell by the column and row
    numbered from 1 above and beside the map ("map:0,4" is column 1, row 5), a ship's section by
    the ship and the [x,y] its list of sections gives it ("ship1:0,-1", or "0,-1" on the seat's
    own ship, is ship 1 [0,-1])."""
    where, _, place = name.rpartition(":")
    x, y = (int(part) for part in place.split(","))
    if where == "map":
        return msg("map column {column}, row {row}", column=x + 1, row=y + 1)
    ship = int(where.removeprefix("ship")) if where else seat
    return msg("ship {seat} [{x},{y}]", seat=ship, x=x, y=y)
