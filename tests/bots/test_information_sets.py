"""The bots and the analysis search only what their seat could know: two positions that differ
only in what the seat cannot see (another seat's secret choice, the order of a face-down stack,
the future draws of the seed) give the same move, and the same evaluation, under the same seed.

The two positions are real states of each game: the truth met in a seeded random game, and
another state drawn to agree with the seat's view of it (`sample_state`), checked to differ from
the truth and to show the seat exactly the same view."""

from __future__ import annotations

import json
import random

import pytest

import bots
import rules
from bots import mcts, registry
from bots.evaluation import evaluate

GAMES = [game for game in rules.catalog().values() if game.chance or game.hidden_information]
TINY = mcts.Budget(iterations=24, milliseconds=None, rollout_limit=12)
POSITIONS_PER_GAME = 3


@pytest.fixture(autouse=True)
def tiny_mcts(monkeypatch):
    monkeypatch.setitem(registry.MCTS_BUDGETS, 1, TINY)


def _json(value):
    return json.loads(json.dumps(value))


def _secret_twins(game, players: int, seed: str, wanted: int):
    """(truth, twin, seat): the seat to act sees the same view of both, which are different states."""
    rnd, found = random.Random(seed), []
    state = game.setup(players, {}, seed)
    while game.outcome(state) is None and len(found) < wanted:
        seat = game.to_act(state)[0]
        view = _json(game.view(state, seat))
        twin = game.sample_state(view, seat, random.Random(f"{seed}:{len(found)}"))
        if twin != state and len(game.legal_moves(state, seat)) > 1:
            found.append((state, twin, seat))
        state = game.apply(state, seat, rnd.choice(game.legal_moves(state, seat)))
    return found


def _terrain_vague_duel_twins():
    """A duel where the defender has chosen its bars in secret: the attacker's twin position has
    other bars behind the same commitment, as the attacker sees it."""
    from rules.terrain_vague import RULES
    from tests.rules.terrain_vague.test_terrain_vague_frame_wrestling import four_gang_red_turn

    state = RULES.apply(four_gang_red_turn(), 1, {"type": "choose_bars", "bars": [1, 2, 3]})
    chosen = state.duels[0].defence
    other = type(chosen)((6, 7, 8), chosen.salt, chosen.commitment)
    twin = state.with_(duels=(type(state.duels[0])(**{**vars(state.duels[0]), "defence": other}),
                              *state.duels[1:]))
    return state, twin, 0


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_what_a_seat_cannot_see_changes_neither_the_bots_move_nor_the_analysis(game):
    twins = _secret_twins(game, game.min_players, f"{game.id}-twins", POSITIONS_PER_GAME)
    assert twins, f"no position of {game.id} hides anything from the seat to act"
    if game.id == "terrain_vague":
        twins.append(_terrain_vague_duel_twins())
    for n, (truth, twin, seat) in enumerate(twins):
        seen, seen_in_twin = _json(game.view(truth, seat)), _json(game.view(twin, seat))
        assert truth != twin and seen == seen_in_twin
        for bot in ("greedy", "mcts"):
            moves = [bots.choose_move(game, view, seat, bot=bot, level=1, seed=f"same-{n}")
                     for view in (seen, seen_in_twin)]
            assert moves[0] == moves[1]
            assert moves[0] in game.legal_moves(truth, seat) and moves[0] in game.legal_moves(twin, seat)
        values = [evaluate(game, view, seat, TINY, random.Random(f"analysis-{n}"))
                  for view in (seen, seen_in_twin)]
        assert values[0] == values[1]

