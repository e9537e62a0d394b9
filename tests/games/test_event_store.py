"""The event store: append-only events (in code, and by trigger on PostgreSQL), the hash chain and
`verify_log`, snapshots that agree with the fold from zero, and a load cost that does not grow
with the length of the game."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.db.utils import DatabaseError

from games import services, store
from games.models import Event, Game, ImmutableEventError, Snapshot
from rules.base import Rules

pytestmark = pytest.mark.django_db


def _users(count: int) -> list:
    return [get_user_model().objects.create_user(f"u{n}", password="pw-long-enough") for n in range(count)]


def _played_game(moves: int, rules_id: str = "terrain_vague", players: int = 2, seed: int = 1) -> Game:
    users = _users(players)
    game = services.game_create(creator=users[0], rules_id=rules_id, players=players, options={})
    for user in users[1:]:
        services.game_join(game_id=game.pk, user=user)
    rnd = random.Random(seed)
    game_rules = store.rules_of(game)
    for _ in range(moves):
        game.refresh_from_db()
        if game.status != "active":
            break
        seat = rnd.choice(game.to_act)
        move = rnd.choice(game_rules.legal_moves(store.state_at(game), seat))
        services.move_submit(game_id=game.pk, user=users[seat], move=move, expected_seq=game.seq)
    game.refresh_from_db()
    return game


def test_events_refuse_change_and_deletion_in_code():
    game = _played_game(3)
    event = Event.objects.filter(game=game).last()
    event.payload = {"move": "forged"}
    with pytest.raises(ImmutableEventError):
        event.save()
    with pytest.raises(ImmutableEventError):
        event.delete()
    with pytest.raises(ImmutableEventError):
        Event.objects.filter(game=game).update(seat=3)
    with pytest.raises(ImmutableEventError):
        Event.objects.filter(game=game).delete()
    assert call_command("verify_log", str(game.pk)) is None


@pytest.mark.postgres
def test_postgres_trigger_refuses_raw_update_and_delete():
    game = _played_game(2)
    for sql in (
        "UPDATE games_event SET seat = 9 WHERE game_id = %s",
        "DELETE FROM games_event WHERE game_id = %s",
    ):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(sql, [game.pk])
    assert Event.objects.filter(game=game).count() == game.seq


def _tamper(sql: str, params: list) -> None:
    """Change the log behind the application's back, as a hostile database user could."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET session_replication_role = replica")  # triggers off (superuser)
        cursor.execute(sql, params)
        if connection.vendor == "postgresql":
            cursor.execute("SET session_replication_role = DEFAULT")


def test_verify_log_finds_a_changed_event():
    game = _played_game(6)
    call_command("verify_log", str(game.pk))
    _tamper("UPDATE games_event SET seat = 1 - seat WHERE game_id = %s AND seq = %s", [game.pk, game.seq - 2])
    with pytest.raises(CommandError, match=f"event {game.seq - 2} was changed"):
        call_command("verify_log", str(game.pk))


def test_verify_log_finds_a_missing_event():
    game = _played_game(6)
    _tamper("DELETE FROM games_event WHERE game_id = %s AND seq = %s", [game.pk, 4])
    with pytest.raises(CommandError, match="seq 4 is missing"):
        call_command("verify_log", str(game.pk))


def test_verify_log_names_an_unknown_game():
    with pytest.raises(CommandError, match="no game 424242"):
        call_command("verify_log", "424242")


def test_snapshots_agree_with_the_fold_from_zero(settings):
    settings.SCRAPYARD_SNAPSHOT_EVERY = 5
    game = _played_game(60, rules_id="space_junkyard", players=3)
    assert Snapshot.objects.filter(game=game).count() >= 10
    for seq in range(1, game.seq + 1):
        assert store.state_at(game, seq) == store.state_from_zero(game, seq), f"differs after event {seq}"
    call_command("verify_log", str(game.pk))


def test_a_wrong_snapshot_is_caught_by_verify_log(settings):
    settings.SCRAPYARD_SNAPSHOT_EVERY = 5
    game = _played_game(12, rules_id="terrafex")
    snapshot = Snapshot.objects.filter(game=game).order_by("seq").first()
    other = Snapshot.objects.filter(game=game).order_by("seq").last()
    Snapshot.objects.filter(pk=snapshot.pk).update(state=other.state)
    with pytest.raises(CommandError, match=f"snapshot at {snapshot.seq} disagrees"):
        call_command("verify_log", str(game.pk))


def test_loading_applies_at_most_one_snapshot_interval(settings, monkeypatch):
    settings.SCRAPYARD_SNAPSHOT_EVERY = 8
    game = _played_game(70, rules_id="space_junkyard", players=2)
    applied = []
    original = Rules.apply

    def counting(self, state, seat, move):
        applied.append(move)
        return original(self, state, seat, move)

    for rules_class in {type(store.rules_of(game))}:
        monkeypatch.setattr(rules_class, "apply", counting)
    for seq in (game.seq, game.seq - 3, 20):
        applied.clear()
        store.state_at(game, seq)
        assert len(applied) < 8, f"loading event {seq} applied {len(applied)} moves"


def test_seed_hash_is_public_and_the_seed_secret_while_playing():
    game = _played_game(2)
    from games import selectors

    detail = selectors.game_detail(game=game, user=game.created_by)
    assert detail["seed"] is None and detail["seed_sha256"] == Game.hash_seed(game.seed)
    assert all(game.seed not in str(event.public_payload) for event in Event.objects.filter(game=game))
