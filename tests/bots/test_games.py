"""The bots on every game in the catalogue: legal moves, reproducible moves, whole games, and a
hand-built position per game where the MCTS bot must take the win in one.

The generic tests shrink MCTS level 1 to a few iterations: they check the plumbing on the real
games, not strength (bench/bots_strength.py measures that).
"""

from __future__ import annotations

import json
import random

import pytest

import bots
import rules
from bots import arena, heuristics, mcts, registry
from tests.rules.inputs import WinInOne, supplied

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


@pytest.mark.parametrize("bot", ["random", "greedy", "mcts"])
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_bots_return_legal_moves(game, bot, tiny_mcts) -> None:
    for players in sorted({game.min_players, game.max_players}):
        for n, (state, seat) in enumerate(_positions(game, players, f"{game.id}-{bot}", 6)):
            view = _json(game.view(state, seat))
            move = bots.choose_move(game, view, seat, bot=bot, level=1, seed=f"s{n}")
            assert move in game.legal_moves(state, seat)
            game.apply(state, seat, move)


@pytest.mark.parametrize("bot", ["random", "greedy", "mcts"])
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


# --- wins in one, on hand-built positions each game supplies (loaded through its own `load`) ----

def _win_in_one(game) -> WinInOne:
    case = supplied(game.id, "WIN_IN_ONE")
    if case is None:
        pytest.skip(f"{game.id} supplies no win-in-one position")
    return case


TURN_LIMIT = 12  # the most moves the seat may take to finish its winning turn


def _winners(game, state) -> tuple[int, ...] | None:
    outcome = game.outcome(state)
    return None if outcome is None else tuple(outcome.winners)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_each_winning_position_has_a_way_not_to_win(game) -> None:
    case = _win_in_one(game)
    state = game.load(_json(case.dumped))
    for move in case.blunder:
        assert move in game.legal_moves(state, case.seat)
        state = game.apply(state, case.seat, move)
    assert _winners(game, state) != (case.seat,)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
@pytest.mark.parametrize("level", [1, 2])
def test_mcts_takes_an_immediate_win(game, level) -> None:
    """The bot plays its seat from the position to the end of its turn and must win."""
    case = _win_in_one(game)
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


def test_space_junkyards_evaluation_values_stored_resources_and_open_joints_while_tiles_remain() -> None:
    """Two ships with the same score: the one with resources in its hold, or an opening to join
    the next section to, stands better while the stack lasts; once it is empty, only the score."""
    from bots.heuristics import space_junkyard as hints
    from rules.space_junkyard.ship import score
    from rules.values import evolve

    game = rules.get("space_junkyard")
    state = game.setup(2, {}, "evaluation")
    bridge_only = state.ships[0]
    assert hints.loose_openings(bridge_only.parts) == 1  # the bridge's one opening
    full, empty = evolve(bridge_only, stores=(2, 2, 2)), evolve(bridge_only, stores=(0, 0, 0))
    assert score(full.parts) == score(empty.parts)
    assert hints.standing(full, 0.5) > hints.standing(empty, 0.5)
    assert hints.standing(full, 0.0) == hints.standing(empty, 0.0) == score(full.parts)
    ahead = evolve(state, ships=(full, evolve(state.ships[1], stores=(0, 0, 0))))
    mine, theirs = hints.evaluate(game, ahead)
    assert mine > theirs
