"""The strength benchmark's bookkeeping (the benchmark itself is run by hand, not here)."""

from __future__ import annotations

from bench import bots_strength
from bots.heuristics._margin import shares
from rules.base import Outcome


def test_a_result_is_a_sole_win_a_shared_win_or_a_loss() -> None:
    assert bots_strength._result(Outcome((1, 0, 0), (0,), "x"), 0) == "win"
    assert bots_strength._result(Outcome((1, 1, 0), (0, 1), "x"), 1) == "draw"
    assert bots_strength._result(Outcome((1, 1), (), "draw"), 1) == "draw"
    assert bots_strength._result(Outcome((1, 0, 0), (0,), "x"), 2) == "loss"
    assert bots_strength._result(None, 0) == "unfinished"


def test_the_table_flags_a_shortfall_against_random() -> None:
    row = {"game": "g", "players": 2, "matchup": "mcts 2 vs random", "games": 10, "win": 8,
           "draw": 1, "loss": 1, "unfinished": 0, "win_rate": 0.8, "mean_decision_seconds": 0.25,
           "mean_actions": 40, "date": "2026-01-01"}
    text = bots_strength.markdown({"g": row})
    assert "| g | 2 | mcts 2 vs random | 80% (below target) | 8 | 1 | 1 | 0 | 10 | 0.250 |" in text
    assert "CPUs" in text


def test_shares_favour_the_leader_and_ignore_seats_that_left() -> None:
    even = shares([3, 3], 1.0)
    assert even == [0.5, 0.5]
    leader, trailer, gone = shares([5, 1, None], 1.0)
    assert leader > 0.95 and trailer < 0.05 and gone == 0.0
    assert abs(leader + trailer - 1) < 1e-9
