"""Swiss pairing by the FIDE Dutch system's criteria, as one maximum weight matching.

Real pairing engines (bbpPairings, JaVaFo) do not backtrack through candidate pairings: they give
every possible pair a weight that encodes the system's criteria in their order of importance and
let Edmonds' blossom algorithm find the best perfect matching in polynomial time. We do the same
with networkx's `max_weight_matching` (integer weights, so the optimum is exact).

The weight of a pair is a sum of terms, each term's worst total over a whole round smaller than
one unit of the term above it, so a better value of an earlier criterion always wins
(`_LEVELS`). From the most important:

1. No pair meets twice (absolute; a repeat is allowed only when no repeat-free pairing exists,
   and then as few repeats as possible, not the rule dropped for everyone).
2. Colour (here: seat 0 or 1) absolute: two players who must both get the same seat (a seat
   difference beyond ±1, or the same seat twice running) do not meet, so nobody gets a seat three
   times running or a difference beyond 2.
3. At most one bye per player (absolute); the bye goes to the lowest score group, and within it
   the lowest-ranked (a dummy vertex for odd fields: an edge to it is the bye).
4. Score-group homogeneity: the least sum of squared score differences over the pairs, then as
   few pairs across score groups as possible. Squared, so two half-point floats beat one
   one-point float: the Dutch system pairs bracket by bracket from the top, each bracket's
   floaters going to the next bracket down, never skipping one to save a float. Floaters are
   taken from the higher group's bottom to the lower group's top (the floaters' rank distances, squared, least).
5. Seat preferences met for as many players as possible.
6. Inside a score group, its top half meets its bottom half in order (S1[k] against S2[k]).

Ranking (for halves and for the bye): points, then the rating entered with, then entrant id, as
the Dutch system ranks by score then pairing number.
Not modelled: the Dutch system's float-history criteria (no downfloat twice in a row), and the
final-round exception for topscorers' colours.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import networkx as nx

if TYPE_CHECKING:
    from competition.tournament_pairing import Record

# Each level's unit is larger than the greatest total of all levels below it for a field of up to
# 256 players (128 pairs); Python integers keep the sum exact however large.
_HALVES = 1
_PREFERENCE = 10**7
_CROSS_SCORE = 10**10
_SCORE_SPREAD = 10**16
_BYE = 10**22
_COLOUR_ABSOLUTE = 10**24
_REPEAT = 10**27
_BASE = 10**30  # every edge's weight stays positive, so the matching is as large as possible

_BYE_VERTEX = -1


def seat_preference(seats: list[int]) -> tuple[int | None, int]:
    """(seat wanted or None, strength: 3 absolute, 2 strong, 1 mild, 0 none) from the seat history
    (0 or 1 per game, oldest first), by the Dutch system's colour preference."""
    if not seats:
        return None, 0
    difference = seats.count(0) - seats.count(1)  # above 0: had seat 0 more
    if difference > 1 or seats[-2:] == [0, 0]:
        return 1, 3
    if difference < -1 or seats[-2:] == [1, 1]:
        return 0, 3
    if difference == 1:
        return 1, 2
    if difference == -1:
        return 0, 2
    return 1 - seats[-1], 1


def pair(records: list[Record], *, near_only: bool = True) -> list[tuple[int, ...]]:
    """The next round: pairs in seat order (the top pair first), then the bye (a 1-tuple) if the
    number is odd.

    `near_only`: first look only at pairs a good pairing could use (at most a point apart, not
    a repeat, no absolute seat clash): the blossom algorithm's time grows with the pairs it looks
    at, and a full field of 128 has 8,128. When those pairs cannot pair everyone, every pair is
    looked at, so a repeat or a wide float happens only when nothing better exists."""
    order = sorted(records, key=lambda r: (-r.points, -r.rating, r.entrant))
    if near_only:
        matching = _matching(order, near_only=True)
        if 2 * len(matching) < len(order) - 1:  # someone left out: fall back to every pair
            matching = _matching(order, near_only=False)
    else:
        matching = _matching(order, near_only=False)
    return _tables(order, matching)


