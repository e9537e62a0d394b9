"""Conditional moves ("if they play X, I play Y"): queued while waiting, played after the
opponent's move commits as the player's own ordinary move, dropped when the game leaves them,
refused through chance, and never seen by anyone but their owner until played."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest

import rules
from apikit.views import _without_countdown
from consumers import framework
from consumers import tasks as consumer_tasks
from games import dispatch, services, store
from games.models import ConditionalLine, Event, Game
from tests.api.conftest import register, start_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def consumed(monkeypatch):
    """What the after-commit consumer was asked to do, run here as the worker would run it."""
    sent: list[tuple[str, tuple]] = []
    monkeypatch.setattr(dispatch, "send", lambda name, args, **options: sent.append((name, args)))
    return sent


def lines_sent(sent):
    """What was sent to the conditional lines' consumer (`ConditionalLines`), the other
    consumers' fan-outs (mail) left out."""
    return [(name, args) for name, args in sent if args[0] == "conditionals"]


def run_consumers(sent):
    for name, args in lines_sent(sent):
        if name == framework.FAN_OUT:
            consumer_tasks.fan_out(*args)
        elif name == framework.DELIVER:
            consumer_tasks.deliver(*args)
    sent.clear()


def ahead(game_id: int, picks: list[int]) -> list[tuple[int, dict]]:
    """The moves the game would see next if each mover picked legal move number `picks[i]`."""
    game = Game.objects.get(pk=game_id)
    game_rules = rules.get(game.rules)
    state = store.state_at(game)
    line = []
    for pick in picks:
        seat = game_rules.to_act(state)[0]
        legal = game_rules.legal_moves(state, seat)
        move = legal[pick % len(legal)]
        line.append((seat, move))
        state = game_rules.apply(state, seat, move)
    return line


def line_to_reply(game_id: int, waiting: int, picks: list[int]) -> list[tuple[int, dict]]:
    """The opponent's moves up to (and with) the waiting seat's first reply."""
    line = []
    for seat, move in ahead(game_id, picks + [0] * 12):
        line.append((seat, move))
        if seat == waiting:
            return line
    raise AssertionError("the waiting seat never got a move")


def terrafex_game():
    game_id, players = start_game("terrafex", 2)
    game = Game.objects.get(pk=game_id)
    mover = game.to_act[0]
    return game_id, players[mover], players[1 - mover], 1 - mover


def play_theirs(game_id, player, line, sent, django_capture_on_commit_callbacks):
    """The opponent plays the line's moves that are theirs, each committed and consumed."""
    for seat, move in line:
        game = Game.objects.get(pk=game_id)
        if seat not in game.to_act or game.seats.get(index=seat).user.username != player.username:
            break
        with django_capture_on_commit_callbacks(execute=True):
            answer = player.submit(game_id, move, game.seq)
        assert answer.status_code == 201, answer.content
        run_consumers(sent)


def test_a_matching_line_is_played_as_an_ordinary_move(consumed, django_capture_on_commit_callbacks):
    game_id, mover, waiter, seat = terrafex_game()
    line = line_to_reply(game_id, seat, [3])
    queued = waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": [move for _, move in line]})
    assert queued.status_code == 201, queued.content
    assert [step["seat"] for step in queued.json()["moves"]] == [s for s, _ in line]
    assert all(step["text"] for step in queued.json()["moves"])
    before = Game.objects.get(pk=game_id).seq
    play_theirs(game_id, mover, line, consumed, django_capture_on_commit_callbacks)

    reply = Event.objects.filter(game_id=game_id).order_by("-seq").first()
    assert reply.seq == before + len(line) and reply.seat == seat and reply.kind == "move"
    assert reply.payload == {"move": line[-1][1]}
    events = mover.get(f"/api/games/{game_id}/events/").json()
    listed = events["events"] if isinstance(events, dict) else events
    mine, theirs = listed[-1], listed[-2]
    assert set(mine) == set(theirs) and mine["kind"] == theirs["kind"] == "move"  # nothing marks it
    assert waiter.get(f"/api/games/{game_id}/conditionals/").json()["lines"] == []
    # The consumer is idempotent by (game, seq): a redelivered message plays nothing more.
    consumer_tasks.fan_out("conditionals", game_id)
    services.conditionals_play(game_id=game_id, seq=before + len(line) - 1)
    services.conditionals_play(game_id=game_id, seq=before + len(line))
    assert Game.objects.get(pk=game_id).seq == before + len(line)


