"""A pair of real Celery workers on one queue, as deploy/supervisord.conf runs every queue
(docs/decisions/0035-worker-pairs.md): one SIGKILLed (main process and pool at once, as a crash or
the OOM killer's group kill would), the other goes on taking the queue's tasks, and what the killed
one held is done by the other: a timeout whose ETA message it held, found by the deadline sweep;
a bot's turn, by the consumers' sweep once its lease is over. The bounds are generous: they say
"done, by the other", not how fast (bench.chaos measures that)."""

from __future__ import annotations

import random
import re
import time

import pytest
from django.contrib.auth import get_user_model

from games import services, store
from games.models import Deadline, Event, Game
from tests.workers.conftest import wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.timeout(300),
]
_names = iter(range(10**6))
APPLY_TIMEOUT = "Task games.apply_timeout["
BOT_TURN = "Task consumers.fan_out["


def _users(count: int) -> list:
    User = get_user_model()
    return [User.objects.create_user(username=f"pair{next(_names)}", password="x") for _ in range(count)]


def _pair(start_worker, queue: str, **env: str):
    return [start_worker(f"{queue}-{number}", queues=queue, concurrency=1, beat=False, **env) for number in (0, 1)]


def test_a_timeout_held_by_a_killed_deadlines_worker_is_applied_by_the_other_once(start_worker):
    # Beat in a worker of its own, its backstop (which applies overdue timeouts without any worker)
    # held off, so that only the deadlines pair can apply the timeout.
    start_worker("sweeps", queues="default", concurrency=1, SCRAPYARD_CLOCKS_BACKSTOP_SECONDS="600")
    pair = _pair(start_worker, "deadlines")
    users = _users(2)
    game = services.game_create(creator=users[0], rules_id="scavenge", players=2, options={},
                                time_control={"type": "step", "seconds": 10}, timeout_policy="forfeit")
    services.game_join(game_id=game.pk, user=users[1])
    due_at = Deadline.objects.get(game=game).due_at
    # The sweep sends the timeout ahead of its deadline (SCRAPYARD_CLOCKS_LOOKAHEAD), with its ETA:
    # the worker that takes it holds it until then.
    holder = wait_for(lambda: next((worker for worker in pair if APPLY_TIMEOUT in worker.text()), None), 60)
    if Event.objects.filter(game=game, kind="timeout").exists():
        pytest.skip("the machine was too slow to kill the holder before the deadline")
    holder.kill()
    other = pair[1 - pair.index(holder)]
    wait_for(lambda: Event.objects.filter(game=game, kind="timeout").exists(), 90)
    time.sleep(2)  # a second delivery would land now
    timeouts = list(Event.objects.filter(game=game, kind="timeout"))
    assert len(timeouts) == 1 and timeouts[0].created_at >= due_at
    assert re.search(r"Task games\.apply_timeout\[[^]]+\] succeeded", other.text()), other.text()[-3000:]


def _bot_game():
    (person,) = _users(1)
    game = services.game_create(creator=person, rules_id="scavenge", players=2, options={},
                                bot_seats=[{"seat": 1, "bot": "mcts", "level": 1}])
    return game.pk, person


def _move(game_id: int, person, rng: random.Random) -> int | None:
    """The person's move; the seq the bot is to answer at (None: the game is over)."""
    game = Game.objects.get(pk=game_id)
    if game.status != "active":
        return None
    legal = store.rules_of(game).legal_moves(store.state_at(game), 0)
    services.move_submit(game_id=game_id, user=person, move=rng.choice(legal), expected_seq=game.seq)
    return Game.objects.get(pk=game_id).seq


def _answered(game_id: int, seq: int) -> bool:
    """the bot has answered (or the game is over)"""
    game = Game.objects.get(pk=game_id)
    return game.status != "active" or (game.seq > seq and 0 in game.to_act)


def test_a_bots_worker_killed_mid_game_leaves_its_pair_playing_every_turn(start_worker):
    start_worker("sweeps", queues="default", concurrency=1)  # beat: the consumers' sweep
    pair = _pair(start_worker, "bots")
    game_id, person = _bot_game()
    rng = random.Random(51)
    for _ in range(2):  # both up
        seq = _move(game_id, person, rng)
        if seq is not None:
            wait_for(lambda seq=seq: _answered(game_id, seq), 60)
    # Killed right after a move: mid-turn if it took the turn (its row's lease runs out and the
    # sweep sends it to the other), idle if not (the other takes the turn at once).
    seq = _move(game_id, person, rng)
    if seq is None:
        pytest.skip("the game ended before the kill")
    pair[0].kill()
    wait_for(lambda: _answered(game_id, seq), 120)
    before = pair[1].text().count(BOT_TURN)
    for _ in range(3):  # then every turn, by the other
        seq = _move(game_id, person, rng)
        if seq is None:
            break
        wait_for(lambda seq=seq: _answered(game_id, seq), 60)
    assert pair[1].text().count(BOT_TURN) > before or Game.objects.get(pk=game_id).status != "active"
    events = list(Event.objects.filter(game_id=game_id).order_by("seq").values_list("seq", flat=True))
    assert events == list(range(1, Game.objects.get(pk=game_id).seq + 1))  # no turn played twice
