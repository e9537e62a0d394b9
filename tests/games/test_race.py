"""Racing clients on one seq, on PostgreSQL with real connections: exactly one move is stored,
every other gets 409, the seq stays gapless and the chain intact."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from rest_framework.test import APIClient

from accounts import services as account_services
from apikit import errors as apikit_errors
from games import errors, services, store, stores
from games.models import Event, Game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

RACERS = 8


def _run_together(work, count: int) -> list:
    """Start `count` threads on `work(i)` at the same instant; each uses its own connection."""
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = work(i)
        except Exception as error:  # the result under test
            results[i] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not [thread for thread in threads if thread.is_alive()], "a racing thread still waits after 60 s"
    return results


def _started_game():
    users = [get_user_model().objects.create_user(f"racer{n}", password="pw-long-enough") for n in range(2)]
    game = services.game_create(creator=users[0], rules_id="terrafex", players=2, options={})
    services.game_join(game_id=game.pk, user=users[1])
    game.refresh_from_db()
    return game, users


def test_one_move_per_seq_when_clients_race():
    game, users = _started_game()
    seat = game.to_act[0]
    moves = store.rules_of(game).legal_moves(store.state_at(game), seat)
    seq = game.seq

    def submit(i: int):
        return services.move_submit(
            game_id=game.pk, user=users[seat], move=moves[i % len(moves)], expected_seq=seq
        )

    results = _run_together(submit, RACERS)
    stored = [r for r in results if isinstance(r, services.Submitted)]
    refused = [r for r in results if isinstance(r, errors.StaleSeq)]
    assert len(stored) == 1 and len(refused) == RACERS - 1, results
    assert all(error.extra["seq"] == seq + 1 for error in refused)
    game.refresh_from_db()
    assert game.seq == seq + 1
    assert list(Event.objects.filter(game=game).values_list("seq", flat=True)) == list(range(1, seq + 2))
    call_command("verify_log", str(game.pk))


def test_racing_retries_with_one_idempotency_key_store_one_move():
    game, users = _started_game()
    seat = game.to_act[0]
    token = account_services.token_obtain(username=users[seat].username, password="pw-long-enough").key
    move = store.rules_of(game).legal_moves(store.state_at(game), seat)[0]

    def retry(i: int):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        response = client.post(
            f"/api/games/{game.pk}/moves/",
            {"move": move, "expected_seq": game.seq},
            format="json",
            headers={"Idempotency-Key": "same-key"},
        )
        return response.status_code, response.json()

    results = _run_together(retry, RACERS)
    assert {status for status, _ in results} == {201}
    assert len({body["seq"] for _, body in results}) == 1
    assert Game.objects.get(pk=game.pk).seq == game.seq + 1


def test_racing_joins_fill_each_seat_once():
    creator = get_user_model().objects.create_user("host", password="pw-long-enough")
    game = services.game_create(creator=creator, rules_id="scavenge", players=4, options={})
    joiners = [get_user_model().objects.create_user(f"joiner{n}", password="pw-long-enough") for n in range(6)]

    def join(i: int):
        return services.game_join(game_id=game.pk, user=joiners[i])

    results = _run_together(join, len(joiners))
    seated = sorted(r.index for r in results if not isinstance(r, Exception))
    assert seated == [1, 2, 3]
    assert all(isinstance(r, errors.GameNotOpen) for r in results if isinstance(r, Exception))
    game.refresh_from_db()
    assert game.status == "active"
    call_command("verify_log", str(game.pk))


def test_two_seats_accepting_a_draw_while_its_seat_moves_settle_one_way():
    """Three players: seat A offers a draw; the two others accept while A moves. Under the game's
    row lock the three land one after another: either both accepts come first (a draw, and the move
    is refused) or the move lapses the offer (an accept that comes after it is refused)."""
    for attempt in range(3):
        users = [get_user_model().objects.create_user(f"d{attempt}_{n}", password="pw-long-enough") for n in range(3)]
        game = services.game_create(creator=users[0], rules_id="scavenge", players=3, options={})
        for user in users[1:]:
            services.game_join(game_id=game.pk, user=user)
        game.refresh_from_db()
        offering = game.to_act[0]
        services.draw(game_id=game.pk, user=users[offering], action="offer")
        game.refresh_from_db()
        move = store.rules_of(game).legal_moves(store.state_at(game), offering)[0]
        others = [seat for seat in range(3) if seat != offering]

        def act(i: int, game=game, others=others, offering=offering, move=move, users=users):
            if i < 2:
                return services.draw(game_id=game.pk, user=users[others[i]], action="accept")
            return services.move_submit(game_id=game.pk, user=users[offering], move=move, expected_seq=game.seq)

        results = _run_together(act, 3)
        game.refresh_from_db()
        moved = isinstance(results[2], services.Submitted)
        if game.status == "finished":
            assert game.result["reason"] == "draw_agreed" and not moved
        else:
            assert moved and any(isinstance(r, errors.DrawNotOffered) for r in results[:2])
        assert all(isinstance(r, (Event, services.Submitted, apikit_errors.ServiceError)) for r in results), results
        call_command("verify_log", str(game.pk))


def test_one_idempotency_key_on_two_games_at_once_stores_one_move_and_refuses_the_other(monkeypatch):
    """The loser's read came before the winner's commit, so it saw no key: the unique key stops
    its write, and it is answered as any other reuse of the key is (422), not as a stale seq
    (409: its game never moved, so reading it again would not help)."""
    mover, games = _one_player_to_act_in_two_games()
    first, second = (_first_move(game) for game in games)
    stored = services.move_submit(game_id=games[0].pk, user=mover, move=first, expected_seq=games[0].seq,
                                  idempotency_key="one-key")
    assert not stored.replayed

    def read_before_the_winner_committed(*args, **kwargs):
        game = loaded(*args, **kwargs)
        game.earlier_key = None
        return game

    the_store = stores.current()
    loaded = the_store.read
    monkeypatch.setattr(the_store, "read", read_before_the_winner_committed)
    with pytest.raises(errors.IdempotencyKeyReused):
        services.move_submit(game_id=games[1].pk, user=mover, move=second, expected_seq=games[1].seq,
                             idempotency_key="one-key")
    assert Game.objects.get(pk=games[1].pk).seq == games[1].seq
    assert Event.objects.filter(game=games[1]).count() == games[1].seq


def _one_player_to_act_in_two_games():
    users = [get_user_model().objects.create_user(f"keyed{n}", password="pw-long-enough") for n in range(2)]
    games = []
    for _ in range(2):
        game = services.game_create(creator=users[0], rules_id="terrafex", players=2, options={})
        services.game_join(game_id=game.pk, user=users[1])
        game.refresh_from_db()
        games.append(game)
    movers = {game.seats.get(index=game.to_act[0]).user for game in games}
    assert len(movers) == 1, "both games open with the same seat to act"
    return movers.pop(), games


def _first_move(game):
    return store.rules_of(game).legal_moves(store.state_at(game), game.to_act[0])[0]