def test_a_chain_plays_on_and_every_line_the_game_left_is_dropped(consumed, django_capture_on_commit_callbacks):
    game_id, mover, waiter, seat = terrafex_game()
    first = line_to_reply(game_id, seat, [3])
    other = line_to_reply(game_id, seat, [5])
    assert first[0] != other[0]
    for line in (first, other):
        assert waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": [m for _, m in line]}).status_code == 201
    assert len(waiter.get(f"/api/games/{game_id}/conditionals/").json()["lines"]) == 2
    play_theirs(game_id, mover, first, consumed, django_capture_on_commit_callbacks)
    assert Event.objects.filter(game_id=game_id).order_by("-seq").first().seat == seat
    assert waiter.get(f"/api/games/{game_id}/conditionals/").json()["lines"] == []  # the other was left


def test_a_line_the_real_move_left_is_dropped_not_played(consumed, django_capture_on_commit_callbacks):
    game_id, mover, waiter, seat = terrafex_game()
    line = line_to_reply(game_id, seat, [3])
    real = ahead(game_id, [7])[0]
    assert real[1] != line[0][1]
    assert waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": [m for _, m in line]}).status_code == 201
    seq = Game.objects.get(pk=game_id).seq
    with django_capture_on_commit_callbacks(execute=True):
        assert mover.submit(game_id, real[1], seq).status_code == 201
    run_consumers(consumed)
    assert Game.objects.get(pk=game_id).seq == seq + 1  # nothing was played for the waiter
    assert not ConditionalLine.objects.filter(game_id=game_id).exists()


def test_a_reply_no_longer_legal_is_dropped_not_played(consumed, django_capture_on_commit_callbacks):
    """Whatever made it illegal (here: the stored reply no longer fits the rules), the server
    never plays it and the waiting player keeps the turn."""
    game_id, mover, waiter, seat = terrafex_game()
    line = line_to_reply(game_id, seat, [3])
    created = waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": [m for _, m in line]}).json()
    stored = ConditionalLine.objects.get(pk=created["id"])
    stored.moves[-1]["move"] = {"type": "forest", "action": "grow", "at": [99, 99]}
    stored.save()
    play_theirs(game_id, mover, line, consumed, django_capture_on_commit_callbacks)
    game = Game.objects.get(pk=game_id)
    assert game.to_act == [seat] and Event.objects.filter(game_id=game_id).order_by("-seq").first().seat != seat
    assert not ConditionalLine.objects.filter(game_id=game_id).exists()


def test_a_line_through_chance_is_refused_with_its_code():
    game_id, players = start_game("scavenge", 2)
    game = Game.objects.get(pk=game_id)
    waiting = 1 - game.to_act[0]
    line = [move for _, move in ahead(game_id, [0, 0, 0, 0])]
    answer = players[waiting].post(f"/api/games/{game_id}/conditionals/", {"moves": line})
    assert answer.status_code == 422 and answer.json()["code"] == "conditional_through_chance"
    assert not ConditionalLine.objects.exists()


def test_refusals_two_players_only_not_on_your_turn_and_bad_lines():
    game_id, players = start_game("scavenge", 3)
    answer = players[0].post(f"/api/games/{game_id}/conditionals/", {"moves": [{"type": "x"}, {"type": "y"}]})
    assert answer.status_code == 409 and answer.json()["code"] == "conditional_two_players_only"
    game_id, mover, waiter, seat = terrafex_game()
    line = [m for _, m in line_to_reply(game_id, seat, [3])]
    answer = mover.post(f"/api/games/{game_id}/conditionals/", {"moves": line})
    assert answer.status_code == 409 and answer.json()["code"] == "conditional_on_your_turn"
    answer = waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": [line[0], {"type": "nonsense"}]})
    assert answer.status_code == 422 and answer.json()["code"] == "conditional_invalid" and answer.json()["index"] == 1
    answer = waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": line[:-1] + [line[0]] if len(line) > 1 else []})
    assert answer.status_code in (400, 422)
    stranger = register()
    answer = stranger.post(f"/api/games/{game_id}/conditionals/", {"moves": line})
    assert answer.status_code == 403 and answer.json()["code"] == "not_a_player"
    assert not ConditionalLine.objects.exists()


