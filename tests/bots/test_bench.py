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
    assert "| g | 2 | mcts 2 vs random | 80% (below target) | 8 | 1 | 1 | 0 | 10 | 0.250 | - | 40 |" in text
    assert "CPUs" in text


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
    row = bots_strength.measure("scavenge", 2, matchup, 4, None, on_game=rows.append)
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
        bots_strength.measure("terrafex", 2, matchup, 5, None)
    except KeyboardInterrupt:
        pass
    key = bots_strength.row_key("terrafex", 2, matchup)
    assert sorted(bots_strength.load_record(key)) == [0, 1]
    monkeypatch.setattr(bots_strength, "play_one", lambda job: _game(job[3], "win"))
    assert bots_strength.measure("terrafex", 2, matchup, 5, None)["games"] == 5


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
    from bots import arena

    monkeypatch.setattr(bots_strength, "RESULTS", tmp_path)
    random_vs_random = bots_strength.Matchup("random vs random", arena.Seat("random", 1),
                                             arena.Seat("random", 1))
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
