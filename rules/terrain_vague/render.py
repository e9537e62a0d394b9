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
from rules.terrain_vague import data, hexes, presentation, words, wrestling
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
    status = msg("out") if gang in state.eliminated else msg("{points:>2} pts", points=state.points.get(gang, 0))
    pawns = " ".join(
        f"{data.PAWN_LETTER[k]}{state.reserve(gang, k)}" for k in data.PAWN_KINDS
    )
    supply = "/".join(str(state.supply(gang, s)) for s in data.STRENGTHS)
    return msg("  {letter} {gang:<10} seat {seat}  {status}  home turf {home:>2}  pawns {pawns}  turf w/t {supply}",
               letter=data.GANG_LETTER[gang], gang=words.board_gang(gang), seat=seat, status=status, home=home_turf_size(state, gang),
               pawns=pawns, supply=supply)


def _status_line(state: State) -> str:
    if state.phase == OVER:
        return msg("Game over, {ending}: winner(s) {winners}", ending=presentation.decided(state),
                   winners=words.board_gangs(state.winners) or msg("none"))
    if state.phase == BUILD:
        return msg("Building the board: {gang} places a hex", gang=words.board_gang(state.acting))
    if state.turn == 0:
        return msg("Setup ({phase}): {gang} to act", phase=words.phase(state.phase), gang=words.board_gang(state.acting))
    head = msg("Turn {turn}, step {step}", turn=state.turn, step=state.step)
    if state.phase == ACT:
        return msg("{head}: {gang} acts (order {order})", head=head, gang=words.board_gang(state.acting),
                   order=words.board_gangs(state.order))
    if state.duels:
        duel = state.duels[0]
        return msg("{head}: Indian wrestling, {attacker} attacks {defender}", head=head, attacker=words.board_gang(duel.attacker),
                   defender=words.board_gang(duel.defender))
    return msg("{head}: {gang} to act ({phase})", head=head, gang=words.board_gang(state.acting), phase=words.phase(state.phase))


def _duel_lines(state: State, seat_gang: str | None) -> list[str]:
    lines = []
    for duel in state.wrestled:
        points, cancelled = wrestling.score(duel.attack.tiles, duel.defence.tiles)
        lines.append(msg("  {attacker} digits {digits} vs {defender} bars {bars}: {points} pts, {cancelled} cancelled",
                         attacker=words.board_gang(duel.attacker), digits=list(duel.attack.tiles),
                         defender=words.board_gang(duel.defender), bars=list(duel.defence.tiles), points=points,
                         cancelled=cancelled))
    if state.duels:
        duel = state.duels[0]
        sides = ((msg("attack"), duel.attacker, duel.attack), (msg("defence"), duel.defender, duel.defence))
        for side, gang, choice in sides:
            shown = msg("waiting") if choice is None else (
                msg("chose {tiles}", tiles=list(choice.tiles)) if gang == seat_gang else msg("has chosen (secret)")
            )
            lines.append(msg("  {side}: {gang} {shown}", side=side, gang=words.board_gang(gang), shown=shown))
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
        lines += ["", msg("You are {gang}.", gang=words.board_gang(seat_gang))]
    return text_board.joined(lines)
