"""A Swiss tournament of eight bots run to its end by real workers: beat starts it at its time,
the bot workers play every game, and each round begins when the last game of the one before ends
(the rating and round tasks, with the sweep behind them)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from competition import selectors, tournament_service
from competition.models import RatedGame, Rating, Table, Tournament
from games.models import Game
from tests.workers.conftest import wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.timeout(300),
]


def test_a_swiss_of_eight_bots_is_run_to_its_end_by_the_workers(start_worker):
    organiser = get_user_model().objects.create_user("organiser", password="pw-long-enough")
    tournament = tournament_service.tournament_create(
        user=organiser, name="Bots' Swiss", kind="swiss", rules_id="toy_race", players=2, options={},
        time_control={"type": "step", "seconds": 60}, rated=True, starts_at=timezone.now() + dt.timedelta(seconds=2),
    )
    for _ in range(8):
        tournament_service.tournament_bot_add(user=organiser, tournament_id=tournament.pk, bot="random", level=1)
    start_worker(concurrency=2, SCRAPYARD_COMPETITION_SWEEP_SECONDS="2", SCRAPYARD_BOT_GAMES_PER_ACCOUNT="4")
    wait_for(lambda: Tournament.objects.get(pk=tournament.pk).status == "finished", 240, interval=0.5)
    finished = Tournament.objects.get(pk=tournament.pk)
    assert finished.rounds == 3 and finished.current_round == 3
    tables = list(Table.objects.filter(tournament=finished))
    assert len(tables) == 12 and all(table.finished for table in tables)
    pairs = [frozenset(table.entrants) for table in tables]
    assert len(set(pairs)) == 12  # no pairing repeated
    games = Game.objects.filter(pk__in=[table.game_id for table in tables])
    assert all(game.status == "finished" and game.rated for game in games)
    standings = selectors.tournament_detail(tournament_id=finished.pk)["standings"]
    assert sum(row["points"] for row in standings) == 12  # one point a game
    assert [row["rank"] for row in standings] == sorted(row["rank"] for row in standings)
    assert standings[0]["points"] >= standings[-1]["points"]
    # the Buchholz of each entrant is the sum of its opponents' points
    points = {row["entrant"]: row["points"] for row in standings}
    for row in standings:
        met = [other for table in tables if row["entrant"] in table.entrants for other in table.entrants
               if other != row["entrant"]]
        assert row["buchholz"] == sum(points[other] for other in met)
    # Eight entries of one bot are one player to the ratings: the workers saw every game, and
    # rated none (a player cannot gain from beating itself).
    seen = wait_for(lambda: RatedGame.objects.filter(game_id__in=[t.game_id for t in tables]).count() == 12 or None, 30)
    assert seen and set(RatedGame.objects.values_list("reason", flat=True)) == {"same_player_twice"}
    assert not Rating.objects.exists()
