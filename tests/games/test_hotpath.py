"""The fast store's hand-written statements (`games.stores.fast`): the same rows written as the ORM
would on either database, and the locked read's answers (seats, deadlines, the newest hash, an
idempotency key) as the ORM reads them. A move's two round trips on PostgreSQL are
`test_move_transaction`'s."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import audit, store, writer
from games.models import Deadline, Event, Game, IdempotencyKey, Snapshot
from games.stores import fast
from tests.api.conftest import start_game

pytestmark = pytest.mark.django_db(transaction=True)


def _listed(players, game_id: int):
    game = players[0].get(f"/api/games/{game_id}/").json()
    mover = players[game["to_act"][0]]
    return mover, mover.get(f"/api/games/{game_id}/legal-moves/").json()


def test_the_locked_read_sees_what_the_orm_sees():
    game_id, players = start_game("toy_race", 2)
    mover, listed = _listed(players, game_id)
    mover.client.post(f"/api/games/{game_id}/moves/", {"move": listed["moves"][0], "expected_seq": listed["seq"]},
                      format="json", HTTP_IDEMPOTENCY_KEY="seen-by-both")
    game = Game.objects.get(pk=game_id)
    user = game.seats.get(index=listed["seat"]).user
    loaded = fast.locked_read(game_id, user_id=user.pk, idempotency_key="seen-by-both")
    assert [(f.attname, getattr(loaded, f.attname)) for f in Game._meta.concrete_fields] == [
        (f.attname, getattr(game, f.attname)) for f in Game._meta.concrete_fields]
    assert [(s.pk, s.index, s.user_id, s.joined_at) for s in loaded.seats.all()] == [
        (s.pk, s.index, s.user_id, s.joined_at) for s in game.seats.order_by("index")]
    assert [(d.pk, d.seat, d.seq, d.due_at) for d in loaded.deadlines.all()] == [
        (d.pk, d.seat, d.seq, d.due_at) for d in Deadline.objects.filter(game=game).order_by("seat")]
    assert loaded.last_hash == Event.objects.get(game=game, seq=game.seq).hash
    assert loaded.earlier_key["event_game"] == game_id and loaded.earlier_key["event_id"] == Event.objects.get(
        game=game, seq=game.seq).pk
    assert fast.locked_read(game_id, user_id=user.pk, idempotency_key="never-used").earlier_key is None
    assert fast.locked_read(10**9) is None


def test_snapshots_written_by_the_combined_write_prove_themselves(settings):
    settings.SCRAPYARD_SNAPSHOT_EVERY = 4
    game_id, players = start_game("scavenge", 2)
    for _ in range(9):
        mover, listed = _listed(players, game_id)
        assert mover.submit(game_id, listed["moves"][0], listed["seq"]).status_code == 201
    game = Game.objects.get(pk=game_id)
    snapshots = list(Snapshot.objects.filter(game=game).order_by("seq"))
    assert [s.seq for s in snapshots] == [s for s in range(4, game.seq + 1, 4)]
    for snapshot in snapshots:
        log_hash = Event.objects.get(game=game, seq=snapshot.seq).hash
        assert store.snapshot_problem(snapshot, log_hash) is None
    store.recent_states.clear()
    game_rules = store.rules_of(game)
    assert game_rules.dump(store.state_at(game)) == game_rules.dump(store.state_from_zero(game))
    assert audit.verify_chain(game) == [] and audit.verify_fold(game) == [] and audit.verify_snapshots(game) == []


def test_values_sent_as_they_are_are_what_the_orm_would_send():
    """The unit of work prepares a whole number, a string, a boolean or None itself where its
    field is of that kind (`fast._shortcut`); for every column a move writes, the ORM's own
    preparation gives the very same value and type (on PostgreSQL an integer column's Int4)."""
    samples = [0, 7, -3, 2**40, True, False, None, "", "abc", 2.5,
               dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc), {"a": 1}, [1]]
    checked = 0
    for model in (Event, Game, Deadline, IdempotencyKey, Snapshot):
        for field in model._meta.concrete_fields:
            shortcut = fast._shortcut(field, connection.vendor)
            for value in samples:
                if shortcut is not None and (value is None or type(value) is shortcut[0]):
                    ours = fast._prepared(field, shortcut, value, connection)
                    django = field.get_db_prep_save(value, connection)
                    assert (ours, type(ours)) == (django, type(django)), (field, value)
                    checked += 1
    assert checked > 50
    assert fast._shortcut(Game._meta.get_field("seq"), connection.vendor)[0] is int  # a boolean is not taken for it


