"""The bots on every game in the catalogue: legal moves, reproducible moves, whole games, and a
hand-built position per game where the MCTS bot must take the win in one.

The generic tests shrink MCTS level 1 to a few iterations: they check the plumbing on the real
games, not strength (bench/bots_strength.py measures that).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

import pytest

import bots
import rules
from bots import arena, heuristics, mcts, registry

GAMES = list(rules.catalog().values())
TINY = mcts.Budget(iterations=12, milliseconds=None, rollout_limit=20)


@pytest.fixture
def tiny_mcts(monkeypatch):
    monkeypatch.setitem(registry.MCTS_BUDGETS, 1, TINY)


def _json(value):
    return json.loads(json.dumps(value))


def _positions(game, players, seed, count, stride=7):
    """Every `stride`-th position of a random playout, with a seat to act, `count` at most."""
    rnd = random.Random(seed)
    state = game.setup(players, {}, seed)
    found = []
    step = 0
    while game.outcome(state) is None and len(found) < count:
        seat = rnd.choice(game.to_act(state))
        if step % stride == 0:
            found.append((state, seat))
        state = game.apply(state, seat, rnd.choice(game.legal_moves(state, seat)))
        step += 1
    return found


@pytest.mark.parametrize("bot", ["random", "mcts"])
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_bots_return_legal_moves(game, bot, tiny_mcts) -> None:
    for players in sorted({game.min_players, game.max_players}):
        for n, (state, seat) in enumerate(_positions(game, players, f"{game.id}-{bot}", 6)):
            view = _json(game.view(state, seat))
            move = bots.choose_move(game, view, seat, bot=bot, level=1, seed=f"s{n}")
            assert move in game.legal_moves(state, seat)
            game.apply(state, seat, move)


@pytest.mark.parametrize("bot", ["random", "mcts"])
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_the_same_seed_gives_the_same_move(game, bot, tiny_mcts) -> None:
    for state, seat in _positions(game, game.min_players, f"{game.id}-same", 3):
        view = _json(game.view(state, seat))
        first = bots.choose_move(game, view, seat, bot=bot, level=1, seed="same")
        again = bots.choose_move(game, _json(view), seat, bot=bot, level=1, seed="same")
        assert first == again


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_a_game_of_random_bots_finishes(game) -> None:
    seats = {s: arena.Seat("random", 1) for s in range(game.max_players)}
    match = arena.play(game, game.max_players, {}, f"{game.id}-whole", seats, max_actions=30_000)
    assert match.outcome is not None and game.to_act(match.state) == ()


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_a_heuristic_if_any_values_every_seat(game) -> None:
    hints = heuristics.for_rules(game.id)
    if hints is None or not hasattr(hints, "evaluate"):
        pytest.skip(f"{game.id} has no evaluation")
    for players in range(game.min_players, game.max_players + 1):
        for state, _ in _positions(game, players, f"{game.id}-eval", 4):
            values = list(hints.evaluate(game, state))
            assert len(values) == players and all(0 <= v <= 1 for v in values)


# --- wins in one, on hand-built positions (loaded through each game's own `load`) --------------

SCAVENGE_CARRIER_HOME = {
    # Seat 0 carries the good stuff at (0,3), home is (0,0), the roll is 3: home wins at once.
    "players": 2, "straight_moves": False, "positions": [3, 77], "trash": [0, 2], "carrier": 0,
    "turn": 0, "roll": 3, "rng": {"seed": "hand-built", "drawn": 0}, "winner": None,
    "end_reason": None,
}

TERRAFEX_LAST_GLACIER = {
    # White (seat 0) has only its glacier action left; the last glacier, small at (0,0), melts
    # into the large fire at (1,0) by moving south and ends the game with White ahead (the large
    # forest at (3,3) is White's, the medium fire left at (1,0) costs White 2: 1 to 0). Moving
    # east keeps the game going.
    "board": [{"row": 0, "col": 0, "colour": "blue", "size": "S"},
              {"row": 1, "col": 0, "colour": "red", "size": "L"},
              {"row": 3, "col": 3, "colour": "green", "size": "L"}],
    "pool": {"green": {"S": 5, "M": 5, "L": 3}, "yellow": {"S": 5, "M": 5, "L": 4},
             "red": {"S": 5, "M": 5, "L": 3}, "blue": {"S": 4, "M": 5, "L": 4}},
    "fire_pit": {"S": 0, "M": 0, "L": 0}, "white": 0, "mover": 0, "turn": 9,
    "actions_done": ["forest", "mountain", "fire"], "fire_in_hand": None,
    "melted_this_turn": False, "quiet_turns": 0, "forfeited": None,
}

SPACE_JUNKYARD_LAST_TURN = {
    # Seat 1's turn, movement phase; the stack holds one tile, so this turn's push ends the game.
    # Seat 1's ship (-2: bridge, S32, S28) trails seat 0's (-1: bridge, S05), and it stands on
    # section S35: connecting it (either listed rotation) scores 0 and wins, while recycling it or
    # ending the move loses. Only the push that empties the stack ends a Space Junkyard game,
    # and every push scores alike there, so this game's win in one is a win within the turn.
    "players": 2,
    "options": {"short": True, "small_map": False, "more_junk": False, "less_empty_space": False},
    "size": 6,
    "map": [["A27", "S29", None, "A14", "S35", "A25"], ["A01", None, None, None, None, "A07"],
            ["S42", "S27", "A29", None, "S33", "A32"], ["A13", None, None, "S13", "S25", "S06"],
            ["S22", "S24", None, "S31", "S19", "S14"], ["A16", "S36", "A12", None, None, None]],
    "ships": [
        {"at": [5, 5], "off_side": None, "stores": [2, 2, 2], "out": False, "sections": [
            {"at": [0, 0], "tile": "BRG", "rotation": 0, "added": 0},
            {"at": [0, -1], "tile": "S05", "rotation": 0, "added": 22}]},
        {"at": [4, 0], "off_side": None, "stores": [1, 1, 4], "out": False, "sections": [
            {"at": [0, 0], "tile": "BRG", "rotation": 0, "added": 0},
            {"at": [0, -1], "tile": "S32", "rotation": 0, "added": 3},
            {"at": [-1, -1], "tile": "S28", "rotation": 90, "added": 13}]},
    ],
    "gone": ["A05", "A18", "S34", "S09", "A31", "S11", "S26", "S21", "A03", "A10", "A09", "S39",
             "S41", "A06", "A19", "S01", "A30", "S10", "S38", "S44", "A22", "A23", "A20", "S40",
             "A08", "S15", "S04", "S23", "S08", "S18", "A28", "A17"],
    "drawn": None,
    "recent_pushes": [[1, "S4"], [0, "E4"], [1, "E3"], [0, "N4"]],
    "turn": {"seat": 1, "number": 24, "phase": "move", "produced": [], "steps_left": 3,
             "bought_steps": False, "asteroids_taken": 0, "sections_taken": 0, "pushes": 0},
    "end_reason": "", "stack": ["A02"],
    "removed": ["S37", "A15", "A11", "S16", "S20", "S17", "A26", "S30", "A24", "S12", "S02",
                "S43", "A21", "S07", "A04", "S03"],
    "rng": {"seed": "hand-built", "drawn": 75},
}


def terrain_vague_last_step() -> dict:
    """Turn 12, step 5, 2 gangs: brambles has ended its step, rubbles (seat 0) acts last with 2
    points and a wheelbarrow. Rubbles' home turf is 5 hexes (clubhouse at (2,0)), brambles' 4
    (clubhouse at (-2,0)), so ending the step ends the game with rubbles the winner; each rip or
    reinforcement keeps the game going. Every other hex is cesspools turf (no gang in play)."""
    turf = {(2, 0): ("rubbles", "tough"), (3, 0): ("rubbles", "wimpy"),
            (3, -1): ("rubbles", "wimpy"), (2, 1): ("rubbles", "wimpy"),
            (1, 1): ("rubbles", "wimpy"), (-2, 0): ("brambles", "tough"),
            (-3, 0): ("brambles", "wimpy"), (-2, 1): ("brambles", "wimpy"),
            (-1, 0): ("brambles", "tough")}
    board = [[q, r, None, None] if (q, r) == (0, 0)
             else [q, r, *turf.get((q, r), ("cesspools", "wimpy"))]
             for q in range(-3, 4) for r in range(-3, 4) if abs(q + r) <= 3]
    gangs, all_gangs = ("rubbles", "brambles"), ("brambles", "cesspools", "rubbles", "scrappers")
    return {
        "players": 2,
        "options": {"board": "build", "gangs": "rubbles-brambles", "to_25": False,
                    "rip_off": "whole"},
        "seats": list(gangs), "phase": "act", "turn": 12, "step": 5,
        "order": ["brambles", "rubbles"], "acting": "rubbles", "board": board,
        "pawns": [[1, 1, "rubbles", "wheelbarrow"], [-1, 0, "brambles", "wheelbarrow"]],
        "clubhouses": {"rubbles": [2, 0], "brambles": [-2, 0]},
        "reserves": {g: {"big_brother": 1, "lid": 4, "slingshot": 4, "wheelbarrow": 3}
                     for g in gangs},
        "stacks": {g: {"tough": 0, "wimpy": 0} for g in all_gangs},
        "supplies": {g: {"tough": 10, "wimpy": 10} for g in all_gangs},
        "points": {"brambles": 0, "rubbles": 2}, "challenges": {}, "eliminated": [], "duels": [],
        "wrestled": [], "cancelled": {},
        "ledger": {"moved": [], "fired": [], "rips": [], "changed": [], "beaned": [],
                   "big_brother_out": [], "destroyed": [], "rebuilt": [], "step": 5},
        "winners": [], "end_reason": "", "rng": {"seed": "hand-built", "drawn": 0},
    }


@dataclass(frozen=True)
class WinInOne:
    dumped: dict
    seat: int
    winning: dict | None  # the move to find, or None where several win
    blunder: tuple[dict, ...]  # moves of the seat after which it has not won (the game may go on)


WINS_IN_ONE = {
    "scavenge": WinInOne(SCAVENGE_CARRIER_HOME, 0, {"type": "move", "to": [0, 0]},
                         ({"type": "move", "to": [0, 6]},)),
    "terrafex": WinInOne(TERRAFEX_LAST_GLACIER, 0,
                         {"type": "glacier", "from": [0, 0], "dir": "S"},
                         ({"type": "glacier", "from": [0, 0], "dir": "E"},)),
    "space_junkyard": WinInOne(SPACE_JUNKYARD_LAST_TURN, 1, None,
                               ({"type": "recycle"}, {"type": "end_move"},
                                {"type": "push", "entry": "N1"})),
    "terrain_vague": WinInOne(terrain_vague_last_step(), 0, {"type": "end_step"},
                              ({"type": "rip", "from": [1, 1], "at": [0, 1]},)),
}
TURN_LIMIT = 12  # the most moves the seat may take to finish its winning turn


def _winners(game, state) -> tuple[int, ...] | None:
    outcome = game.outcome(state)
    return None if outcome is None else tuple(outcome.winners)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_each_winning_position_has_a_way_not_to_win(game) -> None:
    case = WINS_IN_ONE[game.id]
    state = game.load(_json(case.dumped))
    for move in case.blunder:
        assert move in game.legal_moves(state, case.seat)
        state = game.apply(state, case.seat, move)
    assert _winners(game, state) != (case.seat,)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
@pytest.mark.parametrize("level", [1, 2])
def test_mcts_takes_an_immediate_win(game, level) -> None:
    """The bot plays its seat from the position to the end of its turn and must win."""
    case = WINS_IN_ONE[game.id]
    start = game.load(_json(case.dumped))
    assert game.outcome(start) is None and game.to_act(start) == (case.seat,)
    for seed in ("a", "b"):
        state, first = start, None
        for n in range(TURN_LIMIT):
            if game.outcome(state) is not None:
                break
            assert game.to_act(state) == (case.seat,), "the winning turn passed to another seat"
            view = _json(game.view(state, case.seat))
            move = bots.choose_move(game, view, case.seat, bot="mcts", level=level,
                                    seed=f"{seed}{n}")
            first = first or move
            state = game.apply(state, case.seat, move)
        assert case.winning is None or first == case.winning
        assert _winners(game, state) == (case.seat,)
