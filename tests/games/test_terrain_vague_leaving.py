"""Terrain Vague through the server: a gang forfeited on time in the middle of the wrestling
(RULINGS, "A gang leaving during the wrestling") leaves its attacker its duel, fought with bars
drawn from the seed and kept secret until the duel resolves."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser

from games import selectors, services, store, time_controls, timeouts
from games.models import Game
from rules.terrain_vague import wrestling
from rules.terrain_vague.state import WRESTLE

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2026, 11, 18, 12, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def clock(monkeypatch):
    class Clock:
        at = T0

        def advance(self, seconds: float) -> None:
            self.at += dt.timedelta(seconds=seconds)

    fake = Clock()
    monkeypatch.setattr(time_controls, "now", lambda: fake.at)
    return fake


def _four_gangs_at_the_wrestling(clock) -> tuple[Game, list]:
    User = get_user_model()
    users = [User.objects.create_user(username=f"tv{i}", password="x") for i in range(4)]
    game = services.game_create(
        creator=users[0], rules_id="terrain_vague", players=4, options={"board": "random"},
        time_control={"type": "step", "seconds": 60}, timeout_policy="forfeit",
    )
    for user in users[1:]:
        services.game_join(game_id=game.pk, user=user)
    game_rules = store.rules_of(game)
    for _ in range(200):  # clubhouses, then every step of turns 1 and 2 ended at once
        game.refresh_from_db()
        state = store.state_at(game)
        if state.phase == WRESTLE:
            return game, users
        clock.advance(1)
        seat = game.to_act[0]
        moves = game_rules.legal_moves(state, seat)
        move = next((m for m in moves if m["type"] == "end_step"), moves[0])
        services.move_submit(game_id=game.pk, user=users[seat], move=move, expected_seq=game.seq)
    raise AssertionError("the game never reached the wrestling")


def test_a_defender_forfeited_on_time_still_gives_its_attacker_the_duel(clock):
    game, users = _four_gangs_at_the_wrestling(clock)
    state = store.state_at(game)
    duel = state.duels[0]
    attacker, leaver = state.seat_of(duel.attacker), state.seat_of(duel.defender)
    digits = [8, 8, 8, 7][: duel.attack_number]
    services.move_submit(game_id=game.pk, user=users[attacker],
                         move={"type": "choose_digits", "digits": digits}, expected_seq=game.seq)
    game.refresh_from_db()
    assert game.to_act == [leaver]
    clock.advance(61)
    event = timeouts.timeout_apply(game_id=game.pk, seq=game.seq, seat=leaver)
    assert event.payload == {"forfeit": True}
    game.refresh_from_db()
    assert game.status == "active"
    after = store.state_at(game)
    (fought,) = after.wrestled
    assert (fought.attacker, fought.defender) == (duel.attacker, duel.defender)
    bars = fought.defence.tiles
    assert len(bars) == duel.defence_number
    assert after.points[duel.attacker] == wrestling.score(tuple(digits), bars)[0]
    # The same draw on every replay of the log, and revealed to everyone once fought.
    assert store.state_from_zero(game) == after
    seen = selectors.game_detail(game=game, user=users[attacker])["view"]
    assert seen["wrestled"][0]["defence"]["tiles"] == list(bars)
    assert all(d.attacker != duel.defender for d in after.duels)  # its own attack is called off


def test_bars_drawn_for_a_gang_that_left_are_committed_before_their_reveal_in_the_record(clock):
    """The leaver forfeits before anyone chose: its bars are drawn and committed (the spectators
    see the commitment), the attacker's move later reveals them, and the finished game's record
    verifies, commitment before reveal, with `rules.verify`."""
    from games import records
    from rules.verify import verify

    game, users = _four_gangs_at_the_wrestling(clock)
    state = store.state_at(game)
    duel = state.duels[0]
    attacker, leaver = state.seat_of(duel.attacker), state.seat_of(duel.defender)
    services.resign(game_id=game.pk, user=users[leaver])
    game.refresh_from_db()
    drawn = store.state_at(game).duels[0].defence
    spectator = selectors.game_detail(game=game, user=AnonymousUser())["view"]
    assert spectator["duels"][0]["defence"] == {"commitment": drawn.commitment}
    services.move_submit(game_id=game.pk, user=users[attacker], expected_seq=game.seq,
                         move={"type": "choose_digits", "digits": [8, 8, 8, 7][: duel.attack_number]})
    game.refresh_from_db()
    assert store.state_at(game).wrestled[-1].defence == drawn
    for seat in range(4):
        if seat not in (leaver, attacker):
            services.resign(game_id=game.pk, user=users[seat])
    game.refresh_from_db()
    assert game.status == "finished" and game.result["winners"] == [attacker]
    report = verify(records.record_of(game))
    assert report.ok, report.failure
    assert any(line.startswith(("1 revealed", "2 revealed")) for line in report.checked), report.checked


# --- the same leaving, recorded under each rules version -------------------------------------


@pytest.mark.parametrize("version", [1, 2])
def test_a_game_recorded_under_each_rules_version_replays_and_verifies_as_it_was_played(
        clock, monkeypatch, version):
    """A game created while the server played version 1 (its created event says so) keeps
    version 1's way when a gang leaves mid-wrestling, on this server and in `rules.verify`: the
    attack on the leaver is dropped, its attacker scores nothing. A version 2 game fights it."""
    from games import records
    from rules.terrain_vague import RULES
    from rules.verify import verify

    with monkeypatch.context() as old_server:
        old_server.setattr(RULES, "version", version)  # the server the game was created on
        game, users = _four_gangs_at_the_wrestling(clock)
    assert game.rules_version == version
    assert store.rules_of(game).version == version
    duel = store.state_at(game).duels[0]
    attacker, leaver = (store.state_at(game).seat_of(g) for g in (duel.attacker, duel.defender))
    digits = [8, 8, 8, 7][: duel.attack_number]
    services.move_submit(game_id=game.pk, user=users[attacker], expected_seq=game.seq,
                         move={"type": "choose_digits", "digits": digits})
    services.resign(game_id=game.pk, user=users[leaver])
    game.refresh_from_db()
    after = store.state_at(game)
    fought = [(d.attacker, d.defender) for d in after.wrestled]
    if version == 1:
        assert fought == [] and after.points[duel.attacker] == 0
    else:
        assert fought == [(duel.attacker, duel.defender)]
        assert after.points[duel.attacker] == wrestling.score(tuple(digits), after.wrestled[0].defence.tiles)[0]
    store.recent_states.clear()
    assert store.state_from_zero(game) == after  # the log folds the same from the first event
    for seat in range(4):
        if seat not in (leaver, attacker):
            services.resign(game_id=game.pk, user=users[seat])
    game.refresh_from_db()
    assert game.status == "finished" and game.result["winners"] == [attacker]
    record = records.record_of(game)
    assert record["rules"]["version"] == version
    report = verify(record)
    assert report.ok, report.failure
    assert any(f"terrain_vague version {version}" in line for line in report.checked), report.checked