def _matching(order: list[Record], near_only: bool) -> set[tuple[int, int]]:
    rank = {r.entrant: index for index, r in enumerate(order)}
    place = _places_in_groups(order)
    lowest_score = order[-1].points if order else 0.0
    graph = nx.Graph()
    graph.add_nodes_from(r.entrant for r in order)
    for index, one in enumerate(order):
        for other in order[index + 1:]:
            if near_only and other.points < one.points - 1:
                break  # `order` is by points: everyone further down is further away
            if near_only and not _near(one, other, place):
                continue
            cost = _cost(one, other, place, rank)
            if near_only and cost >= _COLOUR_ABSOLUTE:
                continue
            graph.add_edge(one.entrant, other.entrant, weight=_BASE - cost)
    if len(order) % 2:
        for record in order:
            above_lowest = round((record.points - lowest_score) * 2)  # in half points
            cost = (_REPEAT if record.byes else 0) + _BYE * above_lowest + (len(order) - rank[record.entrant])
            if near_only and (record.byes or above_lowest > 2):
                continue
            graph.add_edge(record.entrant, _BYE_VERTEX, weight=_BASE - cost)
    return nx.max_weight_matching(graph, maxcardinality=True)


def _tables(order: list[Record], matching: set[tuple[int, int]]) -> list[tuple[int, ...]]:
    rank = {r.entrant: index for index, r in enumerate(order)}
    by_id = {r.entrant: r for r in order}
    pairs, bye = [], []
    for one, other in matching:
        if _BYE_VERTEX in (one, other):
            bye = [(one if other == _BYE_VERTEX else other,)]
            continue
        first, second = sorted((by_id[one], by_id[other]), key=lambda r: rank[r.entrant])
        pairs.append((first, second))
    pairs.sort(key=lambda p: rank[p[0].entrant])
    return [_seated(first, second, board) for board, (first, second) in enumerate(pairs)] + bye


NEAR = 8  # how far from its ideal partner a pair may be and still be looked at first


def _near(one: Record, other: Record, place: dict[int, tuple[int, int]]) -> bool:
    """Whether the pair is one a good pairing could use: inside a score group, within `NEAR` of
    the top-half-against-bottom-half partner; across groups, between the higher group's last
    `NEAR` and the lower group's first `NEAR`."""
    (place_one, size_one), (place_other, size_other) = place[one.entrant], place[other.entrant]
    if one.points == other.points:
        return abs(abs(place_other - place_one) - size_one // 2) <= NEAR
    return size_one - 1 - place_one < NEAR and place_other < NEAR


def _places_in_groups(order: list[Record]) -> dict[int, tuple[int, int]]:
    """Each entrant's (place in its score group, the group's size)."""
    groups: dict[float, list[int]] = {}
    for record in order:
        groups.setdefault(record.points, []).append(record.entrant)
    return {entrant: (index, len(group)) for group in groups.values() for index, entrant in enumerate(group)}


def _cost(one: Record, other: Record, place: dict[int, tuple[int, int]], rank: dict[int, int]) -> int:
    """What pairing `one` (the higher ranked) with `other` costs, by the module's criteria."""
    cost = 0
    if other.entrant in one.opponents:
        cost += _REPEAT
    wanted_one, strength_one = seat_preference(one.seats)
    wanted_other, strength_other = seat_preference(other.seats)
    if wanted_one is not None and wanted_one == wanted_other:
        if strength_one == 3 and strength_other == 3:
            cost += _COLOUR_ABSOLUTE
        cost += _PREFERENCE * min(strength_one, strength_other)
    spread = round(abs(one.points - other.points) * 2)  # in half points
    if spread:
        cost += _SCORE_SPREAD * spread * spread + _CROSS_SCORE
        # floaters in rank order: the higher group's last meet the lower group's first, in turn
        cost += _HALVES * (rank[other.entrant] - rank[one.entrant]) ** 2
    else:
        place_one, size = place[one.entrant]
        place_other = place[other.entrant][0]
        cost += _HALVES * abs(abs(place_other - place_one) - size // 2)
    return cost


def _seated(first: Record, second: Record, board: int) -> tuple[int, int]:
    """Seat order for a pair, `first` the higher ranked: the stronger seat preference is met;
    equal ones go by who had the seats differently most recently, then to the higher ranked.
    With no history at all (round 1) the top player of board 1 takes seat 0, alternating by board."""
    wanted_first, strength_first = seat_preference(first.seats)
    wanted_second, strength_second = seat_preference(second.seats)
    if wanted_first is None and wanted_second is None:
        return (first.entrant, second.entrant) if board % 2 == 0 else (second.entrant, first.entrant)
    if wanted_first == wanted_second and strength_first == strength_second:
        for mine, theirs in zip(reversed(first.seats), reversed(second.seats)):
            if mine != theirs:
                return (first.entrant, second.entrant) if theirs == 0 else (second.entrant, first.entrant)
    if strength_second > strength_first:
        return (second.entrant, first.entrant) if wanted_second == 0 else (first.entrant, second.entrant)
    return (first.entrant, second.entrant) if wanted_first in (0, None) else (second.entrant, first.entrant)
