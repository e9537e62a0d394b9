"""What a seat sees at a seq is worked out once and kept (`games.selectors.seen`): the game's
answer, its legal moves, its state and its text board read the kept entry, shared by every
process through Redis. It must never show one seat another's secret, nor a spectator a seat's,
whoever read first, and never outlive its seq.

These tests commit (transaction=True): an entry is kept only once what it was worked out from
is committed, so inside a test's transaction nothing would be kept."""

from __future__ import annotations

import random

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache

from accounts import services as account_services
from games import services, store
from games.models import Game
from games.selectors import seen
from tests.api.conftest import Player

pytestmark = pytest.mark.django_db(transaction=True)


def _players(count: int) -> tuple[list, list[Player]]:
    users = [get_user_model().objects.create_user(f"s{n}{random.randrange(10**6)}", password="pw-long-enough")
             for n in range(count)]
    tokens = [account_services.token_obtain(username=u.username, password="pw-long-enough").key for u in users]
    return users, [Player(u.username, t) for u, t in zip(users, tokens)]


def _to_a_secret_step(users: list) -> Game:
    """Terrain Vague played by random legal moves up to a simultaneous (secret) step."""
    game = services.game_create(creator=users[0], rules_id="terrain_vague", players=2, options={})
    services.game_join(game_id=game.pk, user=users[1])
    game_rules, rnd = store.rules_of(game), random.Random(0)
    while True:
        game.refresh_from_db()
        assert game.status == "active", "this seed must reach a duel"
        if len(game.to_act) == 2:
            return game
        seat = rnd.choice(game.to_act)
        move = rnd.choice(game_rules.legal_moves(store.state_at(game), seat))
        services.move_submit(game_id=game.pk, user=users[seat], move=move, expected_seq=game.seq)


def _reads(player: Player, game_id: int) -> dict:
    path = f"/api/games/{game_id}"
    game = player.get(f"{path}/").json()
    reads = {"view": game["view"], "presentation": game["presentation"],
             "state": player.get(f"{path}/state/").json()["view"],
             "board": player.client.get(f"{path}/board.txt").content.decode()}
    if game["your_seat"] is not None:
        reads["legal"] = player.get(f"{path}/legal-moves/").json()["moves"]
    return reads


def _as_the_rules_say(game: Game, seat: int | None) -> dict:
    game_rules, state = store.rules_of(game), store.state_at(game)
    return {"view": game_rules.view(state, seat), "board": game_rules.render_text(state, seat)}


@pytest.mark.parametrize("first_reader", ["chooser", "watcher", "spectator"])
def test_every_seat_and_a_spectator_read_their_own_view_whoever_read_first(monkeypatch, first_reader):
    monkeypatch.setattr(services.lobby, "new_seed", lambda: "seen-cache-seed")
    users, players = _players(2)
    _, (spectator,) = _players(1)
    game = _to_a_secret_step(users)
    chooser, watcher = game.to_act
    choice = players[chooser].get(f"/api/games/{game.pk}/legal-moves/").json()["moves"][0]
    answer = players[chooser].submit(game.pk, choice, game.seq)
    assert answer.status_code == 201, answer.content
    game.refresh_from_db()
    readers = {"chooser": (players[chooser], chooser), "watcher": (players[watcher], watcher),
               "spectator": (spectator, None)}
    order = [first_reader, *(name for name in readers if name != first_reader)]
    read = {name: _reads(readers[name][0], game.pk) for name in order}
    # Read again, now from what was kept (this process's memory, then the shared cache alone).
    again = {name: _reads(readers[name][0], game.pk) for name in order}
    seen.forget()
    shared = {name: _reads(readers[name][0], game.pk) for name in order}
    for name, (_, seat) in readers.items():
        expected = _as_the_rules_say(game, seat)
        for reads in (read[name], again[name], shared[name]):
            assert reads["view"] == expected["view"] == reads["state"], name
            assert reads["board"].startswith(expected["board"].rstrip("\n")), name
    # The secret step: the chooser sees its own choice, the others do not.
    assert read["chooser"]["view"] != read["watcher"]["view"]
    assert read["watcher"]["view"] != read["chooser"]["view"] and read["spectator"]["view"] != read["chooser"]["view"]
    assert read["watcher"]["legal"]  # the watcher still has to choose
    # The move's answer held the chooser's game as it reads it now.
    assert answer.json()["game"]["view"] == read["chooser"]["view"]
    # Its panels and prompt are the game's answer's, kept per seq for the readers who draw them: a
    # program's move does not pay for them.
    assert "presentation" not in answer.json()["game"]
    assert read["chooser"]["presentation"]["prompt"] != read["watcher"]["presentation"]["prompt"]


