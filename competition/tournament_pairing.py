"""Tournament pairings and standings: pure Python over entrant ids, no Django.

- Round robin (two-player games): the circle method, every entrant meets every other once; with
  an odd number one sits out each round (a bye). Seat 0 alternates: with an odd number everyone
  has it in half their games, with an even number in half give or take one.
- Swiss (two-player games): the FIDE Dutch system (C.04.3) as bbpPairings computes it
  (`competition.dutch`): score brackets from the top, each with as many pairs as possible and
  then the handbook's criteria in order (no repeat, seat preferences, float history), the bye to
  the lowest-ranked eligible entrant of the lowest score group. Every entrant present plays or has
  the bye. Pairing numbers follow the entry rating (highest first), then entry order.
- Tables (three or four seats): entrants ranked the same way sit at tables in order, the top
  `size` at the first; those left over (fewer than a table) sit out, lowest-ranked first, nobody
  twice while another has not.

Points: a game's points are the share of the other seats a seat finished ahead of, a tie counting
half (so 1, ½, 0 in a two-player game). A bye is worth 1. A game that ended without being played
(aborted, cancelled, abandoned) is worth 0 to every seat.

Tie-breaks: Buchholz is the sum of the points of every opponent met; Sonneborn-Berger the sum,
over games, of each opponent's points times the result against that opponent. Standings order
by points, then (Swiss) Buchholz, Sonneborn-Berger, rating, or (round robin) Sonneborn-Berger,
wins, rating.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable

from competition import dutch
from competition.rating_fold import NOT_PLAYED_OUT

BYE_POINTS = 1.0
SIT_OUT_POINTS = 0.5
BYE, FORFEIT, GAME, UNPLAYED = "bye", "forfeit", "game", "unplayed"
# A lone table's reason for a bye the entrant asked for (or a TRF gave), not the pairing's: half a
# point, a point.
HALF_POINT_BYE, FULL_POINT_BYE = "half_bye", "full_bye"
HALF_POINT_BYE_POINTS = 0.5
BYES_ASKED_FOR = (HALF_POINT_BYE, FULL_POINT_BYE)
# A table of two decided by forfeit without a game (a TRF's `+` against `-`, or `-` against `-`):
# its points say who won. Seat 0 had white, unless the file gave the two no colours.
FORFEITED, FORFEITED_NO_COLOURS = "forfeited", "forfeited_no_colours"
# A game a TRF file says was played but not rated (`W` `D` `L`): a game like any for the pairing
# and the standings, kept apart so that the file we write gives it back as it came.
NOT_RATED = "trf_not_rated"


def swiss_rounds(entrants: int) -> int:
    """Enough rounds to find a winner among `entrants`: ⌈log2 n⌉, at least 1, at most n - 1."""
    return max(1, min(entrants - 1, math.ceil(math.log2(max(entrants, 2)))))


def round_robin_rounds(entrants: int) -> int:
    return entrants - 1 if entrants % 2 == 0 else entrants


def round_robin(entrants: list[int], round_number: int) -> list[tuple[int, ...]]:
    """The pairs of round `round_number` (1-based), seat order in each; a bye is a 1-tuple."""
    # With an odd number the bye is the fixed point of the circle: everyone then has seat 0 in
    # exactly half their games (with an even number, one more or one fewer).
    players: list[int | None] = [None, *entrants] if len(entrants) % 2 else list(entrants)
    n = len(players)
    rotation = (round_number - 1) % (n - 1)
    fixed, rest = players[0], players[1:]
    rest = rest[-rotation:] + rest[:-rotation] if rotation else rest
    circle = [fixed, *rest]
    tables: list[tuple[int, ...]] = []
    for i in range(n // 2):
        one, other = circle[i], circle[n - 1 - i]
        if one is None or other is None:
            tables.append((one if other is None else other,))  # type: ignore[arg-type]
            continue
        # alternate who sits first: the fixed player by round, the others by table
        first_one = (round_number % 2 == 1) if i == 0 else (i % 2 == 0)
        tables.append((one, other) if first_one else (other, one))
    byes = [table for table in tables if len(table) == 1]
    return [table for table in tables if len(table) == 2] + byes


def round_robin_round(entrants: list[int], round_number: int, withdrawn: set[int]) -> list[tuple[tuple[int, ...], str]]:
    """Round `round_number` of the schedule made at the start over `entrants` (everyone who
    started, in the order they were numbered), as (seats, kind) pairs: a game (kind ""), a bye, or
    a forfeit where one of the two has withdrawn: the one present takes the point without a game
    (FIDE's round-robin rule for a withdrawal; neither is rematched, the schedule never moves)."""
    tables: list[tuple[tuple[int, ...], str]] = []
    for seated in round_robin(entrants, round_number):
        present = tuple(entrant for entrant in seated if entrant not in withdrawn)
        if not present:
            continue
        if len(seated) == 1:
            tables.append((present, BYE))
        elif len(present) == 1:
            tables.append((present, FORFEIT))
        else:
            tables.append((present, ""))
    return tables


def kinds_of(seating: list[tuple[int, ...]]) -> list[tuple[tuple[int, ...], str]]:
    """A pairing's tables as (seats, kind): a lone entrant is a bye."""
    return [(seated, BYE if len(seated) == 1 else "") for seated in seating]


def points_without_game(kind: str, players: int) -> float:
    """A bye's or forfeit's points. Two-player: a whole point (FIDE's pairing-allocated bye; a
    forfeit win). Three or four at a table: a sit-out takes a table's average share, ½ (the
    shares at a table sum to half its seats), neither a win nor a loss."""
    if kind == FORFEIT or players == 2:
        return BYE_POINTS
    return SIT_OUT_POINTS


@dataclass
class Record:
    """What pairing needs to know of an entrant so far. `history` is the entrant's rounds in order
    (`dutch.Round`), which the Swiss pairing reads for floats and seats; without it the pairing
    works from the summary fields (points, opponents, byes, seats)."""

    entrant: int
    points: float = 0.0
    rating: float = 1500.0
    opponents: set[int] = field(default_factory=set)
    byes: int = 0
    firsts: int = 0  # games in seat 0
    seats: list[int] = field(default_factory=list)  # the seat of each game played, in round order
    history: list[dutch.Round] | None = None
    present: bool = True  # False: withdrawn, known only as a past opponent


def ranked(records: Iterable[Record]) -> list[Record]:
    return sorted(records, key=lambda r: (-r.points, -r.rating, r.entrant))


def swiss(records: list[Record], rounds_total: int = 0) -> list[tuple[int, ...]]:
    """The next Swiss round by the FIDE Dutch system (`competition.dutch`): boards in order, each
    in seat order, then a bye (a 1-tuple) if the number present is odd. `rounds_total` (the
    tournament's rounds) tells the pairing when the last round comes."""
    numbers = {r.entrant: number for number, r in enumerate(sorted(records, key=lambda r: (-r.rating, r.entrant)), 1)}
    return dutch.pair([_dutch_entrant(record, numbers[record.entrant]) for record in records],
                      rounds_total=rounds_total)


def _dutch_entrant(record: Record, number: int) -> dutch.Entrant:
    if record.history is not None:
        return dutch.Entrant(record.entrant, number, list(record.history), present=record.present)
    # summary only: games in seat order against opponents unknown, then the byes
    rounds = [dutch.Round(None, seat, 0.0, True) for seat in record.seats]
    rounds += [dutch.Round(None, None, BYE_POINTS, False) for _ in range(record.byes)]
    return dutch.Entrant(record.entrant, number, rounds, present=record.present, score_override=record.points,
                         met=set(record.opponents))


def tables_by_score(records: list[Record], size: int) -> list[tuple[int, ...]]:
    """The next round of tables of `size`: entrants by rank, the leftover sitting out (the
    lowest-ranked of those with the fewest sit-outs). Tables are then improved by swapping two
    entrants of different tables while that lowers, in this order, the pairs of table-mates who
    have sat together before (as a two-player Swiss avoids repeats) and the spread of points
    at the tables (players of a score sit together)."""
    order = ranked(records)
    left_over = len(order) % size
    byes: list[tuple[int, ...]] = []
    for _ in range(left_over):
        out = min(reversed(order), key=lambda r: r.byes)
        order.remove(out)
        byes.append((out.entrant,))
    tables = [order[i:i + size] for i in range(0, len(order), size)]
    _spread_table_mates(tables)
    rank = {record.entrant: index for index, record in enumerate(order)}
    seated = [sorted(table, key=lambda r: rank[r.entrant]) for table in tables]
    return [tuple(r.entrant for r in table) for table in sorted(seated, key=lambda t: rank[t[0].entrant])] + byes


def _table_cost(table: list[Record]) -> tuple[int, float]:
    met = sum(1 for i, one in enumerate(table) for other in table[i + 1:] if other.entrant in one.opponents)
    points = [record.points for record in table]
    return met, max(points) - min(points)


def _spread_table_mates(tables: list[list[Record]], passes: int = 20) -> None:
    """Swap entrants between tables while any swap lowers (repeated table-mates, point spread)."""
    for _ in range(passes):
        improved = False
        for a in range(len(tables)):
            for b in range(a + 1, len(tables)):
                for i in range(len(tables[a])):
                    for j in range(len(tables[b])):
                        one, other = tables[a], tables[b]
                        before = _sum_costs(_table_cost(one), _table_cost(other))
                        one[i], other[j] = other[j], one[i]
                        if _sum_costs(_table_cost(one), _table_cost(other)) < before:
                            improved = True
                        else:
                            one[i], other[j] = other[j], one[i]
        if not improved:
            return


def _sum_costs(one: tuple[int, float], other: tuple[int, float]) -> tuple[int, float]:
    return one[0] + other[0], one[1] + other[1]


def game_points(places: list[int], reason: str) -> list[float]:
    """Each seat's tournament points from a game's places (`ratings.places`: 1 the best; see the
    module's docstring)."""
    if reason in NOT_PLAYED_OUT:
        return [0.0] * len(places)
    return [pairwise(places, seat, other_seats=[o for o in range(len(places)) if o != seat]) for seat in range(len(places))]


def pairwise(places: list[int], seat: int, other_seats: list[int]) -> float:
    """The seat's share against `other_seats`: 1 for each it finished above, ½ for a shared place."""
    if not other_seats:
        return 0.0
    won = sum(1.0 if places[seat] < places[o] else 0.5 if places[seat] == places[o] else 0.0 for o in other_seats)
    return won / len(other_seats)


@dataclass
class Played:
    """One finished table: entrants by seat, their points, their places (`ratings.places`, for
    results between two of them) and its kind: a game played out, a game that ended unplayed
    (aborted, cancelled, abandoned), a bye, or a forfeit (a withdrawn entrant's scheduled game,
    the one entrant present taking the point; or, from a TRF, two entrants, the points saying
    who won)."""

    entrants: tuple[int, ...]
    points: tuple[float, ...]
    places: tuple[int, ...] = ()
    kind: str = GAME


def standings(entrants: dict[int, float], tables: list[Played], kind: str, size: int = 2) -> list[dict]:
    """Entrant ids with their rating -> ordered rows: entrant, points, games, wins, draws,
    losses, byes, forfeits, buchholz, sonneborn_berger, rank (shared when everything used to
    order ties). A bye or forfeit won counts in Buchholz as `size - 1` virtual opponents each with
    the entrant's own final points (FIDE's 2023 rule for unplayed rounds); a forfeit lost, like a
    game that ended unplayed, counts for nothing: no game, no loss, no opponent."""
    points = {entrant: 0.0 for entrant in entrants}
    rows = {entrant: {"entrant": entrant, "points": 0.0, "games": 0, "wins": 0, "draws": 0, "losses": 0, "byes": 0,
                      "forfeits": 0, "opponents": [], "virtual": 0} for entrant in entrants}
    for table in tables:
        for seat, entrant in enumerate(table.entrants):
            points[entrant] += table.points[seat]
            row = rows[entrant]
            if table.kind == UNPLAYED:
                continue
            if table.kind == FORFEIT and not table.points[seat]:
                continue  # a forfeit lost: no game, no opponent, as a round missed
            if table.kind in (BYE, FORFEIT):
                row["byes" if table.kind == BYE else "forfeits"] += 1
                row["virtual"] += size - 1
                continue
            row["games"] += 1
            result = table.points[seat]
            row["wins" if result == 1 else "losses" if result == 0 else "draws"] += 1
            for other_seat, other in enumerate(table.entrants):
                if other != entrant:
                    row["opponents"].append((other, pairwise(list(table.places), seat, [other_seat])))
    for entrant, row in rows.items():
        row["points"] = points[entrant]
        row["buchholz"] = sum(points[other] for other, _ in row["opponents"]) + row["virtual"] * points[entrant]
        row["sonneborn_berger"] = sum(points[other] * against for other, against in row["opponents"])
        row["rating"] = entrants[entrant]
        del row["opponents"], row["virtual"]
    if kind == "round_robin":
        key = lambda r: (-r["points"], -r["sonneborn_berger"], -r["wins"], -r["rating"])  # noqa: E731
    else:
        key = lambda r: (-r["points"], -r["buchholz"], -r["sonneborn_berger"], -r["rating"])  # noqa: E731
    ordered = sorted(rows.values(), key=lambda r: (key(r), r["entrant"]))
    for index, row in enumerate(ordered):
        tied = index and key(ordered[index - 1]) == key(row)
        row["rank"] = ordered[index - 1]["rank"] if tied else index + 1
    return ordered


def table_kind(seats: int, reason: str) -> str:
    """A stored table's kind for `standings`, from its seat count and how it ended."""
    if seats == 1:  # (a game's own reason may also read "forfeit": only a lone entrant's table is one)
        return FORFEIT if reason == FORFEIT else BYE
    if reason in (FORFEITED, FORFEITED_NO_COLOURS):
        return FORFEIT
    return UNPLAYED if reason in NOT_PLAYED_OUT else GAME