def test_notation_text_is_accepted():
    game_id, mover, waiter, seat = terrafex_game()
    game = Game.objects.get(pk=game_id)
    game_rules = rules.get(game.rules)
    state = store.state_at(game)
    texts = []
    for seat_now, move in line_to_reply(game_id, seat, [3]):
        texts.append(game_rules.describe_move(state, seat_now, move))
        state = game_rules.apply(state, seat_now, move)
    answer = waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": texts})
    assert answer.status_code == 201, answer.content


def test_another_seat_never_learns_a_line_exists(consumed, django_capture_on_commit_callbacks):
    game_id, mover, waiter, seat = terrafex_game()
    paths = ["", "state/", "events/", "legal-moves/", "conditionals/", "chat/"]
    seen = {path: mover.get(f"/api/games/{game_id}/{path}") for path in paths}
    board = mover.client.get(f"/api/games/{game_id}/board.txt").content
    spectator = register().get(f"/api/games/{game_id}/")

    events_before = Event.objects.filter(game_id=game_id).count()
    with django_capture_on_commit_callbacks(execute=True):
        created = waiter.post(f"/api/games/{game_id}/conditionals/",
                              {"moves": [m for _, m in line_to_reply(game_id, seat, [3])]})
    assert created.status_code == 201
    # No event, stream push, webhook or task at all (a line wakes the worker only if the game
    # moved on while it was being stored, `conditionals._wake_if_moved_on`).
    assert lines_sent(consumed) == [] and Event.objects.filter(game_id=game_id).count() == events_before

    for path, before in seen.items():
        after = mover.get(f"/api/games/{game_id}/{path}")
        assert after["ETag"] == before["ETag"], path
        if after["Content-Type"].startswith("application/json"):  # the clocks' countdown aside
            assert _without_countdown(after.json()) == _without_countdown(before.json()), path
    assert mover.client.get(f"/api/games/{game_id}/board.txt").content == board
    again = register().get(f"/api/games/{game_id}/")
    assert again.status_code == spectator.status_code
    assert again["ETag"] == spectator["ETag"]
    assert _without_countdown(again.json()) == _without_countdown(spectator.json())

    # Its id, tried by another, reads exactly as an id that never existed.
    theirs = mover.client.delete(f"/api/games/{game_id}/conditionals/{created.json()['id']}/")
    nobody = mover.client.delete(f"/api/games/{game_id}/conditionals/{uuid.uuid4()}/")
    assert theirs.status_code == nobody.status_code == 404
    assert theirs.json()["code"] == nobody.json()["code"] == "conditional_not_found"
    assert ConditionalLine.objects.filter(pk=created.json()["id"]).exists()

    # The opponent's move sends the same after-commit work whether or not a line waits on it.
    seq = Game.objects.get(pk=game_id).seq
    with django_capture_on_commit_callbacks(execute=True):
        assert mover.submit(game_id, ahead(game_id, [7])[0][1], seq).status_code == 201
    assert lines_sent(consumed) == [(framework.FAN_OUT, ("conditionals", game_id))]


def test_the_consumer_is_sent_for_every_game_alike(consumed, django_capture_on_commit_callbacks):
    game_id, mover, waiter, seat = terrafex_game()
    seq = Game.objects.get(pk=game_id).seq
    with django_capture_on_commit_callbacks(execute=True):
        assert mover.submit(game_id, ahead(game_id, [7])[0][1], seq).status_code == 201
    assert lines_sent(consumed) == [(framework.FAN_OUT, ("conditionals", game_id))]


def test_cancel_removes_only_your_line():
    game_id, mover, waiter, seat = terrafex_game()
    line = [m for _, m in line_to_reply(game_id, seat, [3])]
    created = waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": line}).json()
    assert waiter.client.delete(f"/api/games/{game_id}/conditionals/{created['id']}/").status_code == 204
    assert waiter.get(f"/api/games/{game_id}/conditionals/").json()["lines"] == []
    assert waiter.client.delete(f"/api/games/{game_id}/conditionals/{created['id']}/").status_code == 404