@pytest.mark.skipif(not settings.SCRAPYARD_SEEN_SHARED, reason="needs Redis (REDIS_URL)")
def test_a_kept_entry_is_read_by_another_process_without_working_it_out_again(monkeypatch):
    users, players = _players(2)
    game = _to_a_secret_step(users)
    seat = game.to_act[0]
    first = _reads(players[seat], game.pk)
    assert cache.get(seen.seen_key(game, seat)) is not None  # in Redis, for every process
    seen.forget()  # as another process, which never read it

    def not_again(*args, **kwargs):
        raise AssertionError("worked out again")

    monkeypatch.setattr(seen, "worked_out", not_again)
    assert _reads(players[seat], game.pk) == first


def test_a_move_makes_a_new_entry_and_the_old_one_is_not_read(monkeypatch):
    users, players = _players(2)
    game = _to_a_secret_step(users)
    seat = game.to_act[0]
    before = players[seat].get(f"/api/games/{game.pk}/").json()
    move = players[seat].get(f"/api/games/{game.pk}/legal-moves/").json()["moves"][0]
    assert players[seat].submit(game.pk, move, game.seq).status_code == 201
    after = players[seat].get(f"/api/games/{game.pk}/").json()
    assert after["seq"] == before["seq"] + 1
    game.refresh_from_db()
    assert after["view"] == store.rules_of(game).view(store.state_at(game), seat)
    assert players[seat].get(f"/api/games/{game.pk}/legal-moves/").json()["moves"] == []  # it chose: none left


def test_nothing_is_kept_from_a_transaction_that_rolls_back():
    from django.db import transaction

    users, _ = _players(2)
    game = _to_a_secret_step(users)
    seat = game.to_act[0]
    with pytest.raises(RuntimeError), transaction.atomic():
        seen.seen(game=game, seat=seat)
        raise RuntimeError("rolled back")
    assert seen._memory.get(seen.seen_key(game, seat)) is None
    if settings.SCRAPYARD_SEEN_SHARED:
        assert cache.get(seen.seen_key(game, seat)) is None


