"""The bot ladder: rated games among the server's bots give each level a rating of its own."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from competition import bot_ladder
from competition.models import Rating
from games import services
from games.models import Game
from tests.competition.conftest import make_users

pytestmark = pytest.mark.django_db(transaction=True)


def test_every_pair_of_entrants_meets_twice_each_sitting_first_once():
    chosen = [("random", 1), ("greedy", 1), ("mcts", 2)]
    pairs = bot_ladder.pairings(chosen)
    assert len(pairs) == 6 and len(set(pairs)) == 6
    assert all(first != second for first, second in pairs)
    assert {seats[0] for seats in pairs} == set(chosen)
    assert ("mcts", 3) in bot_ladder.entrants() and ("greedy", 1) in bot_ladder.entrants()


def _play_out(game_id: int) -> Game:
    for _ in range(500):
        game = Game.objects.get(pk=game_id)
        if game.status != "active":
            return game
        services.bot_seat_play(game_id=game.pk, seq=game.seq)
    raise AssertionError("the bots never finished the game")


def test_a_round_is_rated_and_each_level_gets_a_rating_of_its_own():
    (watcher,) = make_users(1)
    made = bot_ladder.ladder_round(creator=watcher, rules_ids=["toy_race"],
                                   chosen=[("random", 1), ("mcts", 1)])
    assert len(made) == 2
    games = [_play_out(game_id) for game_id in made]
    assert all(game.rated and not game.private and game.status == "finished" for game in games)
    assert [game.seats.get(index=0).bot for game in games] == ["random", "mcts"]
    assert not games[0].seats.filter(user=watcher).exists()
    ratings = {r.player: r for r in Rating.objects.filter(rules="toy_race", time_class="step")}
    assert set(ratings) == {"bot:random:1", "bot:mcts:1"}
    assert all(r.is_bot and r.games == 2 for r in ratings.values())


def test_the_command_names_its_creator_and_checks_its_entrants():
    with pytest.raises(CommandError):
        call_command("bot_ladder", "--creator", "nobody")
    (user,) = make_users(1)
    with pytest.raises(CommandError):
        call_command("bot_ladder", "--creator", user.username, "--bot", "mcts:9")