def test_the_sweep_plays_a_line_whose_wake_up_was_lost(consumed, django_capture_on_commit_callbacks):
    game_id, mover, waiter, seat = terrafex_game()
    line = line_to_reply(game_id, seat, [3])
    assert waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": [m for _, m in line]}).status_code == 201
    for seat_now, move in line[:-1]:  # the opponent's moves; every wake-up message is lost
        assert mover.submit(game_id, move, Game.objects.get(pk=game_id).seq).status_code == 201
    seq = Game.objects.get(pk=game_id).seq
    assert services.conditionals_stalled(idle_seconds=0) == [(game_id, seq)]
    Game.objects.filter(pk=game_id).update(updated_at=Game.objects.get(pk=game_id).updated_at - dt.timedelta(minutes=1))
    consumed.clear()
    assert framework.fan_outs_missed(services.CONDITIONAL_LINES) == 1  # the consumers' sweep finds it
    assert lines_sent(consumed) == [(framework.FAN_OUT, ("conditionals", game_id))]
    run_consumers(consumed)
    assert Game.objects.get(pk=game_id).seq == seq + 1
    assert Event.objects.get(game_id=game_id, seq=seq + 1).seat == seat
    assert services.conditionals_stalled(idle_seconds=0) == []


def test_the_lines_are_a_consumer_of_the_log():
    assert framework.get("conditionals") is services.CONDITIONAL_LINES
    assert services.CONDITIONAL_LINES.queue == "deadlines"


def test_what_if_preview_shows_the_position_and_the_next_mover_moves():
    game_id, mover, waiter, seat = terrafex_game()
    start = waiter.post(f"/api/games/{game_id}/conditionals/preview/", {"moves": []})
    assert start.status_code == 200, start.content
    assert start.json()["to_act"] == 1 - seat and start.json()["moves"] and start.json()["board"]
    first = start.json()["moves"][3]
    after = waiter.post(f"/api/games/{game_id}/conditionals/preview/", {"moves": [first]}).json()
    assert after["line"][0]["move"] == first and after["to_act"] is not None
    assert not ConditionalLine.objects.exists()  # looking queues nothing
    answer = mover.post(f"/api/games/{game_id}/conditionals/preview/", {"moves": []})
    assert answer.status_code == 409 and answer.json()["code"] == "conditional_on_your_turn"


def test_listing_lines_costs_the_same_folds_and_queries_for_one_line_as_for_thirty(monkeypatch):
    """Each line used to read its game anew and fold the log to its start: 30 lines took 2.2 s
    where none took 0.2 s. The folds and queries are counted, not timed."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games import conditional_apis
    from games.services.conditionals import MAX_LINES

    game_id, mover, waiter, seat = terrafex_game()
    folds = []
    real = store.state_at
    monkeypatch.setattr(conditional_apis.store, "state_at", lambda *a, **k: folds.append(a[1:]) or real(*a, **k))

    def listed() -> tuple[int, int, list]:
        folds.clear()
        with CaptureQueriesContext(connection) as queries:
            answer = waiter.get(f"/api/games/{game_id}/conditionals/")
        assert answer.status_code == 200
        return len(folds), len(queries), answer.json()["lines"]

    first = waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": [m for _, m in line_to_reply(game_id, seat, [0])]})
    assert first.status_code == 201, first.content
    one = listed()
    for pick in range(1, MAX_LINES):
        line = [m for _, m in line_to_reply(game_id, seat, [pick])]
        assert waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": line}).status_code == 201
    thirty = listed()
    assert len(one[2]) == 1 and len(thirty[2]) == MAX_LINES
    assert all(step["text"] for line in thirty[2] for step in line["moves"])  # every move still in words
    assert thirty[0] == one[0] == 1  # one fold to where the lines start
    assert thirty[1] == one[1]  # and the same queries


def test_the_same_line_queued_twice_is_refused_with_its_code():
    game_id, mover, waiter, seat = terrafex_game()
    line = [m for _, m in line_to_reply(game_id, seat, [3])]
    assert waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": line}).status_code == 201
    again = waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": line})
    assert again.status_code == 409 and again.json()["code"] == "conditional_duplicate"
    other = [m for _, m in line_to_reply(game_id, seat, [4])]
    assert other != line
    assert waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": other}).status_code == 201
    assert ConditionalLine.objects.filter(game_id=game_id).count() == 2


@pytest.mark.parametrize("game", list(rules.catalog().values()), ids=lambda g: g.id)
def test_the_descriptor_says_whether_a_line_can_be_accepted_as_the_service_decides(game):
    """`conditional_moves` in the descriptor is what a client reads before offering "What if":
    a game through whose every move the service refuses a line says False."""
    described = game.describe()
    assert described["conditional_moves"] is game.conditional_moves
    assert described["conditional_moves"] == (not (described["chance"] or described["hidden_information"] or described["simultaneous"]))
    assert rules.get("scavenge").describe()["conditional_moves"] is False
    assert rules.get("terrafex").describe()["conditional_moves"] is True