def _row(instance) -> tuple[tuple[str, ...], list]:
    names = tuple(field.attname for field in instance._meta.concrete_fields)
    return names, [getattr(instance, name) for name in names]


def test_an_instance_made_without_init_is_the_one_from_db_makes():
    game_id, players = start_game("toy_race", 2)
    game = Game.objects.get(pk=game_id)
    for stored in (game, game.seats.order_by("index").first(), Event.objects.filter(game=game).first(),
                   game.seats.order_by("index").first().user):
        names, values = _row(stored)
        quick = fast.loaded_instance(type(stored), names, list(values), "default")
        slow = type(stored).from_db("default", names, list(values))
        assert {k: v for k, v in vars(quick).items() if k != "_state"} == {
            k: v for k, v in vars(slow).items() if k != "_state"}
        assert (quick._state.adding, quick._state.db, quick._state.fields_cache) == (False, "default", {})
        assert quick == stored and quick.get_deferred_fields() == set()
    seat = fast.loaded_instance(type(game.seats.first()), *_row(game.seats.order_by("index").first()), "default")
    assert seat.game.pk == game_id  # a foreign key loads through its descriptor as usual
    fast_game = fast.loaded_instance(Game, *_row(game), "default")
    fast_game.timeout_policy = "forfeit"
    fast_game.save(update_fields=["timeout_policy"])  # an UPDATE of the loaded row, not an INSERT
    assert Game.objects.filter(pk=game_id, timeout_policy="forfeit").count() == 1 and Game.objects.count() == 1


def test_an_instance_is_made_by_from_db_while_something_listens_for_its_signals():
    from django.db.models.signals import post_init

    game = Game.objects.get(pk=start_game("toy_race", 2)[0])
    heard = []

    def listener(sender, instance, **kwargs):
        heard.append(instance)

    post_init.connect(listener, sender=Game)
    try:
        made = fast.loaded_instance(Game, *_row(game), "default")
    finally:
        post_init.disconnect(listener, sender=Game)
    assert heard == [made]


def test_an_instance_made_for_writing_is_the_one_its_constructor_makes():
    game = Game.objects.get(pk=start_game("toy_race", 2)[0])
    at = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.timezone.utc)
    for model, values in ((Deadline, {"game": game, "seat": 1, "seq": 3, "budget_seconds": 60.0}),
                          (Event, {"game": game, "seq": 4, "kind": "move", "seat": 0, "payload": {"move": {}},
                                   "public_payload": {"move": {}}, "created_at": at, "prev_hash": "a" * 64,
                                   "private_digest": "b" * 64})):
        quick, slow = fast.new_instance(model, **values), model(**values)
        assert {k: v for k, v in vars(quick).items() if k != "_state"} == {
            k: v for k, v in vars(slow).items() if k != "_state"}
        assert (quick._state.adding, quick._state.db) == (True, None)
        assert quick.game is game and quick.game_id == game.pk  # the object kept, as the descriptor keeps it
    assert fast.new_instance(Deadline, game=game, seat=0, seq=1, budget_seconds=1.0).spent_seconds == 0  # a default
    with pytest.raises(TypeError, match="colour"):
        fast.new_instance(Deadline, game=game, seat=0, seq=1, budget_seconds=1.0, colour="red")


def test_a_change_without_an_event_writes_a_new_version_only_where_moves_check_one():
    """PostgreSQL's moves check the row's version, so the writer moves it on for a change that
    stores no event (see `test_move_transaction.py`); elsewhere no move checks it and the UPDATE
    would be wasted."""
    game_id, _ = start_game("scavenge", 2)
    with CaptureQueriesContext(connection) as sent:
        writer.write(game_id, lambda change: None)
    updates = [query["sql"] for query in sent.captured_queries if query["sql"].startswith("UPDATE")]
    assert len(updates) == (1 if connection.vendor == "postgresql" else 0), updates
