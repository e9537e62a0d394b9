"""Lines, ranges and relays of Terrain Vague on small hand-made boards (no game State)."""

from rules.terrain_vague.lines import (
    CLEAN,
    MOVE,
    PROTECT,
    RIP,
    SHOOT,
    Board,
    Piece,
    action_sources,
    targets,
)

RADIUS = 5


def hexagon(radius=RADIUS):
    return frozenset(
        (q, r)
        for q in range(-radius, radius + 1)
        for r in range(-radius, radius + 1)
        if abs(q + r) <= radius
    )


def board(turf=None, pieces=None, clubhouses=None, reach=3, default="R"):
    """Every hex is `default`'s turf unless `turf` says otherwise; (0, 0) is the Toxic Waste."""
    cells = hexagon()
    owners = {h: default for h in cells if h != (0, 0)}
    owners.update(turf or {})
    placed = {h: Piece(*p) for h, p in (pieces or {}).items()}
    clubs = dict(clubhouses or {})
    for gang, h in clubs.items():
        placed[h] = Piece(gang, "clubhouse")
    return Board(cells, (0, 0), owners, placed, clubs, reach)


def line(start, direction, n):
    return [(start[0] + direction[0] * k, start[1] + direction[1] * k) for k in range(1, n + 1)]


def test_move_reaches_own_empty_hexes_up_to_range_along_six_lines():
    b = board(pieces={(3, -4): ("R", "wheelbarrow")})  # 4 from the Toxic Waste: no relay
    reached = targets(b, "R", MOVE, (3, -4))
    assert (3, -1) in reached and (0, -1) in reached and (0, -4) in reached
    assert (3, 0) not in reached  # four away
    assert (4, -3) not in reached  # not on a straight line
    assert len(reached) == 3 + 3 + 3 + 2 + 1 + 1  # the board edge cuts three lines


def test_range_two_with_fewer_gangs():
    b = board(pieces={(3, -3): ("R", "wheelbarrow")}, reach=2)
    reached = targets(b, "R", MOVE, (3, -3))
    assert (3, -1) in reached and (3, 0) not in reached


def test_other_turf_stops_move_and_own_pawn_or_toxic_waste_are_passed_not_stopped_on():
    start = (-3, 0)
    b = board(
        turf={(-3, 1): "B"},
        pieces={start: ("R", "lid"), (-2, 0): ("R", "slingshot")},
    )
    reached = targets(b, "R", MOVE, start)
    assert (-3, 1) not in reached and (-3, 2) not in reached  # enemy turf stops the line
    assert (-2, 0) not in reached and (-1, 0) in reached  # own pawn passed
    b2 = board(pieces={(-2, 0): ("R", "lid")})
    reached2 = targets(b2, "R", MOVE, (-2, 0))
    assert (0, 0) not in reached2 and (1, 0) in reached2  # Toxic Waste passed


def test_another_gangs_pawn_stops_every_kind_of_action():
    start = (-4, 0)
    b = board(pieces={start: ("R", "slingshot"), (-3, 0): ("B", "lid")}, turf={(-3, 0): "B"})
    assert (-2, 0) not in targets(b, "R", SHOOT, start)
    assert (-3, 0) in targets(b, "R", SHOOT, start)
    assert (-2, 0) not in targets(b, "R", CLEAN, start)
    assert (-2, 0) not in targets(b, "R", RIP, start)


def test_slingshot_flies_over_empty_enemy_turf_but_not_through_an_enemy_pawn():
    start = (-4, 0)
    b = board(
        turf={(-3, 0): "B", (-2, 0): "B", (-1, 0): "B"},
        pieces={start: ("R", "slingshot"), (-1, 0): ("B", "wheelbarrow")},
    )
    assert targets(b, "R", SHOOT, start) == {(-1, 0)}


def test_slingshot_never_targets_its_own_gang():
    start = (-4, 0)
    b = board(pieces={start: ("R", "slingshot"), (-3, 0): ("R", "lid"), (-2, 0): ("B", "lid")})
    assert targets(b, "R", SHOOT, start) == {(-2, 0)}  # passes over its own lid


