"""Rated games change ratings as they finish; casual and aborted ones do not, nor one a player
never came to; a timeout forfeit is a loss; a rebuild from the log gives the stored numbers
exactly."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import call_command

from competition import rating_service
from competition.models import RatedGame, Rating, RatingChange
from games import services, store, time_controls, timeouts
from games.models import Game
from tests.competition.conftest import make_users

pytestmark = pytest.mark.django_db(transaction=True)

STEP = {"type": "step", "seconds": 60}


def _game(users, *, rated=True, control=STEP, rules_id="toy_race", bots=()):
    seats = [{"user": user} for user in users] + [{"bot": bot, "level": 1} for bot in bots]
    return services.game_create_seated(creator=users[0], rules_id=rules_id, players=len(seats), options={},
                                       time_control=control, rated=rated, seats=seats)


def _play_one_move(game, users):
    game.refresh_from_db()
    seat = game.to_act[0]
    move = store.rules_of(game).legal_moves(store.state_at(game), seat)[0]
    services.move_submit(game_id=game.pk, user=users[seat], move=move, expected_seq=game.seq)


def _rating(user, rules_id="toy_race", time_class="step", system="glicko2"):
    return Rating.objects.get(player=f"u{user.pk}", rules=rules_id, time_class=time_class, system=system)


def test_a_rated_game_changes_both_ratings_when_it_ends():
    winner, loser = make_users(2)
    game = _game([winner, loser])
    _play_one_move(game, [winner, loser])
    _play_one_move(game, [winner, loser])
    services.resign(game_id=game.pk, user=loser)
    won, lost = _rating(winner), _rating(loser)
    assert won.rating > 1500 > lost.rating
    assert won.deviation < 350 and (won.wins, won.losses, won.games) == (1, 0, 1)
    assert (lost.wins, lost.losses) == (0, 1) and not won.is_bot
    changes = RatingChange.objects.filter(game_id=game.pk).order_by("seat")
    assert [c.outcome for c in changes] == ["win", "loss"] if game.seats.get(index=0).user == winner else ["loss", "win"]
    assert {c.rating_after for c in changes} == {won.rating, lost.rating}


def test_casual_and_aborted_games_change_nothing():
    one, two = make_users(2)
    casual = _game([one, two], rated=False)
    services.resign(game_id=casual.pk, user=two)
    rated = _game([one, two])
    services.abort(game_id=rated.pk, user=one)
    assert Game.objects.get(pk=rated.pk).result["reason"] == "aborted"
    rating_service.ratings_catch_up()
    assert not Rating.objects.exists()
    assert RatedGame.objects.get(game_id=rated.pk).reason == "aborted"


def test_a_rated_game_needs_a_clock():
    from apikit.errors import InvalidInput

    one, two = make_users(2)
    with pytest.raises(InvalidInput):
        _game([one, two], control={"type": "none"})


def _forfeit_on_time(monkeypatch, users, *, moves_first: int):
    """A rated game whose seat to act times out (forfeit policy) after `moves_first` moves; the
    seat that lost it."""
    at = [dt.datetime.now(dt.timezone.utc)]
    monkeypatch.setattr(time_controls, "now", lambda: at[0])
    game = _game(users)
    Game.objects.filter(pk=game.pk).update(timeout_policy="forfeit")  # a seat that times out is forfeited
    for _ in range(moves_first):
        _play_one_move(game, users)
    game.refresh_from_db()
    late = game.seats.get(index=game.to_act[0]).user
    at[0] += dt.timedelta(seconds=61)
    timeouts.timeout_apply(game_id=game.pk, seq=game.seq, seat=game.to_act[0])
    game.refresh_from_db()
    assert game.status == "finished"
    return game, late


def test_a_forfeit_on_time_is_a_loss(monkeypatch):
    users = make_users(2)
    _, late = _forfeit_on_time(monkeypatch, users, moves_first=2)  # each seat has moved
    assert _rating(late).losses == 1 and _rating(late).rating < 1500


def test_a_game_a_player_never_came_to_counts_for_nobody(monkeypatch):
    """Nothing of the late seat's in the log but its timeout: a no-show, not a game. Lichess aborts
    it, FIDE does not rate a forfeit, and a tournament scores it as one; rating it would give the
    other player a win nobody played for."""
    users = make_users(2)
    game, late = _forfeit_on_time(monkeypatch, users, moves_first=1)  # only the other seat moved
    assert game.seats.get(user=late).index not in game.result["winners"]
    rating_service.ratings_catch_up()
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    assert RatedGame.objects.get(game_id=game.pk).reason == "no_show"
    call_command("ratings_rebuild", stdout=open("/dev/null", "w"))
    assert not Rating.objects.exists() and RatedGame.objects.get(game_id=game.pk).reason == "no_show"


def test_bots_are_rated_in_the_same_pool_marked_as_bots():
    (person,) = make_users(1)
    game = _game([person], bots=["random"])
    services.resign(game_id=game.pk, user=person)
    bot = Rating.objects.get(player="bot:random:1")
    assert bot.is_bot and bot.rating > 1500 and bot.rules == "toy_race" and bot.time_class == "step"


def test_three_player_games_use_the_multiplayer_model():
    users = make_users(3)
    game = _game(users)
    services.resign(game_id=game.pk, user=users[0])
    services.resign(game_id=game.pk, user=users[1])
    ratings = [_rating(user, system="plackett_luce") for user in users]
    assert game.players == 3
    assert ratings[2].rating > 1500 and ratings[2].wins == 1
    assert ratings[0].losses == 1 and ratings[1].losses == 1


def test_the_rebuild_from_the_log_gives_the_same_numbers():
    users = make_users(4)
    for first, second in [(0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2)]:
        game = _game([users[first], users[second]])
        services.resign(game_id=game.pk, user=users[second if (first + second) % 2 else first])
    trio = _game(users[:3])
    services.resign(game_id=trio.pk, user=users[1])
    services.resign(game_id=trio.pk, user=users[2])
    stored = _everything()
    assert len(stored[0]) == 7 and len(stored[1]) == 15
    call_command("ratings_rebuild", stdout=open("/dev/null", "w"))
    assert _everything() == stored


def test_a_game_whose_finish_commits_late_is_folded_in_order(monkeypatch):
    from competition import receivers

    users = make_users(3)
    early = _game(users[:2])
    later = _game([users[0], users[2]])
    # `early` ends first, but the message asking for its rating is lost: `later` is rated first.
    with monkeypatch.context() as lost:
        lost.setattr(receivers.dispatch, "send", lambda *args, **kwargs: None)
        services.resign(game_id=early.pk, user=users[1])
    services.resign(game_id=later.pk, user=users[2])
    assert RatingChange.objects.get(game_id=later.pk, player=f"u{users[0].pk}").rating_before == 1500
    rating_service.ratings_catch_up()  # the sweep finds `early`, which finished before `later`
    folded_again = RatingChange.objects.get(game_id=later.pk, player=f"u{users[0].pk}")
    assert folded_again.rating_before == RatingChange.objects.get(game_id=early.pk, player=f"u{users[0].pk}").rating_after
    assert folded_again.rating_before > 1500
    online = _everything()
    call_command("ratings_rebuild", stdout=open("/dev/null", "w"))
    assert _everything() == online


def _everything():
    ratings = sorted(Rating.objects.values_list("player", "rules", "time_class", "system", "mu", "sigma", "volatility",
                                                "games", "wins", "draws", "losses"))
    changes = sorted(RatingChange.objects.values_list("game_id", "seat", "player", "rating_before", "rating_after",
                                                      "mu", "sigma", "volatility", "outcome"))
    return ratings, changes


@pytest.mark.parametrize("rules_id", ["terrafex", "terrain_vague", "space_junkyard", "scavenge"])
def test_a_resigner_ahead_on_the_board_loses_in_every_game(rules_id):
    """Each game's own resignation names the other seat the winner; the board may still show the
    resigner ahead (Terrafex keeps the board's scores), and the rating must follow the winners."""
    users = make_users(2)
    game = _game(users, rules_id=rules_id)
    resigner = game.seats.get(index=1).user
    services.resign(game_id=game.pk, user=resigner)
    result = Game.objects.get(pk=game.pk).result
    assert result["winners"] == [0]
    # the board as it stood, the resigner ahead by two (as in the reported game, [8, 10])
    Game.objects.filter(pk=game.pk).update(result={**result, "scores": [8, 10]})
    call_command("ratings_rebuild", stdout=open("/dev/null", "w"))
    won, lost = _rating(game.seats.get(index=0).user, rules_id), _rating(resigner, rules_id)
    assert won.rating > 1500 > lost.rating and (lost.wins, lost.losses) == (0, 1)
    assert RatingChange.objects.get(game_id=game.pk, seat=1).outcome == "loss"
