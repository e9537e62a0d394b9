"""What a page shows of a Terrain Vague position (`rules.presentation`): a panel per gang with
its home turf (the score) and own hexes (the end's tie-break), action points, pawns in reserve
and turf in supply; a prompt for the phase and step; each hex's turf, clubhouse and pawn; and,
once over, how the end was decided and each gang's home turf, the own hexes named where they
split a tied home turf. Only
public things: a wrestling choice shows in a prompt as "chosen", never its tiles."""

from __future__ import annotations

from typing import Any

from rules.presentation import cell_name, item, panel
from rules.terrain_vague import data
from rules.terrain_vague.state import ACT, BUILD, CLUBHOUSE_PLACEMENT, OVER, PICK, WRESTLE, State
from rules.terrain_vague.territory import home_turf_size, own_hex_count
from rules.words import listed, msg, nmsg

GANG_COLOURS = {data.RUBBLES: "sienna", data.BRAMBLES: "forestgreen", data.CESSPOOLS: "steelblue",
                data.SCRAPPERS: "mediumvioletred"}
PAWN_WORDS = {data.WHEELBARROW: msg("wheelbarrows"), data.SLINGSHOT: msg("slingshots"), data.LID: msg("lids"),
              data.BIG_BROTHER: msg("big brother")}
STEP_WORDS = {2: msg("call out pawns"), 3: msg("move pawns"), 4: msg("shoot slingshots"), 5: msg("wheelbarrows rip turf")}
END_WORDS = {"home_turf_25": msg("a home turf of {hexes} hexes or more", hexes=data.WIN_HOME_TURF),
             "largest_home_turf": msg("the largest home turf after the last turn"),
             "last_gang_standing": msg("the last gang still in play")}
GANG_NAMES = {data.RUBBLES: msg("Rubbles"), data.BRAMBLES: msg("Brambles"), data.CESSPOOLS: msg("Cesspools"),
              data.SCRAPPERS: msg("Scrappers")}


def panels(state: State, seat: int | None) -> list[dict[str, Any]]:
    found = []
    for s, gang in enumerate(state.seats):
        left = {kind: state.reserves.get((gang, kind), 0) for kind in PAWN_WORDS}
        pawns = msg("wheelbarrows {wheelbarrows}, slingshots {slingshots}, lids {lids}, big brother {big_brother}",
                    wheelbarrows=left[data.WHEELBARROW], slingshots=left[data.SLINGSHOT], lids=left[data.LID],
                    big_brother=left[data.BIG_BROTHER])
        supply = "/".join(str(state.supplies.get((gang, strength), 0)) for strength in data.STRENGTHS)
        resources = [
            item(msg("action points"), state.points.get(gang, 0)),
            item(msg("pawns in reserve"), pawns),
            item(msg("turf left (wimpy/tough)"), supply),
        ]
        notes = []
        if state.turn > 0 and state.clubhouses.get(gang, "absent") is None:  # None in setup: not placed yet
            notes.append(msg("clubhouse beaned"))
        if gang in state.winners:
            notes.append(msg("won"))
        if gang in state.eliminated:
            notes.append(msg("eliminated"))
        turf = home_turf_size(state, gang)
        found.append(panel(s, GANG_NAMES.get(gang) or gang.capitalize(), colour=GANG_COLOURS[gang], score=turf,
                           score_parts=[item(msg("home turf"), turf), item(msg("own hexes"), own_hex_count(state, gang))],
                           resources=resources, notes=notes, out=gang in state.eliminated))
    return found


