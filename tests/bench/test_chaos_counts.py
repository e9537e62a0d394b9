"""bench.chaos counts what a revoked token's stream wrongly sent, and only that."""

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
