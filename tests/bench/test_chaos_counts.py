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
