"""The in-process cache of committed states: it serves a state without touching the database,
always agrees with the fold from zero, and never holds what a rolled-back write computed."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import services, store
from games.models import Game

pytestmark = pytest.mark.django_db(transaction=True)


def _game_with_moves(moves: int) -> tuple[Game, list]:
    users = [get_user_model().objects.create_user(f"c{n}", password="pw-long-enough") for n in range(2)]
    game = services.game_create(creator=users[0], rules_id="space_junkyard", players=2, options={})
    services.game_join(game_id=game.pk, user=users[1])
    rnd = random.Random(5)
    for _ in range(moves):
        game.refresh_from_db()
        seat = game.to_act[0]
        move = rnd.choice(store.rules_of(game).legal_moves(store.state_at(game), seat))
        services.move_submit(game_id=game.pk, user=users[seat], move=move, expected_seq=game.seq)
    game.refresh_from_db()
    return game, users


def test_a_committed_state_is_served_from_memory_and_agrees_with_the_fold():
    store.recent_states.clear()
    game, _ = _game_with_moves(12)
    with CaptureQueriesContext(connection) as queries:
        cached = store.state_at(game)
    assert len(queries) == 0, "the state after the last committed move is in memory"
    assert cached == store.state_from_zero(game)
    store.recent_states.clear()
    with CaptureQueriesContext(connection) as queries:
        assert store.state_at(game) == cached
    assert len(queries) == 2  # a snapshot and the events after it


def test_a_rolled_back_write_leaves_nothing_in_memory():
    store.recent_states.clear()
    game, users = _game_with_moves(3)
    seq_before = game.seq
    seat = game.to_act[0]
    move = store.rules_of(game).legal_moves(store.state_at(game), seat)[0]

    class Abort(Exception):
        pass

    with pytest.raises(Abort), transaction.atomic():
        services.move_submit(game_id=game.pk, user=users[seat], move=move, expected_seq=seq_before)
        raise Abort
    assert Game.objects.get(pk=game.pk).seq == seq_before
    assert store.recent_states.get(store._key(game, seq_before + 1)) is None