def prompt(state: State, seat: int) -> str:
    gang = state.seats[seat]
    if state.phase == BUILD:
        return msg("Build the board: place a hex of turf next to the board.")
    if state.phase == CLUBHOUSE_PLACEMENT:
        return msg("Place your clubhouse on a hex of your own turf.")
    if state.phase == PICK:
        return msg("Pick the gang you will wrestle this turn.")
    if state.phase == WRESTLE and state.duels:
        duel = state.duels[0]
        if gang == duel.attacker:
            other = GANG_NAMES.get(duel.defender) or duel.defender.capitalize()
            return nmsg("Choose your {count} wrestling digit against the {gang}: they will not see them until both have chosen.",
                        "Choose your {count} wrestling digits against the {gang}: they will not see them until both have chosen.",
                        duel.attack_number, gang=other)
        other = GANG_NAMES.get(duel.attacker) or duel.attacker.capitalize()
        return nmsg("Choose your {count} wrestling bar against the {gang}: they will not see them until both have chosen.",
                    "Choose your {count} wrestling bars against the {gang}: they will not see them until both have chosen.",
                    duel.defence_number, gang=other)
    if state.phase == ACT:
        return nmsg("Turn {turn}, step {step} ({doing}): {count} action point left; act, or end the step.",
                    "Turn {turn}, step {step} ({doing}): {count} action points left; act, or end the step.",
                    state.points.get(gang, 0), turn=state.turn, step=state.step, doing=STEP_WORDS.get(state.step) or msg("act"))
    if state.phase == OVER:
        return msg("The game is over.")
    return msg("Your move.")


def ending(state: State) -> str | None:
    """How the end was decided, in the words a result line ends with, with what each gang
    scored: the outcome's scores are win shares (1 and 0), which no player recognises beside
    the home turf their panel showed all game. The own hexes are named where they split a tied
    home turf."""
    if state.phase != OVER:
        return None
    words = _end_words(state)
    scores = _home_turfs(state)
    if len(state.winners) > 1:
        return msg("{words}; home turf {scores}; own hexes tied too ({own}): a shared win", words=words, scores=scores,
                   own=own_hex_count(state, state.winners[0]))
    level = _level_with_the_winner(state)
    if level:
        return msg("{words}; home turf {scores}; most own hexes on the board, {own} to {other}", words=words,
                   scores=scores, own=own_hex_count(state, state.winners[0]),
                   other=max(own_hex_count(state, g) for g in level))
    return msg("{words}; home turf {scores}", words=words, scores=scores)


def decided(state: State) -> str | None:
    """How the end was decided, without the scores: the text board's status line, above the
    gangs' lines that show each home turf already."""
    if state.phase != OVER:
        return None
    words = _end_words(state)
    if not state.winners:
        return words
    winner = state.winners[0]
    turf, own = home_turf_size(state, winner), own_hex_count(state, winner)
    if len(state.winners) > 1:
        return msg("{words}, tied at {turf}, and own hexes too ({own}): a shared win", words=words, turf=turf, own=own)
    level = _level_with_the_winner(state)
    if not level:
        return words
    return msg("{words}, tied at {turf}; most own hexes on the board, {own} to {other}", words=words, turf=turf, own=own,
               other=max(own_hex_count(state, g) for g in level))


def _end_words(state: State) -> str:
    return END_WORDS.get(state.end_reason) or state.end_reason.replace("_", " ")


def _level_with_the_winner(state: State) -> list[str]:
    """The gangs still in play level with a sole winner's home turf: they could have won, so
    the own hexes decided it. None where the win is shared or nobody won."""
    if len(state.winners) != 1:
        return []
    winner = state.winners[0]
    turf = home_turf_size(state, winner)
    return [g for g in state.in_play if g != winner and home_turf_size(state, g) == turf]


def _home_turfs(state: State) -> str:
    """Each gang's home turf in seat order, as its panel scores it, the winners marked."""
    def scored(gang: str) -> str:
        name, turf = GANG_NAMES.get(gang) or gang.capitalize(), home_turf_size(state, gang)
        return msg("{gang} {turf} (won)", gang=name, turf=turf) if gang in state.winners else msg("{gang} {turf}", gang=name, turf=turf)
    return listed([scored(gang) for gang in state.seats])


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
