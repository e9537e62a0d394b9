"""`render_text`: the map, then every ship as a small grid, for a monospaced email."""

from __future__ import annotations

from rules import text as text_board
from rules.space_junkyard.data import ASTEROIDS, CLOSED, RESOURCES, SHIP_PARTS
from rules.space_junkyard.ship import Part, by_place, capacity, part_edges, score
from rules.space_junkyard.state import (
    JUNK_PHASE,
    MOVE_PHASE,
    OVER,
    RESOURCES_PHASE,
    START_PHASE,
    State,
    forbidden_entries,
)
from rules.words import listed, msg

_PHASES = {
    START_PHASE: msg("start"),
    RESOURCES_PHASE: msg("resources"),
    MOVE_PHASE: msg("movement"),
    JUNK_PHASE: msg("new junk"),
}
_ENDINGS = {"stack_empty": msg("stack empty"), "last_player_left": msg("last player left")}


def _headline(state: State) -> list[str]:
    turn = state.turn
    if turn.phase == OVER:
        return [msg("Space Junkyard: game over ({reason})", reason=_ENDINGS.get(state.end_reason) or state.end_reason.replace("_", " "))]
    phase = _PHASES[turn.phase]
    lines = [msg("Space Junkyard: turn {turn}, ship {seat} to act, {phase} phase", turn=turn.number, seat=turn.seat, phase=phase)]
    if turn.phase == MOVE_PHASE:
        counts = {"steps": turn.steps, "asteroids": turn.asteroids, "sections": turn.sections}
        lines.append(msg("  steps left {steps} (extra steps bought); taken {asteroids} asteroid(s), {sections} section(s)", **counts)
                     if turn.bought else
                     msg("  steps left {steps} (extra steps not bought); taken {asteroids} asteroid(s), {sections} section(s)", **counts))
    if turn.phase == JUNK_PHASE:
        closed = ", ".join(sorted(forbidden_entries(state))) or msg("none")
        lines.append(msg("  drawn tile: {tile}; entries closed: {closed}", tile=describe_tile(state.drawn), closed=closed))
    if turn.phase == START_PHASE:
        lines.append(msg("  each seat in turn places its ship on a free corner (NW, NE, SE, SW)"))
    lines.append(msg("  tiles in the stack: {count}", count=len(state.stack)))
    return lines


def _map(state: State) -> list[str]:
    size = state.size
    ships = {ship.at: seat for seat, ship in enumerate(state.ships) if ship.at is not None}
    header = "     " + "".join(f"  {x + 1}   " for x in range(size))
    rule = "    +" + "-----+" * size
    lines = [msg("Map (cells: tile and @ship; push entries are N/S + column, E/W + row):"), header, rule]
    for y in range(size):
        cells = []
        for x in range(size):
            tile = state.cell(x, y) or "   "
            mark = f"@{ships[(x, y)]}" if (x, y) in ships else "  "
            cells.append(f"{tile}{mark}")
        lines.append(f" {y + 1:>2} |" + "|".join(cells) + "|")
        lines.append(rule)
    return lines


def _legend(state: State) -> list[str]:
    """What the tiles on the map are: asteroids on one line, a line per section."""
    tiles = sorted(tile for tile in state.cells if tile is not None)
    rocks = [f"{tile} {ASTEROIDS[tile]}" for tile in tiles if tile in ASTEROIDS]
    lines = [msg("Tiles on the map:")]
    for start in range(0, len(rocks), 8):
        lines.append(msg("  asteroids: {rocks}", rocks=", ".join(rocks[start : start + 8])))
    lines += [msg("  {tile}", tile=describe_tile(tile)) for tile in tiles if tile not in ASTEROIDS]
    return lines


