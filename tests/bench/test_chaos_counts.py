"""bench.chaos counts what a revoked token's stream wrongly sent, and only that; what a web kill
cost; what the deployment should run."""

from bench.chaos import revoked_stream_leaks

END = {"type": "stream_end", "reason": "token_revoked"}


def test_events_the_token_could_read_before_its_revocation_are_not_a_leak():
    """What the old stream sent after `game_full` (a replay of the log from seq 1), read by the
    bench after the revocation: the game's creation and the creator's seat, then the end. The
    bench counted it as one leaked item in each run of issue 51."""
    replayed = [
        {"seq": 1, "kind": "created", "payload": {}},
        {"seq": 2, "kind": "system", "payload": {"type": "seat_taken"}},
    ]
    assert revoked_stream_leaks([*replayed, END], seq_at_revocation=2) == []
    assert revoked_stream_leaks([END], seq_at_revocation=2) == []


def test_an_event_recorded_after_the_revocation_is_a_leak():
    joined = {"seq": 3, "kind": "system", "payload": {"type": "seat_taken"}}
    assert revoked_stream_leaks([joined, END], seq_at_revocation=2) == [joined]


def test_a_stream_that_does_not_end_is_counted():
    assert revoked_stream_leaks([{"type": "still open"}], seq_at_revocation=2) == [{"type": "still open"}]
    assert revoked_stream_leaks([], seq_at_revocation=2) == [{"type": "ended without stream_end"}]


def test_a_web_kill_counts_the_refusals_and_the_first_answer_after_the_kill():
    from bench.chaos_phases import kill_figures

    attempts = [(9.0, 9.1, "ok"), (10.1, 10.1, "refused"), (10.3, 10.4, "reset"), (12.0, 14.5, "ok"),
                (12.5, 13.0, "ok")]
    figures = kill_figures(attempts, killed=10.0)
    assert figures == {"down": 0.3, "first_answer": 3.0, "longest_wait": 2.5,
                       "outcomes": {"refused": 1, "reset": 1, "ok": 2}}
    assert kill_figures([(10.5, 11.0, "ok")], killed=10.0)["down"] == 0.0


def test_the_bench_expects_every_program_of_the_deployment_in_its_state():
    from bench.chaos import ROOT, Server

    server = Server.__new__(Server)  # its configuration only: no supervisord started
    server.config, server.env = str(ROOT / "deploy" / "supervisord.conf"), {"SCRAPYARD_STREAM_PROCESS": "false"}
    expected = server.expected()
    assert {name: expected[name] for name in ("web:web-0", "web:web-1", "web:web-2", "streams", "smtp-b",
                                              "workers:deadlines-0", "workers:bots-1", "beat")} == {
        "web:web-0": "RUNNING", "web:web-1": "RUNNING", "web:web-2": "RUNNING", "streams": "STOPPED",
        "smtp-b": "RUNNING", "workers:deadlines-0": "RUNNING", "workers:bots-1": "RUNNING", "beat": "RUNNING"}
    assert "web" not in expected and "web-b" not in expected and "workers:bots" not in expected


def test_the_person_plays_the_same_move_in_the_same_position():
    from bench.chaos_phases import person_move

    moves = [{"type": "move", "to": [x, 9 - x]} for x in range(8)]
    assert person_move(moves, 7) == person_move([dict(move) for move in moves], 7)
    assert person_move(moves, 7) in moves
    assert len({str(person_move(moves, seq)) for seq in range(40)}) > 1  # not always the first


def test_twins_diverge_at_their_first_different_move():
    from bench.chaos_phases import first_difference

    played = [(3, 0, {"to": [1, 1]}), (4, 1, {"to": [2, 2]})]
    assert first_difference(played, [*played, (5, 0, {"to": [3, 3]})]) is None
    assert first_difference(played, [played[0], (4, 1, {"to": [0, 0]})]) == 4


def test_the_flood_window_counts_what_ran_and_finished_while_the_bot_played():
    from datetime import UTC, datetime, timedelta

    from bench.chaos_phases import all_done_after, running_at, window_figures

    start = datetime(2026, 12, 6, tzinfo=UTC)
    samples = [(start + timedelta(seconds=s), counts) for s, counts in [
        (0, {"queued": 20}), (1, {"queued": 18, "running": 2}), (2, {"queued": 17, "running": 2, "done": 1}),
        (3, {"queued": 16, "running": 2, "done": 2}), (4, {"running": 1, "done": 19}), (5, {"done": 20})]]
    figures = window_figures(samples, start + timedelta(seconds=1), start + timedelta(seconds=3))
    assert figures == {"samples": 3, "running_min": 2, "running_median": 2, "running_max": 2, "finished": 2}
    assert running_at(samples, start + timedelta(seconds=3.8)) == 1
    assert all_done_after(samples, start, 20) == 5.0
    assert all_done_after(samples[:5], start, 20) is None


def test_the_flood_lines_set_quiet_and_flooded_side_by_side_over_the_positions_both_reached():
    from bench.chaos_phases import flood_lines

    window = {"samples": 20, "running_min": 2, "running_median": 2, "running_max": 2, "finished": 3}
    flooded = {"replies": [0.3, 0.5, 0.4], "asked": [202] * 20, "window": window, "all_done_after": 51.0,
               "late": [0.4, None], "running_when_due": [2, 2]}
    pair = {"order": ("quiet", "flooded"), "differs_at": None,
            "quiet": {"replies": [0.2, 0.3], "outstanding_at_start": 0}, "flooded": flooded}
    lines = flood_lines({"pairs": [pair]})
    assert "over the same 2 positions" in lines[0]
    assert "no analysis queued median 0.25 s, max 0.30 s" in lines[0]
    assert "running median 0.40 s, max 0.50 s" in lines[0]
    assert "3 finished during the game; all 20 done 51.0 s after asked" in lines[1]
    assert "median 0.40 s, at most 0.40 s, missing 1" in lines[2]
