"""A plain-text picture of the Junkyard for one seat, for email and terminals.

Each hex is a 3-character cell: the turf letter (upper case tough, lower case wimpy; `~~~` is the
Toxic Waste, `.` an unbuilt position), then the pawn on it as gang letter + kind letter
(`H` clubhouse, `w` wheelbarrow, `s` slingshot, `l` lid, `b` big brother): `rBw` is a Brambles
wheelbarrow on wimpy Rubbles turf. Rows run r = -R..R, each labelled with its r, and under
each row every hex's q stands right under it, so a move's `q,r` is read off the board.
"""

from __future__ import annotations

from functools import lru_cache

from rules import text as text_board
from rules.terrain_vague import data, hexes, presentation, wrestling
from rules.terrain_vague.state import ACT, BUILD, OVER, State
from rules.terrain_vague.territory import home_turf_size
from rules.words import msg

CELL = 4  # 3 characters and a space


def _turf_mark(state: State, hex_: hexes.Hex) -> str:
    if hex_ not in state.board:
        return "."
    turf = state.board[hex_]
    if turf is None:
        return "~"
    letter = data.GANG_LETTER[turf.gang]
    return letter if turf.strength == data.TOUGH else letter.lower()


def _pawn_mark(state: State, hex_: hexes.Hex) -> str:
    if hex_ == hexes.CENTRE:
        return "~~"
    pawn = state.occupant(hex_)
    if pawn is None:
        return "  "
    return data.GANG_LETTER[pawn.gang] + data.PAWN_LETTER[pawn.kind]


def _cell(state: State, hex_: hexes.Hex) -> str:
    return f"{_turf_mark(state, hex_)}{_pawn_mark(state, hex_)}"


@lru_cache(maxsize=None)
def _rows(radius: int) -> tuple[tuple[hexes.Hex, ...], ...]:
    return tuple(
        tuple(h for h in hexes.board_hexes(radius) if h[1] == r) for r in range(-radius, radius + 1)
    )


def board_lines(state: State) -> list[str]:
    """Cached on the (immutable) state: every seat's picture shares it."""
    cached = state.__dict__.get("_board_lines")
    if cached is None:
        cached = state.__dict__["_board_lines"] = _draw_board(state)
    return list(cached)


def _draw_board(state: State) -> list[str]:
    """Each row of hexes with its r on the left and, on the line under it, each hex's q right
    under the hex: a move's "q,r" is read off, never counted."""
    lines = []
    for row in _rows(state.radius):
        r = row[0][1]
        indent = " " * (abs(r) * CELL // 2)
        lines.append(f"{f'r={r}':>{LABEL}} {indent}{' '.join(_cell(state, h) for h in row)}".rstrip())
        lines.append(f"{'q=':>{LABEL}} {indent}{' '.join(str(h[0]).ljust(CELL - 1) for h in row)}".rstrip())
    return lines


LABEL = 5  # "r=-5"


def _gang_line(state: State, gang: str) -> str:
    seat = state.seat_of(gang)
    status = "out" if gang in state.eliminated else f"{state.points.get(gang, 0):>2} pts"
    pawns = " ".join(
        f"{data.PAWN_LETTER[k]}{state.reserve(gang, k)}" for k in data.PAWN_KINDS
    )
    supply = "/".join(str(state.supply(gang, s)) for s in data.STRENGTHS)
    return (
        f"  {data.GANG_LETTER[gang]} {gang:<10} seat {seat}  {status}  home turf "
        f"{home_turf_size(state, gang):>2}  pawns {pawns}  turf w/t {supply}"
    )


def _status_line(state: State) -> str:
    if state.phase == OVER:
        return f"Game over, {presentation.ending(state)}: winner(s) {', '.join(state.winners) or 'none'}"
    if state.phase == BUILD:
        return f"Building the board: {state.acting} places a hex"
    if state.turn == 0:
        return f"Setup ({state.phase}): {state.acting} to act"
    head = f"Turn {state.turn}, step {state.step}"
    if state.phase == ACT:
        return f"{head}: {state.acting} acts (order {', '.join(state.order)})"
    if state.duels:
        duel = state.duels[0]
        return f"{head}: Indian wrestling, {duel.attacker} attacks {duel.defender}"
    return f"{head}: {state.acting} to act ({state.phase})"


def _duel_lines(state: State, seat_gang: str | None) -> list[str]:
    lines = []
    for duel in state.wrestled:
        points, cancelled = wrestling.score(duel.attack.tiles, duel.defence.tiles)
        lines.append(
            f"  {duel.attacker} digits {list(duel.attack.tiles)} vs {duel.defender} bars "
            f"{list(duel.defence.tiles)}: {points} pts, {cancelled} cancelled"
        )
    if state.duels:
        duel = state.duels[0]
        sides = (("attack", duel.attacker, duel.attack), ("defence", duel.defender, duel.defence))
        for side, gang, choice in sides:
            shown = "waiting" if choice is None else (
                f"chose {list(choice.tiles)}" if gang == seat_gang else "has chosen (secret)"
            )
            lines.append(f"  {side}: {gang} {shown}")
    return lines


def render(state: State, seat_gang: str | None) -> str:
    lines = ["TERRAIN VAGUE", _status_line(state), ""]
    lines += board_lines(state)
    lines += ["", msg("A hex q,r: its row's r is on the left, its q on the line under it.")]
    lines += [msg("Turf: R rubbles, B brambles, C cesspools, S scrappers (upper case tough).")]
    lines += [msg("Pawns: H clubhouse, w wheelbarrow, s slingshot, l lid, b big brother.")]
    lines += [msg("Per gang: pawns left in reserve, wimpy/tough turf left in supply."), ""]
    lines += [_gang_line(state, g) for g in state.gangs]
    lines += _duel_lines(state, seat_gang)
    if seat_gang is not None:
        lines += ["", f"You are {seat_gang}."]
    return "\n".join(text_board.fit(lines)) + "\n"