def describe_tile(tile: str | None) -> str:
    """A tile in words: its id and, for a section, what it is worth and does (the resources by
    their letters, as the legend names them)."""
    if tile is None:
        return msg("none")
    if tile in ASTEROIDS:
        return msg("{tile} asteroid {resources}", tile=tile, resources=ASTEROIDS[tile])
    section = SHIP_PARTS[tile]
    edges = "/".join("-" if e is CLOSED else (e or "o") for e in section.edges)
    traits = [msg("{points} VP", points=section.points), msg("edges NESW {edges}", edges=edges)]
    if section.produce:
        traits.append(msg("makes {resources}", resources="/".join(section.produce)))
    if section.store:
        traits.append(msg("stores {resources}", resources=section.store))
    if section.convert:
        traits.append(msg("converts {resources}", resources=">".join(section.convert)))
    if section.recycle:
        traits.append(msg("scrap {resources}", resources=section.recycle))
    return msg("{tile} section: {traits}", tile=tile, traits=listed(traits))


def _edge_text(edge: str | None) -> str:
    return "#" if edge is CLOSED else (edge or "o")


def _ship_grid(parts: tuple[Part, ...], turn: int) -> list[str]:
    """Each section as three lines of 11 characters: its N edge, W edge tile E edge, its S edge.
    '#' is closed, 'o' an opening with no cost, letters an opening's cost; '*' marks a section
    that works from next turn."""
    places = by_place(parts)
    xs, ys = [x for x, _ in places], [y for _, y in places]
    lines = []
    for y in range(min(ys), max(ys) + 1):
        rows = ["", "", ""]
        for x in range(min(xs), max(xs) + 1):
            part = places.get((x, y))
            if part is None:
                rows = [row + " " * 11 for row in rows]
                continue
            n, e, s, w = (_edge_text(edge) for edge in part_edges(part))
            fresh = "*" if part.added >= turn else " "
            rows[0] += f"{n:^11}"
            rows[1] += f"{w:>3} {part.tile}{fresh}{e:<3}"
            rows[2] += f"{s:^11}"
        lines += ["    " + row.rstrip() for row in rows]
    return lines


def _ship(state: State, seat: int) -> list[str]:
    ship = state.ships[seat]
    if ship.out:
        return [msg("Ship {seat}: out of the game", seat=seat)]
    if ship.at is None:
        where = msg("off the {side} side", side=ship.off_side) if ship.off_side else msg("not placed yet")
    else:
        where = msg("at column {column}, row {row}", column=ship.at[0] + 1, row=ship.at[1] + 1)
    room = capacity(ship.parts, state.turn.number)
    stores = ", ".join(f"{c} {have}/{cap}" for c, have, cap in zip(RESOURCES, ship.stores, room))
    lines = [msg("Ship {seat}: {where}; stores {stores}; score {score}", seat=seat, where=where, stores=stores,
                 score=score(ship.parts))]
    lines += _ship_grid(ship.parts, state.turn.number)
    for part in ship.parts:
        lines.append(msg("    [{x},{y}] turned {rotation}: {tile}", x=part.x, y=part.y, rotation=part.rotation,
                         tile=describe_tile(part.tile)))
    return lines


def _key(seat: int | None) -> list[str]:
    """What the letters and marks mean, an entry a line. Each entry is a whole sentence of its
    own, short enough to stay within the mail width in any language: a sentence split across two
    lines was translated as two halves, and a longer Dutch half wrapped a word onto a line alone."""
    viewer = msg("spectator") if seat is None else msg("ship {seat}", seat=seat)
    return [
        msg("  Key (view of {viewer}):", viewer=viewer),
        msg("    Y radioactive, B carbon, R metal"),
        msg("    edge - or #: closed"),
        msg("    edge o: an opening at no cost"),
        msg("    edge letters: an opening's cost"),
        msg("    *: the section works from next turn"),
    ]


def render(state: State, seat: int | None) -> str:
    lines = [*_headline(state), *_key(seat), ""]
    lines += _map(state)
    lines += _legend(state)
    for other in range(state.players):
        lines += ["", *_ship(state, other)]
    if state.gone:
        lines += ["", msg("Out of the game: {ships}", ships=" ".join(state.gone))]
    return text_board.joined(lines)
