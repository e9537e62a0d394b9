"""Bots share the machine: deadlines and bots on queues of their own, a per-account quota of games
thinking at once, and a cap on every decision's thinking time."""

from __future__ import annotations

import dataclasses
import uuid
from unittest.mock import patch

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import override_settings

import bots
from bots import mcts, registry
from consumers import framework
from consumers.models import Message
from games import bot_quota, dispatch, services
from games.models import Game
from project.celery import app

pytestmark = pytest.mark.django_db


def _owner() -> str:
    return f"test-{uuid.uuid4().hex}"  # the cache outlives a test run: a key of this run only


def test_deadlines_and_bots_go_to_queues_of_their_own():
    route = app.amqp.router.route
    assert route({}, "games.apply_timeout")["queue"].name == "deadlines"
    assert route({}, "games.sweep_deadlines")["queue"].name == "deadlines"
    # bot turns are a consumer of the log: the framework sends its tasks to the consumer's queue
    assert services.BOT_TURNS.queue == "bots" and services.CONDITIONAL_LINES.queue == "deadlines"


def test_an_account_has_only_its_quota_of_slots_and_gets_them_back():
    owner = _owner()
    with bot_quota.slot(owner, slots=2, hold_seconds=30) as first:
        with bot_quota.slot(owner, slots=2, hold_seconds=30) as second:
            with bot_quota.slot(owner, slots=2, hold_seconds=30) as third:
                assert (first, second, third) == (True, True, False)
                assert bot_quota.held(owner, slots=2) == 2
            with bot_quota.slot(_owner(), slots=2, hold_seconds=30) as somebody_else:
                assert somebody_else  # another account is not held up
        with bot_quota.slot(owner, slots=2, hold_seconds=30) as again:
            assert again
    assert bot_quota.held(owner, slots=2) == 0


def test_a_slot_whose_holder_vanished_frees_itself_after_its_hold():
    owner = _owner()
    cache.add(bot_quota._key(owner, 0), "a worker killed mid-search", timeout=1)
    with bot_quota.slot(owner, slots=1, hold_seconds=30) as taken:
        assert not taken
    cache.delete(bot_quota._key(owner, 0))  # what the expiry does (without sleeping for it)
    with bot_quota.slot(owner, slots=1, hold_seconds=30) as taken:
        assert taken


def test_an_unreachable_cache_lets_the_bot_play():
    with patch.object(bot_quota.cache, "add", side_effect=ConnectionError("redis is away")):
        with bot_quota.slot(_owner(), slots=1, hold_seconds=30) as taken:
            assert taken


def _bot_game() -> Game:
    creator = get_user_model().objects.create_user(username=f"f{uuid.uuid4().hex[:12]}", password="x")
    game = services.game_create(
        creator=creator, rules_id="terrafex", players=2, options={}, creator_plays=False,
        bot_seats=[{"seat": 0, "bot": "random"}, {"seat": 1, "bot": "random"}],
    )
    return Game.objects.get(pk=game.pk)


@override_settings(SCRAPYARD_BOT_GAMES_PER_ACCOUNT=1)
def test_a_bot_turn_over_its_accounts_quota_waits_in_the_queue_and_plays_nothing(django_capture_on_commit_callbacks):
    game = _bot_game()
    with patch.object(dispatch, "send") as send:
        with bot_quota.slot(game.created_by_id, slots=1, hold_seconds=30):  # another game thinks
            with django_capture_on_commit_callbacks(execute=True):
                framework.fan_out(services.BOT_TURNS, game.pk)  # as a worker runs it (not eager)
    assert Game.objects.get(pk=game.pk).seq == game.seq, "nothing was played"
    row = Message.objects.get(consumer="bots", game_id=game.pk, seq=game.seq)
    assert row.status == "pending" and row.retries == 0, "waiting its turn is no failure"
    (name, args), options = send.call_args
    assert (name, args) == (framework.DELIVER, ("bots", row.pk)) and options["queue"] == "bots"
    assert options["eta"] == row.next_attempt_at > row.created_at  # sent for a moment later, not left to the sweep
    assert framework.attempt(services.BOT_TURNS, row.pk, at=row.next_attempt_at).delivered
    assert Game.objects.get(pk=game.pk).seq == game.seq + 1, "with the slot free, the bot plays"
    assert bot_quota.held(game.created_by_id, slots=1) == 0


def test_the_decision_cap_lowers_a_budgets_thinking_time_and_never_raises_it():
    level_three = registry.MCTS_BUDGETS[3]
    assert level_three.milliseconds is None  # a level is iterations only (reproducible anywhere)
    assert registry.capped(level_three, 0.5).milliseconds == 500
    assert registry.capped(level_three, None) == level_three
    assert registry.capped(level_three, 0.5).iterations == level_three.iterations
    capped_budget = dataclasses.replace(level_three, milliseconds=4000)
    assert registry.capped(capped_budget, 60).milliseconds == 4000
    assert registry.capped(capped_budget, 0.5).milliseconds == 500


@override_settings(SCRAPYARD_BOT_DECISION_SECONDS=0.25)
def test_the_service_caps_every_bot_decision():
    game = _bot_game()
    with patch.object(bots, "choose_move", wraps=bots.choose_move) as choose:
        services.bot_seat_play(game_id=game.pk, seq=game.seq)
    assert choose.call_args.kwargs["max_seconds"] == 0.25
    game_rules, view, seat = choose.call_args.args
    budgets = []
    real_decide = mcts.decide
    with patch.object(mcts, "decide", side_effect=lambda *a: budgets.append(a[3]) or real_decide(*a)):
        bots.choose_move(game_rules, view, seat, bot="mcts", level=3, seed="s", max_seconds=0.25)
    assert budgets[0].milliseconds == 250
