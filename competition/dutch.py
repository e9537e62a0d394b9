"""Swiss pairing by the FIDE Dutch system (C.04.3), the way bbpPairings computes it.

Pure Python, no Django, nothing imported from the rest of `competition` (callers hand in
`Entrant`s with their round-by-round history); the matching is `competition.matching`, networkx's
algorithm on a plain adjacency dict.

How a round is paired
---------------------
Entrants present are ranked by score, then pairing number (1 is the top seed). Score brackets are
paired from the top down. Every possible pair gets one integer weight whose bit fields hold the
handbook's criteria in their order of importance, so a maximum weight matching (networkx's
blossom algorithm, exact on Python integers) is the pairing that is best on the first criterion,
then on the second among those, and so on. The weight's fields, from the most important:

1. the whole round can still be completed: every entrant paired except at most one, who has not
   had a bye or a forfeit win yet (absolute: no pair meets twice; two entrants who must both
   have the same seat never meet, except in the last round between entrants above half the
   maximum score);
2. in the current bracket, as many pairs as possible, then the highest scores paired (fewest and
   lowest downfloaters); the same for the next bracket (so this bracket's choice leaves the next
   one pairable);
3. the bye to an entrant of the lowest score group, the one with the most games played;
4. seat (colour) preferences: absolute imbalances, absolute preferences, preferences, strong
   preferences met;
5. float history: no downfloat nor upfloat repeated from the previous round, then from two rounds
   before, then the scores of those floaters as low as possible.

One bracket is settled at a time: which downfloaters from above play here (the highest first),
their opponents (the highest of the bracket that still keeps the optimum), then inside what is
left the fewest exchanges between the halves S1 and S2, the smallest differences of the
exchanged pairing numbers, and each S1 player's opponent taken as high in S2 as the optimum
allows. Each choice is fixed in the weights before the next is asked of the matching (about two
matchings a bracket when no downfloater or exchange needs settling, more when they do).

Seats: the entrant with the stronger preference gets it; equal ones are broken by the last round
in which the two had different seats, then by rank (the higher-ranked entrant gets its
preference; with no preference at all, the top seed's board alternates from `first_seat`).

When no pairing meets the absolute criteria (a small field late in a long event), the round is
paired again allowing repeats, so every entrant present still plays or has the bye.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from competition import matching

WIN, DRAW, LOSS = 10, 5, 0  # points in tenths, as the handbook's scores are kept exactly
FLOAT_DOWN, FLOAT_UP, FLOAT_NONE = 0, 1, 2
# how far the absolute criteria are relaxed when no pairing meets them: none; pairs may meet again;
# also seat absolutes and the one-bye rule dropped
STRICT, REPEATS, ANYTHING = 0, 1, 2


@dataclass
class Round:
    """One past round of an entrant. `seat` 0 is the first player (white), 1 the second; None
    when no game was played (a forfeit may keep the seat it was paired in, which, as no game was
    played, the pairing does not read). `paired`: took part in that round's pairing (a game, a
    forfeit, or the pairing-allocated bye), as opposed to being absent or a requested bye.
    `rated`: false for a game played but not rated (a TRF's `W` `D` `L`), which the pairing reads
    as any game."""

    opponent: int | None
    seat: int | None
    points: float
    played: bool
    paired: bool = True
    rated: bool = True


@dataclass
class Entrant:
    id: int
    number: int  # pairing number: 1 is the top seed
    rounds: list[Round] = field(default_factory=list)
    present: bool = True  # to be paired this round
    score_override: float | None = None  # the score when `rounds` is not the whole story
    met: set[int] = field(default_factory=set)  # opponents met whom `rounds` does not name


class NoValidPairing(Exception):
    pass


def pair(entrants: list[Entrant], *, rounds_total: int, first_seat: int = 0) -> list[tuple[int, ...]]:
    """The next round: boards in order, each (seat 0, seat 1), then the bye as a 1-tuple."""
    for relaxed in (STRICT, REPEATS, ANYTHING):
        try:
            return _Dutch(entrants, rounds_total, first_seat, relaxed).pairing()
        except NoValidPairing:
            continue
    raise AssertionError("with every absolute criterion dropped, a pairing always exists")


@dataclass
class _Player:
    id: int
    rank: int  # 0-based effective pairing number
    score: int  # tenths
    matches: list[Round]
    present: bool
    colour_imbalance: int = 0
    preference: int | None = None
    repeated: int | None = None
    strong: bool = False
    played_games: int = 0

    @property
    def absolute_imbalance(self) -> bool:
        return self.colour_imbalance > 1

    @property
    def absolute(self) -> bool:
        return self.absolute_imbalance or self.repeated is not None


def _tenths(points: float) -> int:
    return round(points * 10)


def _invert(seat: int | None) -> int | None:
    return None if seat is None else 1 - seat


def _bits(value: int) -> int:
    return value.bit_length()


def _seat_data(player: _Player) -> None:
    """Colour imbalance, preference (0, 1 or None), the seat repeated twice running and strength,
    from the games played."""
    firsts = seconds = consecutive = 0
    repeated = None
    for match in player.matches:
        if not match.played or match.seat is None:
            continue
        player.played_games += 1
        if match.seat == 0:
            firsts += 1
        else:
            seconds += 1
        consecutive = consecutive + 1 if consecutive and match.seat == repeated else 1
        repeated = match.seat
    lower = 1 if firsts > seconds else 0
    player.colour_imbalance = abs(firsts - seconds)
    if player.colour_imbalance > 1:
        player.preference = lower
    elif consecutive > 1:
        player.preference = _invert(repeated)
    elif player.colour_imbalance > 0:
        player.preference = lower
    elif consecutive:
        player.preference = _invert(repeated)
    player.repeated = repeated if consecutive > 1 else None
    player.strong = not player.absolute and player.colour_imbalance > 0


class _Dutch:
    def __init__(self, entrants: list[Entrant], rounds_total: int, first_seat: int, relaxed: int):
        self.relaxed = relaxed
        self.played_rounds = max((len(e.rounds) for e in entrants), default=0)
        self.expected_rounds = max(rounds_total, self.played_rounds + 1)
        self.first_seat = first_seat
        self.players: dict[int, _Player] = {}
        # the effective pairing numbers count only entrants taking part (not a late entrant before
        # its first round), as bbpPairings numbers them
        taking_part = [e for e in entrants if e.present or any(r.paired for r in e.rounds)]
        for rank, entrant in enumerate(sorted(taking_part, key=lambda e: (e.number, e.id))):
            matches = list(entrant.rounds) + [Round(None, None, 0.0, False, False)] * (
                self.played_rounds - len(entrant.rounds)
            )
            score = _tenths(
                sum(m.points for m in entrant.rounds) if entrant.score_override is None else entrant.score_override
            )
            player = _Player(entrant.id, rank, score, matches, entrant.present)
            _seat_data(player)
            self.players[entrant.id] = player
        self.forbidden: dict[int, set[int]] = {pid: set() for pid in self.players}
        if relaxed == STRICT:
            for entrant in entrants:
                for other in entrant.met:
                    if entrant.id in self.forbidden and other in self.forbidden:
                        self.forbidden[entrant.id].add(other)
                        self.forbidden[other].add(entrant.id)
            for player in self.players.values():
                for match in player.matches:
                    if match.played and match.opponent is not None:
                        self.forbidden[player.id].add(match.opponent)
        self.sorted = sorted((p for p in self.players.values() if p.present), key=lambda p: (-p.score, p.rank))

    # --- the criteria, one entrant or one pair at a time ------------------------------------

    def score_back(self, player: _Player, rounds_back: int) -> int:
        score = player.score
        for match in player.matches[self.played_rounds - rounds_back :] if rounds_back else ():
            score -= _tenths(match.points)
        return score

    def eligible_for_bye(self, player: _Player) -> bool:
        if self.relaxed == ANYTHING:
            return True
        return not any(
            not m.played and (_tenths(m.points) >= WIN or (m.paired and m.opponent is None)) for m in player.matches
        )

    def compatible(self, one: _Player, other: _Player) -> bool:
        if other.id in self.forbidden[one.id]:
            return False
        if self.relaxed == ANYTHING:
            return True
        top_threshold = (self.played_rounds * WIN) >> 1
        return (
            not one.absolute
            or not other.absolute
            or one.preference != other.preference
            or (
                self.played_rounds >= self.expected_rounds - 1
                and (one.score > top_threshold or other.score > top_threshold)
            )
        )

    def float_of(self, player: _Player, rounds_back: int) -> int:
        match = player.matches[self.played_rounds - rounds_back]
        if not match.played:
            return FLOAT_DOWN if _tenths(match.points) > LOSS else FLOAT_NONE
        opponent = self.players.get(match.opponent)
        if opponent is None:
            return FLOAT_NONE
        mine, theirs = self.score_back(player, rounds_back), self.score_back(opponent, rounds_back)
        return FLOAT_DOWN if mine > theirs else FLOAT_UP if mine < theirs else FLOAT_NONE

    def bye_candidate(self, player: _Player, bye_score: int) -> bool:
        return self.eligible_for_bye(player) and player.score <= bye_score

    def colour_bits(self, weight: int, player: _Player, opponent: _Player, in_bracket: bool) -> int:
        size_bits = self.size_bits
        same = player.preference == opponent.preference
        weight = (weight << size_bits) | (
            in_bracket and (not player.absolute_imbalance or not opponent.absolute_imbalance or not same)
        )
        if player.colour_imbalance == opponent.colour_imbalance:
            repeated_ok = player.repeated is None or player.repeated != opponent.repeated
        else:  # the one with the smaller imbalance must not have had the other's preference twice
            less = opponent if player.colour_imbalance > opponent.colour_imbalance else player
            repeated_ok = less.repeated != _invert(player.preference)
        weight = (weight << size_bits) | (
            in_bracket and (not player.absolute or not opponent.absolute or not same or repeated_ok)
        )
        weight = (weight << size_bits) | (
            in_bracket and _compatible_preferences(player.preference, opponent.preference)
        )
        weight = (weight << size_bits) | (
            in_bracket
            and (
                (not player.strong and not player.absolute)
                or (not opponent.strong and not opponent.absolute)
                or (player.absolute and opponent.absolute)
                or not same
            )
        )
        return weight

    def edge_weight(
        self,
        higher: _Player,
        lower: _Player,
        in_bracket: bool,
        in_next: bool,
        bye_score: int,
        single_downfloater_bye: bool,
        unplayed_ranks: dict[int, int],
    ) -> int:
        """The pair's weight for the current bracket (the handbook's criteria as bit fields);
        0 when the two cannot meet."""
        if not self.compatible(higher, lower):
            return 0
        size_bits, groups_shift, shifts = self.size_bits, self.groups_shift, self.shifts
        weight = 1 + (not self.bye_candidate(higher, bye_score)) + (not self.bye_candidate(lower, bye_score))
        weight = (weight << size_bits) | in_bracket
        weight <<= groups_shift
        if in_bracket:
            weight |= 1 << shifts[higher.score]
        weight = (weight << size_bits) | in_next
        weight <<= groups_shift
        if in_next:
            weight |= 1 << shifts[higher.score]
        weight <<= 2 * size_bits
        if single_downfloater_bye:
            if higher.score == bye_score:
                weight |= unplayed_ranks[higher.played_games]
            if lower.score == bye_score:
                weight += unplayed_ranks[lower.played_games]
        weight = self.colour_bits(weight, lower, higher, in_bracket)
        for back in (1, 2):
            if self.played_rounds < back:
                continue
            weight <<= size_bits
            if in_bracket:
                weight |= self.float_of(lower, back) == FLOAT_DOWN
                weight += higher.score <= lower.score and self.float_of(higher, back) == FLOAT_DOWN
            weight <<= size_bits
            if in_bracket:
                weight |= not (higher.score > lower.score and self.float_of(lower, back) == FLOAT_UP)
        for back in (1, 2):
            if self.played_rounds < back:
                continue
            weight <<= groups_shift
            if in_bracket:
                weight += (self.float_of(lower, back) == FLOAT_DOWN) << shifts[lower.score]
                weight += (self.float_of(higher, back) == FLOAT_DOWN) << shifts[higher.score]
            weight <<= groups_shift
            if in_bracket and not (self.float_of(lower, back) == FLOAT_UP and higher.score > lower.score):
                weight |= 1 << shifts[higher.score]
        # room for the exchange criteria inside a bracket
        return weight << (3 * size_bits + 1)

    # --- the matching -------------------------------------------------------------------------

    def set_weight(self, one: int, other: int, weight: int) -> None:
        if weight and (self.fixed_vertex(one) or self.fixed_vertex(other)):
            return  # a fixed pair's other edges stay at 0, as bbpPairings' finalizePair leaves them
        key = _key(one, other)
        if weight:
            self.weights[key] = weight
        else:
            self.weights.pop(key, None)

    def fixed_vertex(self, vertex: int) -> bool:
        return vertex in self.fixed_vertices

    def compute(self) -> list[int]:
        """A maximum weight matching: each vertex's mate, itself when unmatched. Pairs already
        fixed (`finalize`) are left out of the graph: their edge outweighs everything else."""
        graph = matching.adjacency_from_edges(
            (a, b, (w << self.tie_bits) + self.ties.get((a, b), 0)) for (a, b), w in self.weights.items()
        )
        mate = list(range(len(self.sorted)))
        for a, b in self.fixed:
            mate[a], mate[b] = b, a
        for a, b in matching.max_weight_matching(graph).items():
            mate[a] = b
        return mate

    def finalize(self, one: int, other: int) -> None:
        for key in [key for key in self.weights if one in key or other in key]:
            del self.weights[key]
        self.fixed.append((one, other))
        self.fixed_vertices.update((one, other))

    def prefer_highest(
        self,
        first_half: list[int],
        remainder: list[int],
        matched: list[bool],
        by_index: list[int],
        base: list[list[int]],
    ) -> None:
        """Tie-breaks below every weight: each of `first_half` (bracket indices, top first) would
        rather meet the highest-ranked of the remainder below it, the top one's wish first."""
        step = _bits(len(by_index)) + 1
        self.tie_bits = step * len(first_half)
        for place, index in enumerate(first_half):
            addend = 0
            for other in reversed(remainder):
                if other <= index or matched[by_index[other]]:
                    continue
                if base[other][index]:
                    self.ties[_key(by_index[index], by_index[other])] = addend << (step * (len(first_half) - 1 - place))
                addend += 1

    # --- the round ----------------------------------------------------------------------------

    def pairing(self) -> list[tuple[int, ...]]:
        players = self.sorted
        n = len(players)
        if n == 0:
            return []
        self.shifts: dict[int, int] = {}
        self.groups_shift = 0
        largest = 0
        index = n - 1
        while index >= 0:
            score, size = players[index].score, 0
            while index >= 0 and players[index].score == score:
                size, index = size + 1, index - 1
            self.shifts[score] = self.groups_shift
            self.groups_shift += _bits(size)
            largest = max(largest, size)
        self.size_bits = _bits(largest)
        self.weights: dict[tuple[int, int], int] = {}
        self.fixed: list[tuple[int, int]] = []
        self.fixed_vertices: set[int] = set()
        self.tie_bits, self.ties = 0, {}  # lower-order preferences below every weight (see S1)
        top = players[0].score

        for i in range(n):
            for j in range(i):
                if n % 2:
                    weight = 0
                    if self.compatible(players[i], players[j]):
                        weight = 1 + (not self.eligible_for_bye(players[i])) + (not self.eligible_for_bye(players[j]))
                        weight = (weight << self.groups_shift) | (
                            self.shifts[players[i].score] + self.shifts[players[j].score]
                        )
                        weight = (weight << self.size_bits) | (players[i].score >= top)
                else:
                    weight = self.edge_weight(players[j], players[i], False, False, 0, False, {})
                self.set_weight(i, j, weight)

        mate = self.compute()
        unmatched = [v for v in range(n) if mate[v] == v]
        if len(unmatched) > 1 or any(not self.eligible_for_bye(players[v]) for v in unmatched):
            raise NoValidPairing("no pairing meets the absolute criteria")

        bye_score = 0
        single = False
        unplayed_ranks: dict[int, int] = {}
        if n % 2:
            bye_score = players[unmatched[0]].score
            if bye_score >= top:
                single = all(players[mate[v]].score >= top for v in range(n) if players[v].score >= top)
            counts = sorted((p.played_games for p in players if p.score == bye_score), reverse=True)
            for rank, games in enumerate(counts):
                unplayed_ranks[games] = rank
            for i in range(n):
                for j in range(i):
                    self.set_weight(
                        i, j, self.edge_weight(players[j], players[i], False, False, bye_score, single, unplayed_ranks)
                    )

        pairs: dict[int, int] = {}
        by_index: list[int] = []  # vertices of the current bracket, then of the next score group
        next_group = 0
        while next_group < n and players[next_group].score >= top:
            by_index.append(next_group)
            next_group += 1
        matched = [False] * n
        group_begin = 0  # how many of `by_index` are downfloaters from above
        group_begin_vertex = 0

        while len(by_index) > 1 or next_group < n:
            next_begin = len(by_index)
            next_begin_vertex = group_begin_vertex + (next_begin - group_begin)
            group_start = next_group
            while next_group < n and players[next_group].score >= players[group_start].score:
                by_index.append(next_group)
                next_group += 1

            base: list[list[int]] = [[] for _ in by_index]
            for larger in range(group_begin, len(by_index)):
                base[larger] = [
                    self.edge_weight(
                        players[by_index[smaller]],
                        players[by_index[larger]],
                        larger < next_begin,
                        larger >= next_begin,
                        bye_score,
                        single,
                        unplayed_ranks,
                    )
                    for smaller in range(larger)
                ]
            for larger, row in enumerate(base):
                for smaller, weight in enumerate(row):
                    self.set_weight(by_index[larger], by_index[smaller], weight)

            def exchange_weight(smaller: int, larger: int, smaller_place: int, remainder_pairs: int) -> int:
                weight = base[larger][smaller]
                if weight:
                    addend = int(smaller_place < remainder_pairs)
                    addend <<= 2 * self.size_bits
                    addend -= smaller_place
                    weight += addend << 1
                return weight

            def in_bracket(vertex: int) -> bool:
                return group_begin_vertex <= mate[vertex] < next_begin_vertex

            if group_begin:  # (with no downfloaters, the remainder's matching below comes first)
                mate = self.compute()

            # which downfloaters from above play in this bracket: the highest first
            for index in range(group_begin):
                if index == 0 or players[by_index[index]].score < floater_score:
                    floater_score = players[by_index[index]].score
                    left = left_matched = 0
                    cursor = index
                    while players[by_index[cursor]].score >= floater_score:
                        left += 1
                        left_matched += in_bracket(by_index[cursor])
                        cursor += 1
                if not left_matched:
                    continue
                vertex = by_index[index]
                if left <= left_matched:
                    matched[vertex] = True
                    continue
                left -= 1
                if not in_bracket(vertex):
                    for opponent in range(group_begin, next_begin):
                        weight = base[opponent][index]
                        if weight:
                            self.set_weight(vertex, by_index[opponent], weight | 1)
                    mate = self.compute()
                if in_bracket(vertex):
                    matched[vertex] = True
                    left_matched -= 1
                    for opponent in range(group_begin, next_begin):
                        weight = base[opponent][index]
                        if weight:
                            self.set_weight(vertex, by_index[opponent], (weight | (next_begin - group_begin)) + 1)

            # their opponents: the highest of the bracket the optimum allows
            for index in range(group_begin):
                vertex = by_index[index]
                if not matched[vertex]:
                    continue
                addend = len(by_index)
                candidates = []
                for opponent in range(next_begin - 1, group_begin - 1, -1):
                    if matched[by_index[opponent]]:
                        continue
                    weight = base[opponent][index]
                    if weight:
                        self.set_weight(vertex, by_index[opponent], weight + addend)
                        candidates.append(by_index[opponent])
                        addend += 1
                if not candidates or mate[vertex] != candidates[-1]:
                    mate = self.compute()  # (already paired with the favourite: still the optimum)
                partner = mate[vertex]
                matched[partner] = True
                self.finalize(vertex, partner)

            # the remainder: S1 against S2 with the fewest, smallest exchanges
            remainder: list[int] = []
            remainder_pairs = 0
            for index in range(group_begin, next_begin):
                vertex = by_index[index]
                if group_begin and mate[vertex] < group_begin_vertex:
                    continue
                remainder.append(index)
                if group_begin and mate[vertex] < vertex:
                    remainder_pairs += 1
            if not group_begin:
                # The number of pairs the bracket makes is fixed by criteria above the exchange
                # weights: guess half the bracket, and ask again only if the matching says otherwise.
                remainder_pairs = len(remainder) // 2
            while True:
                first_end = remainder_pairs  # place in `remainder` where S2 starts
                for b, larger in enumerate(remainder):
                    for a, smaller in enumerate(remainder[:b]):
                        self.set_weight(
                            by_index[smaller], by_index[larger], exchange_weight(smaller, larger, a, remainder_pairs)
                        )
                # Below every criterion, S1's opponents as high as possible, as if S1 were the
                # top half: when no exchange is needed (most brackets) this matching is already
                # the one the last step below would ask for.
                self.prefer_highest(remainder[:first_end], remainder, matched, by_index, base)
                mate = self.compute()
                self.tie_bits, self.ties = 0, {}
                pairs_made = sum(group_begin_vertex <= mate[by_index[index]] < by_index[index] for index in remainder)
                if group_begin or pairs_made == remainder_pairs:
                    break
                remainder_pairs = pairs_made

            def paired_down(vertex: int) -> bool:  # paired with someone below it in this bracket
                return vertex < mate[vertex] < next_begin_vertex

            exchanges = sum(not paired_down(by_index[index]) for index in remainder[:first_end])

            left = exchanges
            place = remainder_pairs
            cursor = first_end
            while cursor != 0 and left:
                place -= 1
                cursor -= 1
                vertex = by_index[remainder[cursor]]
                if paired_down(vertex):
                    for other in remainder[cursor + 1 :]:
                        weight = exchange_weight(remainder[cursor], other, place, remainder_pairs)
                        if weight:
                            self.set_weight(vertex, by_index[other], weight - 1)
                    mate = self.compute()
                exchange = not paired_down(vertex)
                left -= exchange
                for other in remainder[cursor + 1 :]:
                    if exchange:
                        base[other][remainder[cursor]] = 0
                    self.set_weight(
                        vertex, by_index[other], exchange_weight(remainder[cursor], other, place, remainder_pairs)
                    )

            left = exchanges
            place = remainder_pairs
            cursor = first_end
            while cursor < len(remainder) and left > 1:
                index = remainder[cursor]
                vertex = by_index[index]
                already = paired_down(vertex)
                if not already:
                    for other in remainder[cursor + 1 :]:
                        weight = exchange_weight(index, other, place, remainder_pairs)
                        if weight:
                            self.set_weight(vertex, by_index[other], weight + 1)
                    mate = self.compute()
                if paired_down(vertex):
                    left -= 1
                    for other in remainder[:cursor]:
                        base[index][other] = 0
                        self.set_weight(vertex, by_index[other], 0)
                    for other in range(next_begin, len(by_index)):
                        base[other][index] = 0
                        self.set_weight(vertex, by_index[other], 0)
                if not already:
                    for other in remainder[cursor + 1 :]:
                        self.set_weight(vertex, by_index[other], exchange_weight(index, other, place, remainder_pairs))
                place += 1
                cursor += 1

            for a, smaller in enumerate(remainder):
                vertex = by_index[smaller]
                for larger in remainder[a + 1 :]:
                    other = by_index[larger]
                    if not paired_down(vertex) or paired_down(other):
                        base[larger][smaller] = 0
                    self.set_weight(vertex, other, base[larger][smaller])

            # each S1 player's opponent: the highest the optimum allows, S1's top player first.
            # bbpPairings asks the matching once per S1 player; one matching with each player's
            # preference in its own lower field, the top player's highest, gives the same pairs.
            first_half = [index for index in remainder if paired_down(by_index[index])]
            if exchanges:
                self.prefer_highest(first_half, remainder, matched, by_index, base)
                mate = self.compute()
                self.tie_bits, self.ties = 0, {}
            for index in first_half:
                vertex = by_index[index]
                partner = mate[vertex]
                matched[vertex] = matched[partner] = True
                self.finalize(vertex, partner)

            carried: list[int] = []
            group_begin = 0
            single = bool(n % 2 and group_start < n and bye_score >= players[group_start].score)
            for index, vertex in enumerate(by_index):
                if index < next_begin and matched[vertex]:
                    pairs[vertex], pairs[mate[vertex]] = mate[vertex], vertex
                else:
                    carried.append(vertex)
                    if index < next_begin:
                        group_begin += 1
                    if single and players[mate[vertex]].score < players[group_start].score:
                        single = False
            by_index = carried
            group_begin_vertex = next_begin_vertex

        return self.boards(pairs)

    def boards(self, pairs: dict[int, int]) -> list[tuple[int, ...]]:
        players = self.sorted
        tables: list[tuple[tuple, tuple[int, ...]]] = []
        byes: list[tuple[int, ...]] = []
        for vertex, player in enumerate(players):
            if vertex not in pairs:
                byes.append((player.id,))
                continue
            partner = players[pairs[vertex]]
            if player.rank > partner.rank:
                continue
            first = self.seat_of(player, partner)
            higher, lower = (
                (player, partner)
                if (player.score, -player.rank) > (partner.score, -partner.rank)
                else (partner, player)
            )
            seats = (player.id, partner.id) if first == 0 else (partner.id, player.id)
            tables.append(((-higher.score, -lower.score, higher.rank), seats))
        return [seats for _, seats in sorted(tables)] + byes

    def seat_of(self, player: _Player, opponent: _Player) -> int:
        """The seat `player` gets against `opponent`."""
        seat = _neutral_seat(player, opponent)
        if seat is not None:
            return seat
        player_lower = (player.score, opponent.rank) < (opponent.score, player.rank)
        if player.preference is None:
            if player_lower:
                return self.first_seat if opponent.rank & 1 else 1 - self.first_seat
            return 1 - self.first_seat if player.rank & 1 else self.first_seat
        return 1 - opponent.preference if player_lower and opponent.preference is not None else player.preference


def _key(one: int, other: int) -> tuple[int, int]:
    return (one, other) if one < other else (other, one)


def _compatible_preferences(one: int | None, other: int | None) -> bool:
    return one != other or one is None or other is None


def _neutral_seat(player: _Player, opponent: _Player) -> int | None:
    if _compatible_preferences(player.preference, opponent.preference):
        if player.preference is not None:
            return player.preference
        return _invert(opponent.preference)
    if player.absolute and (player.colour_imbalance > opponent.colour_imbalance or not opponent.absolute):
        return player.preference
    if opponent.absolute and (opponent.colour_imbalance > player.colour_imbalance or not player.absolute):
        return _invert(opponent.preference)
    if player.strong and not opponent.strong:
        return player.preference
    if opponent.strong and not player.strong:
        return _invert(opponent.preference)
    mine = [m.seat for m in reversed(player.matches) if m.played and m.seat is not None]
    theirs = [m.seat for m in reversed(opponent.matches) if m.played and m.seat is not None]
    for one, other in zip(mine, theirs):
        if one != other:
            return other
    return None
