"""The strength benchmark's bookkeeping (the benchmark itself is run by hand, not here)."""

from __future__ import annotations

import pytest

from bench import bots_strength
from bots import arena
from bots.heuristics._margin import shares
from rules.base import Outcome


def test_a_result_is_a_sole_win_a_shared_win_or_a_loss() -> None:
    assert bots_strength._result(Outcome((1, 0, 0), (0,), "x"), 0) == "win"
    assert bots_strength._result(Outcome((1, 1, 0), (0, 1), "x"), 1) == "draw"
    assert bots_strength._result(Outcome((1, 1), (), "draw"), 1) == "draw"
    assert bots_strength._result(Outcome((1, 0, 0), (0,), "x"), 2) == "loss"
    assert bots_strength._result(None, 0) == "unfinished"


def test_the_wilson_interval_matches_the_textbook_figures() -> None:
    low, high = bots_strength.wilson(80, 100)
    assert (round(low, 4), round(high, 4)) == (0.7112, 0.8666)
    assert bots_strength.wilson(0, 10)[0] == 0.0 and bots_strength.wilson(10, 10)[1] == pytest.approx(1.0)
    assert bots_strength.wilson(10, 10)[0] == pytest.approx(0.7225, abs=1e-4)
    assert bots_strength.wilson(0, 0) == (0.0, 1.0)


def _row(win: int, games: int, target: float = 0.75) -> dict:
    low, high = bots_strength.wilson(win, games)
    return {"game": "g", "players": 2, "matchup": "mcts 2 vs greedy", "games": games, "win": win,
            "draw": 0, "loss": games - win, "unfinished": 0, "win_rate": win / games,
            "wilson_low": low, "wilson_high": high, "target": target,
            "mean_decision_seconds": 0.25, "mean_actions": 40, "date": "2026-01-01"}


def test_the_table_reads_the_target_against_the_interval() -> None:
    assert bots_strength.verdict(_row(95, 100)) == "met"  # 88%-98%: above 75% throughout
    assert bots_strength.verdict(_row(60, 100)) == "below"  # 50%-69%
    assert bots_strength.verdict(_row(8, 10)) == "unsettled"  # 49%-94%: too few games to tell
    text = bots_strength.markdown({"g": _row(8, 10)})
    assert "| g | 2 | mcts 2 vs greedy | 80% | 49%-94% | 75% | unsettled | 8 | 0 | 2 | 0 | 10 | 0.250 | - | 40 |" in text
    assert "CPUs" in text and "no wall-clock cap" in text


def test_the_matchups_are_the_default_level_against_greedy_and_the_strongest_against_the_default() -> None:
    by_key = {m.key: m for m in bots_strength.matchups()}
    assert (by_key["greedy"].tested, by_key["greedy"].opponent) == (arena.Seat("mcts", 2), arena.Seat("greedy", 1))
    assert (by_key["mcts"].tested, by_key["mcts"].opponent) == (arena.Seat("mcts", 3), arena.Seat("mcts", 2))
    assert (by_key["greedy"].target, by_key["mcts"].target) == (0.75, 0.60)


def test_more_than_two_processes_are_refused() -> None:
    with pytest.raises(SystemExit):
        bots_strength.main(["--jobs", "3", "--games", "0"])


def test_shares_favour_the_leader_and_ignore_seats_that_left() -> None:
    even = shares([3, 3], 1.0)
    assert even == [0.5, 0.5]
    leader, trailer, gone = shares([5, 1, None], 1.0)
    assert leader > 0.95 and trailer < 0.05 and gone == 0.0
    assert abs(leader + trailer - 1) < 1e-9


def _game(n: int, result: str) -> bots_strength.GameResult:
    scores = (3.0, 1.0) if result == "win" else (1.0, 3.0)
    return bots_strength.GameResult(n, n % 2, result, scores, "stack empty", 10, 2.0, 40)