def test_book_slingshot_screened_by_wheelbarrow_reaches_through_clubhouse_and_toxic_waste():
    # Brambles' lid at (2, -2), screened from slingshot A at (-1, -2) by a wheelbarrow at (1, -2).
    # Slingshot B at (-3, 2) links to its clubhouse (-3, 0), which links to the Toxic Waste;
    # from there the lid at (2, -2) is two hexes away on a line (direction (1, -1)).
    # Enemy turf at (-2, -1) keeps slingshot A from linking to the clubhouse.
    b = board(
        turf={(1, -2): "B", (2, -2): "B", (3, -2): "B", (2, -1): "B", (-2, -1): "B"},
        pieces={
            (-1, -2): ("R", "slingshot"),
            (-3, 2): ("R", "slingshot"),
            (1, -2): ("B", "wheelbarrow"),
            (2, -2): ("B", "lid"),
        },
        clubhouses={"R": (-3, 0)},
    )
    assert targets(b, "R", SHOOT, (-1, -2)) == {(1, -2)}
    assert (2, -2) in targets(b, "R", SHOOT, (-3, 2))
    assert action_sources(b, "R", (-3, 2)) == [(-3, 2), (-3, 0), (0, 0)]


def test_enemy_turf_between_pawn_and_relay_breaks_the_link():
    b = board(
        turf={(-2, 0): "B"},
        pieces={(-3, 2): ("R", "slingshot")},
        clubhouses={"R": (-3, 0)},
    )
    assert action_sources(b, "R", (-3, 2)) == [(-3, 2), (-3, 0)]  # clubhouse-Toxic Waste broken
    b2 = board(turf={(-3, 1): "B"}, pieces={(-3, 2): ("R", "slingshot")}, clubhouses={"R": (-3, 0)})
    assert action_sources(b2, "R", (-3, 2)) == [(-3, 2)]


def test_relay_beyond_range_is_not_linked():
    b = board(pieces={(-4, 0): ("R", "slingshot")}, clubhouses={"R": (4, -4)})
    assert action_sources(b, "R", (-4, 0)) == [(-4, 0)]  # Toxic Waste 4 away


def test_toxic_waste_relay_then_clubhouse_either_order():
    b = board(pieces={(2, 0): ("R", "lid")}, clubhouses={"R": (-3, 0)})
    assert action_sources(b, "R", (2, 0)) == [(2, 0), (0, 0), (-3, 0)]


def test_another_gangs_clubhouse_is_never_a_relay():
    b = board(
        turf={(-3, 0): "B"},
        pieces={(-3, 2): ("R", "slingshot")},
        clubhouses={"B": (-3, 0)},
    )
    assert action_sources(b, "R", (-3, 2)) == [(-3, 2)]
    assert (-3, -1) not in targets(b, "R", SHOOT, (-3, 2))


def test_protection_covers_own_hexes_and_pawns_but_not_its_own_hex():
    b = board(
        turf={(2, 0): "B"},
        pieces={(0, 2): ("R", "lid"), (0, 3): ("R", "wheelbarrow")},
    )
    covered = targets(b, "R", PROTECT, (0, 2))
    assert (0, 3) in covered and (0, 2) not in covered
    assert (1, 1) in covered and (2, 0) not in covered and (3, -1) not in covered


def test_wheelbarrow_takes_only_the_first_other_hex_on_a_line():
    b = board(turf={(-2, 0): "B", (-1, 0): "B"}, pieces={(-4, 0): ("R", "wheelbarrow")})
    reached = targets(b, "R", RIP, (-4, 0))
    assert (-2, 0) in reached and (-1, 0) not in reached
    assert (-3, 0) in reached  # own empty hex: reinforcement


def test_wheelbarrow_may_not_rip_an_occupied_hex_nor_past_it():
    b = board(
        turf={(-3, 0): "B", (-2, 0): "C"},
        pieces={(-4, 0): ("R", "wheelbarrow"), (-3, 0): ("R", "lid")},
    )
    reached = targets(b, "R", RIP, (-4, 0))
    assert (-3, 0) not in reached and (-2, 0) not in reached


def test_cleaning_house_over_empty_enemy_hexes_onto_an_occupied_one_never_a_clubhouse():
    start = (-4, 0)
    b = board(
        turf={(-3, 0): "B", (-2, 0): "B", (-1, 0): "B", (-4, 1): "B", (-4, 2): "B"},
        pieces={start: ("R", "big_brother"), (-2, 0): ("B", "wheelbarrow")},
        clubhouses={"B": (-4, 2)},
    )
    reached = targets(b, "R", CLEAN, start)
    assert {(-3, 0), (-2, 0)} <= reached and (-1, 0) not in reached
    assert (-4, 1) in reached and (-4, 2) not in reached
