"""What a page shows of a Terrain Vague position (`rules.presentation`): a panel per gang with
its home turf (the score) and own hexes (the end's tie-break), action points, pawns in reserve
and turf in supply; a prompt for the phase and step; each hex's turf, clubhouse and pawn; and,
once over, how the end was decided, the own hexes named where they split a tied home turf. Only
public things: a wrestling choice shows in a prompt as "chosen", never its tiles."""

from __future__ import annotations

from typing import Any

from rules.presentation import cell_name, item, panel, plural
from rules.terrain_vague import data
from rules.terrain_vague.state import ACT, BUILD, CLUBHOUSE_PLACEMENT, OVER, PICK, WRESTLE, State
from rules.terrain_vague.territory import home_turf_size, own_hex_count

GANG_COLOURS = {data.RUBBLES: "sienna", data.BRAMBLES: "forestgreen", data.CESSPOOLS: "steelblue",
                data.SCRAPPERS: "mediumvioletred"}
PAWN_WORDS = {data.WHEELBARROW: "wheelbarrows", data.SLINGSHOT: "slingshots", data.LID: "lids",
              data.BIG_BROTHER: "big brother"}
STEP_WORDS = {2: "call out pawns", 3: "move pawns", 4: "shoot slingshots", 5: "wheelbarrows rip turf"}
END_WORDS = {"home_turf_25": f"a home turf of {data.WIN_HOME_TURF} hexes or more",
             "largest_home_turf": "the largest home turf after the last turn",
             "last_gang_standing": "the last gang still in play"}


def panels(state: State, seat: int | None) -> list[dict[str, Any]]:
    found = []
    for s, gang in enumerate(state.seats):
        pawns = ", ".join(f"{PAWN_WORDS[kind]} {state.reserves.get((gang, kind), 0)}" for kind in PAWN_WORDS)
        supply = "/".join(str(state.supplies.get((gang, strength), 0)) for strength in data.STRENGTHS)
        resources = [
            item("action points", state.points.get(gang, 0)),
            item("pawns in reserve", pawns),
            item("turf left (wimpy/tough)", supply),
        ]
        notes = []
        if state.turn > 0 and state.clubhouses.get(gang, "absent") is None:  # None in setup: not placed yet
            notes.append("clubhouse beaned")
        if gang in state.winners:
            notes.append("won")
        if gang in state.eliminated:
            notes.append("eliminated")
        turf = home_turf_size(state, gang)
        found.append(panel(s, gang.capitalize(), colour=GANG_COLOURS[gang], score=turf,
                           score_parts=[item("home turf", turf), item("own hexes", own_hex_count(state, gang))],
                           resources=resources, notes=notes, out=gang in state.eliminated))
    return found


def prompt(state: State, seat: int) -> str:
    gang = state.seats[seat]
    if state.phase == BUILD:
        return "Build the board: place a hex of turf next to the board."
    if state.phase == CLUBHOUSE_PLACEMENT:
        return "Place your clubhouse on a hex of your own turf."
    if state.phase == PICK:
        return "Pick the gang you will wrestle this turn."
    if state.phase == WRESTLE and state.duels:
        duel = state.duels[0]
        if gang == duel.attacker:
            what, other, count = "digits", duel.defender, duel.attack_number
        else:
            what, other, count = "bars", duel.attacker, duel.defence_number
        return (f"Choose your {plural(count, 'wrestling ' + what[:-1], 'wrestling ' + what)} against the "
                f"{other.capitalize()}: they will not see them until both have chosen.")
    if state.phase == ACT:
        points = plural(state.points.get(gang, 0), "action point")
        return f"Turn {state.turn}, step {state.step} ({STEP_WORDS.get(state.step, 'act')}): {points} left; act, or end the step."
    if state.phase == OVER:
        return "The game is over."
    return "Your move."


def ending(state: State) -> str | None:
    """How the end was decided. The score line shows home turf alone, so where it tied among
    the gangs that could win, the words name what split them: own hexes on the board."""
    if state.phase != OVER:
        return None
    words = END_WORDS.get(state.end_reason, state.end_reason.replace("_", " "))
    if not state.winners:
        return words
    winner = state.winners[0]
    turf, own = home_turf_size(state, winner), own_hex_count(state, winner)
    if len(state.winners) > 1:
        return f"{words}, tied at {turf}, and own hexes too ({own}): a shared win"
    # A gang still in play level with the winner could have won: it was among the contenders.
    level = [g for g in state.in_play if g != winner and home_turf_size(state, g) == turf]
    if not level:
        return words
    return f"{words}, tied at {turf}; most own hexes on the board, {own} to {max(own_hex_count(state, g) for g in level)}"


def cells(state: State, seat: int | None) -> dict[str, str]:
    # Every hex is public, so each seat's cells are the same: worked out once a position (the
    # state never changes; a page, a stream and a mail of each seat all ask), a copy handed out.
    found = state.__dict__.get("_cells")
    if found is None:
        found = state.__dict__["_cells"] = _cells(state)
    return dict(found)


def _cells(state: State) -> dict[str, str]:
    clubhouse_at = {at: gang for gang, at in state.clubhouses.items() if at is not None}
    found = {}
    for hex_, turf in state.board.items():
        content = "~" if turf is None else f"{turf.gang}:{turf.strength}"
        if hex_ in clubhouse_at:
            content += f"|clubhouse:{clubhouse_at[hex_]}"
        pawn = state.pawns.get(hex_)
        if pawn is not None:
            content += f"|{pawn.gang}:{pawn.kind}"
        found[cell_name(hex_)] = content
    return found