def test_a_run_plays_only_the_seeds_its_record_lacks(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(bots_strength, "RESULTS", tmp_path)
    matchup = bots_strength.matchups()[0]
    key = bots_strength.row_key("scavenge", 2, matchup)
    bots_strength.append_record(key, _game(0, "win"))
    bots_strength.append_record(key, _game(1, "loss"))
    played = []

    def fake_play(job):
        played.append(job[3])
        return _game(job[3], "win")

    monkeypatch.setattr(bots_strength, "play_one", fake_play)
    rows = []
    row = bots_strength.measure([("scavenge", 2, matchup)], 4, None,
                                on_game=lambda key, row: rows.append(row))[key]
    assert played == [2, 3]
    assert (row["games"], row["win"], row["loss"]) == (4, 3, 1)
    assert [r["games"] for r in rows] == [3, 4]
    assert row["shortfalls"] == ["game 1 (tested seat 1): loss, scores 1-3, stack empty"]
    assert sorted(bots_strength.load_record(key)) == [0, 1, 2, 3]
    text = bots_strength.markdown({key: row})
    assert "did not win" in text and "game 1 (tested seat 1): loss" in text


def test_an_interrupted_run_keeps_every_finished_game(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(bots_strength, "RESULTS", tmp_path)
    matchup = bots_strength.matchups()[0]

    def play_then_fail(job):
        if job[3] == 2:
            raise KeyboardInterrupt
        return _game(job[3], "win")

    monkeypatch.setattr(bots_strength, "play_one", play_then_fail)
    try:
        bots_strength.measure([("terrafex", 2, matchup)], 5, None)
    except KeyboardInterrupt:
        pass
    key = bots_strength.row_key("terrafex", 2, matchup)
    assert sorted(bots_strength.load_record(key)) == [0, 1]
    monkeypatch.setattr(bots_strength, "play_one", lambda job: _game(job[3], "win"))
    assert bots_strength.measure([("terrafex", 2, matchup)], 5, None)[key]["games"] == 5


def test_a_record_line_cut_short_by_a_kill_is_skipped(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(bots_strength, "RESULTS", tmp_path)
    key = bots_strength.row_key("scavenge", 2, bots_strength.matchups()[0])
    bots_strength.append_record(key, _game(0, "win"))
    with bots_strength.record_path(key).open("a") as record:
        record.write('{"n": 1, "seat"')
    assert sorted(bots_strength.load_record(key)) == [0]
    bots_strength.append_record(key, _game(1, "loss"))
    assert sorted(bots_strength.load_record(key)) == [0, 1]


def test_a_game_not_won_is_kept_move_by_move_and_replays(tmp_path, monkeypatch) -> None:
    import json

    import rules

    monkeypatch.setattr(bots_strength, "RESULTS", tmp_path)
    random_vs_random = bots_strength.Matchup("random vs random", arena.Seat("random", 1),
                                             arena.Seat("random", 1), 0.5, "random")
    results = [bots_strength.play_one(("scavenge", 2, random_vs_random, n)) for n in range(4)]
    lost = [r for r in results if r.result != "win"]
    assert lost, "four random games should include one the tested seat did not win"
    key = bots_strength.row_key("scavenge", 2, random_vs_random)
    kept = json.loads((bots_strength.record_path(key).with_suffix("") /
                       f"game-{lost[0].n}.json").read_text())
    game = rules.get("scavenge")
    state = game.setup(kept["players"], kept["options"], kept["seed"])
    for seat, move in kept["moves"]:
        state = game.apply(state, seat, move)
    assert list(game.outcome(state).scores) == kept["outcome"]["scores"] == list(lost[0].scores)
    assert len(list(tmp_path.rglob("game-*.json"))) == len(lost)


def test_fresh_forgets_the_record_and_the_games_kept_beside_it(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(bots_strength, "RESULTS", tmp_path)
    key = bots_strength.row_key("scavenge", 2, bots_strength.matchups()[0])
    bots_strength.append_record(key, _game(0, "loss"))
    kept = bots_strength.kept_game_path(key, 0)
    kept.parent.mkdir(parents=True)
    kept.write_text("{}\n")
    bots_strength.forget(key)
    assert bots_strength.load_record(key) == {} and not kept.parent.exists()


def test_a_run_cut_short_has_played_every_case_about_as_often(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(bots_strength, "RESULTS", tmp_path)
    greedy, mcts = bots_strength.matchups()[:2]
    cases = [("scavenge", 2, greedy), ("scavenge", 2, mcts), ("terrafex", 2, greedy)]
    order = []

    def fake_play(job):
        if len(order) == 4:
            raise KeyboardInterrupt
        order.append((job[0], job[2].key, job[3]))
        return _game(job[3], "win")

    monkeypatch.setattr(bots_strength, "play_one", fake_play)
    with pytest.raises(KeyboardInterrupt):
        bots_strength.measure(cases, 10, None)
    assert order == [("scavenge", "greedy", 0), ("scavenge", "mcts", 0), ("terrafex", "greedy", 0),
                     ("scavenge", "greedy", 1)]