def test_a_games_first_read_at_a_seq_asks_the_database_twice_and_redis_once_each_way(monkeypatch):
    """The first GET of a game at a seq (the web page's read after every move) reads the game in
    one statement and the log's marks in one more (`Store.life_marks`), and asks the shared cache
    for what a seat sees, its presentation and the log's facts in one round trip, keeping all
    three in one more: it read the log twice and Redis up to six times."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game, players, waiting, asked = _a_move_the_waiting_seat_has_not_read(monkeypatch)
    seen.forget()  # read in another process than the move's, which carried the log's facts over
    with CaptureQueriesContext(connection) as queries:
        answer = players[waiting].get(f"/api/games/{game.pk}/")
    assert answer.status_code == 200 and answer.json()["seq"] == game.seq + 1
    # (The caller's token is read too where no process keeps tokens: the test's.)
    statements = [query["sql"] for query in queries.captured_queries if "authtoken_token" not in query["sql"]]
    assert len(statements) == 2, statements
    if settings.SCRAPYARD_SEEN_SHARED:
        assert asked == {"get_many": 1, "set_many": 1, "get": 0, "set": 0}


def _statements_of_a_read(player: Player, game_id: int) -> tuple[dict, list[str]]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        answer = player.get(f"/api/games/{game_id}/")
    assert answer.status_code == 200, answer.content
    return answer.json(), [query["sql"] for query in queries.captured_queries if "authtoken_token" not in query["sql"]]


def _log_facts_as_computed(game_id: int) -> dict:
    from games.selectors.life import life_facts

    game = Game.objects.get(pk=game_id)
    facts = life_facts(game=game)
    return {"draw_offer": facts["draw_offer"], "takeback_request": facts["takeback_request"], "playing": facts["playing"]}


def test_after_a_move_in_this_process_the_other_seats_first_read_finds_the_logs_facts_carried(monkeypatch):
    """The log's facts at the seq before a move (nothing pending), held by the process that takes
    the move, are the facts after it: the other seat's first read (its page's, after every move)
    reads the game in one statement, not two, and says what the log says."""
    game, players, waiting, _ = _a_move_the_waiting_seat_has_not_read(monkeypatch)
    answer, statements = _statements_of_a_read(players[waiting], game.pk)
    assert answer["seq"] == game.seq + 1
    assert len(statements) == 1, statements
    assert {key: answer[key] for key in ("draw_offer", "takeback_request", "playing")} == _log_facts_as_computed(game.pk)


def test_a_draw_on_offer_before_a_move_is_not_carried_past_it():
    """A draw offered, then its seat moves: the offer lapses. What was pending is never carried
    over a move (the log is read again), so no reader sees the lapsed offer."""
    users, players = _players(2)
    game = services.game_create(creator=users[0], rules_id="scavenge", players=2, options={})
    services.game_join(game_id=game.pk, user=users[1])
    game.refresh_from_db()
    seat = game.to_act[0]
    assert players[seat].post(f"/api/games/{game.pk}/draw/", {"action": "offer"}).status_code == 200
    offered = players[1 - seat].get(f"/api/games/{game.pk}/").json()  # the facts with the offer, kept
    assert offered["draw_offer"]["by"] == seat
    players[seat].play_first_legal(game.pk)
    answer, statements = _statements_of_a_read(players[1 - seat], game.pk)
    assert answer["draw_offer"] is None and len(statements) > 1, statements  # the log read again
    assert _log_facts_as_computed(game.pk)["draw_offer"] is None


@pytest.mark.skipif(not settings.SCRAPYARD_SEEN_SHARED, reason="needs Redis (REDIS_URL)")
def test_a_text_boards_first_read_at_a_seq_asks_redis_once_each_way(monkeypatch):
    """The text board (a page's `board.txt` at every move, a mail's board) shows the rules' board
    and the presentation: both asked of the shared cache in one round trip, and kept in one more."""
    game, players, waiting, asked = _a_move_the_waiting_seat_has_not_read(monkeypatch)
    answer = players[waiting].client.get(f"/api/games/{game.pk}/board.txt")
    assert answer.status_code == 200
    game.refresh_from_db()
    assert answer.content.decode().startswith(store.rules_of(game).render_text(store.state_at(game), waiting).rstrip("\n"))
    assert asked == {"get_many": 1, "set_many": 1, "get": 0, "set": 0}


def _a_move_the_waiting_seat_has_not_read(monkeypatch):
    """A secret step just moved by its seat to act: the game as it was, the players, the waiting
    seat (its token already read and kept) and the count of the cache's calls from now on."""
    users, players = _players(2)
    game = _to_a_secret_step(users)
    seat = game.to_act[0]
    waiting = 1 - seat
    players[waiting].get(f"/api/games/{game.pk}/")  # its token read and kept
    move = players[seat].get(f"/api/games/{game.pk}/legal-moves/").json()["moves"][0]
    assert players[seat].submit(game.pk, move, game.seq).status_code == 201
    asked = {"get_many": 0, "set_many": 0, "get": 0, "set": 0}
    for name in asked:
        def counted(*args, _name=name, _real=getattr(cache, name), **kwargs):
            asked[_name] += 1
            return _real(*args, **kwargs)
        monkeypatch.setattr(cache, name, counted)
    return game, players, waiting, asked
