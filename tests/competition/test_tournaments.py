"""Tournaments through the API and the workers' tasks (run in-process): registration, the start,
rounds begun as the previous ones end, standings, and their refusals."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from competition import tournament_service
from competition.models import Table, Tournament
from games import services
from games.models import Game
from tests.api.conftest import register

pytestmark = pytest.mark.django_db(transaction=True)

STEP = {"type": "step", "seconds": 60}


def _organise(organiser, **more):
    body = {"name": "Autumn cup", "kind": "round_robin", "rules": "toy_race", "time_control": STEP,
            "starts_at": (timezone.now() + dt.timedelta(hours=1)).isoformat(), **more}
    answer = organiser.post("/api/tournaments/", body)
    assert answer.status_code == 201, answer.content
    return answer.json()["id"]


def _start_now(tournament_id):
    Tournament.objects.filter(pk=tournament_id).update(starts_at=timezone.now())
    tournament_service.tournaments_tick()


def _finish_current_round(tournament_id, strength):
    """Every game of the round ends: the weaker seat (by `strength`, a username's rank) resigns."""
    from django.contrib.auth import get_user_model

    tournament = Tournament.objects.get(pk=tournament_id)
    for table in Table.objects.filter(tournament=tournament, round=tournament.current_round, game_id__isnull=False):
        game = Game.objects.get(pk=table.game_id)
        seated = [seat.user.username for seat in game.seats.order_by("index")]
        for loser in sorted(seated, key=strength.index, reverse=True)[:-1]:
            services.resign(game_id=game.pk, user=get_user_model().objects.get(username=loser))


def test_a_round_robin_runs_round_after_round_to_correct_standings():
    organiser = register()
    players = [register() for _ in range(4)]
    tournament_id = _organise(organiser)
    for player in players:
        assert player.post(f"/api/tournaments/{tournament_id}/entry/").status_code == 201
    _start_now(tournament_id)
    strength = [player.username for player in players]  # the first entrant is the strongest
    detail = organiser.get(f"/api/tournaments/{tournament_id}/").json()
    assert detail["status"] == "running" and detail["rounds"] == 3 and detail["current_round"] == 1
    for _ in range(3):
        _finish_current_round(tournament_id, strength)  # each game's finish moves the tournament on
    detail = organiser.get(f"/api/tournaments/{tournament_id}/").json()
    assert detail["status"] == "finished" and len(detail["round_list"]) == 3
    assert [row["name"] for row in detail["standings"]] == strength
    assert [row["points"] for row in detail["standings"]] == [3, 2, 1, 0]
    assert [row["rank"] for row in detail["standings"]] == [1, 2, 3, 4]
    met = {frozenset(t["seats"]) for r in detail["round_list"] for t in r["tables"]}
    assert len(met) == 6  # everyone met everyone once
    profile = organiser.get(f"/api/players/{strength[0]}/").json()
    assert profile["wins"] == 3 and profile["ratings"][0]["rating"] > 1500  # the games were rated


def test_a_swiss_of_three_player_tables_seats_by_score():
    organiser = register()
    players = [register() for _ in range(6)]
    tournament_id = _organise(organiser, kind="swiss", players=3, rounds=2, time_control=STEP)
    for player in players:
        player.post(f"/api/tournaments/{tournament_id}/entry/")
    _start_now(tournament_id)
    strength = [player.username for player in players]
    _finish_current_round(tournament_id, strength)
    detail = organiser.get(f"/api/tournaments/{tournament_id}/").json()
    assert detail["current_round"] == 2
    round_one_winners = {max(t["seats"], key=lambda name: -strength.index(name))
                         for t in detail["round_list"][0]["tables"]}
    top_table = detail["round_list"][1]["tables"][0]["seats"]
    assert round_one_winners <= set(top_table)  # the leaders sit together
    _finish_current_round(tournament_id, strength)
    detail = organiser.get(f"/api/tournaments/{tournament_id}/").json()
    assert detail["status"] == "finished"
    assert detail["standings"][0]["points"] == 2 and detail["standings"][0]["name"] == strength[0]


def test_too_few_entrants_cancel_the_tournament():
    organiser = register()
    tournament_id = _organise(organiser)
    register().post(f"/api/tournaments/{tournament_id}/entry/")
    _start_now(tournament_id)
    assert Tournament.objects.get(pk=tournament_id).status == "cancelled"


def test_a_start_already_past_or_years_away_is_refused_and_makes_nothing():
    """A start in the past closed entries before anyone could enter: the sweep cancelled the new
    tournament within seconds, with nothing said to its organiser."""
    organiser = register()
    now = timezone.now()
    for starts_at in (now - dt.timedelta(minutes=5), now - dt.timedelta(days=365 * 126), now + dt.timedelta(days=400)):
        answer = organiser.post("/api/tournaments/", {"name": "x", "kind": "swiss", "rules": "toy_race",
                                                      "time_control": STEP, "starts_at": starts_at.isoformat()})
        body = answer.json()
        assert (answer.status_code, body["code"], list(body["fields"])) == (400, "invalid_input", ["starts_at"]), body
    assert not Tournament.objects.exists()
    assert _organise(organiser, starts_at=(now + dt.timedelta(days=300)).isoformat())


def test_entries_are_refused_with_codes():
    organiser, player = register(), register()
    tournament_id = _organise(organiser)
    assert player.post(f"/api/tournaments/{tournament_id}/entry/").status_code == 201
    again = player.post(f"/api/tournaments/{tournament_id}/entry/")
    assert again.status_code == 409 and again.json()["code"] == "already_entered"
    bots = player.post(f"/api/tournaments/{tournament_id}/bots/", {"bot": "random"})
    assert bots.status_code == 403 and bots.json()["code"] == "not_the_organiser"
    assert organiser.post(f"/api/tournaments/{tournament_id}/bots/", {"bot": "random"}).status_code == 201
    missing = player.post("/api/tournaments/999999/entry/")
    assert missing.status_code == 404 and missing.json()["code"] == "tournament_not_found"
    multi_rr = organiser.post("/api/tournaments/", {"name": "x", "kind": "round_robin", "rules": "toy_race",
                                                    "players": 3, "time_control": STEP,
                                                    "starts_at": (timezone.now() + dt.timedelta(hours=1)).isoformat()})
    assert multi_rr.status_code == 400 and multi_rr.json()["code"] == "invalid_input"
    _start_now(tournament_id)
    late = register().post(f"/api/tournaments/{tournament_id}/entry/")
    assert late.status_code == 409 and late.json()["code"] == "tournament_closed"


def _swiss_of_four_started(rounds):
    organiser = register()
    players = [register() for _ in range(4)]
    tournament_id = _organise(organiser, kind="swiss", rounds=rounds)
    for player in players:
        player.post(f"/api/tournaments/{tournament_id}/entry/")
    _start_now(tournament_id)
    return organiser, players, tournament_id


def test_an_entrant_who_withdraws_plays_no_further_round_and_keeps_its_points():
    organiser, players, tournament_id = _swiss_of_four_started(rounds=2)
    strength = [player.username for player in players]
    _finish_current_round(tournament_id, strength)  # round 2 begins at once
    leaver = players[0]  # the strongest, who won in round 1, leaves during round 2
    left = leaver.client.delete(f"/api/tournaments/{tournament_id}/entry/")
    assert left.status_code == 200, left.content
    _finish_current_round(tournament_id, strength)
    detail = organiser.get(f"/api/tournaments/{tournament_id}/").json()
    assert detail["status"] == "finished"
    row = next(row for row in detail["standings"] if row["name"] == leaver.username)
    assert row["withdrawn"] is True and row["points"] == 2  # round 2 was already under way: played out
    assert [e["withdrawn"] for e in detail["entrant_list"] if e["username"] == leaver.username] == [True]
    again = leaver.client.delete(f"/api/tournaments/{tournament_id}/entry/")
    assert again.status_code == 409 and again.json()["code"] == "tournament_closed"


def test_a_withdrawal_before_the_next_round_leaves_a_bye():
    organiser, players, tournament_id = _swiss_of_four_started(rounds=3)
    players[3].client.delete(f"/api/tournaments/{tournament_id}/entry/")  # during round 1
    _finish_current_round(tournament_id, [player.username for player in players])
    detail = organiser.get(f"/api/tournaments/{tournament_id}/").json()
    second = detail["round_list"][1]["tables"]
    assert sum(table["bye"] for table in second) == 1
    assert all(players[3].username not in table["seats"] for table in second)


def test_a_round_robin_withdrawal_keeps_the_schedule_and_forfeits_the_leavers_games():
    organiser = register()
    players = [register() for _ in range(5)]
    tournament_id = _organise(organiser)
    for player in players:
        player.post(f"/api/tournaments/{tournament_id}/entry/")
    _start_now(tournament_id)
    leaver = players[4]
    leaver.client.delete(f"/api/tournaments/{tournament_id}/entry/")  # during round 1
    strength = [player.username for player in players]
    for _ in range(5):
        _finish_current_round(tournament_id, strength)
    detail = organiser.get(f"/api/tournaments/{tournament_id}/").json()
    assert detail["status"] == "finished" and len(detail["round_list"]) == 5
    games = [frozenset(t["seats"]) for r in detail["round_list"] for t in r["tables"] if t["game"]]
    assert len(games) == len(set(games))  # no pair met twice
    stayed = {p.username for p in players[:4]}
    assert {pair for pair in games if pair <= stayed} == {frozenset((a, b)) for a in stayed for b in stayed if a < b}
    forfeits = [t for r in detail["round_list"] for t in r["tables"] if t["forfeit"]]
    played_by_leaver = sum(leaver.username in pair for pair in games)  # round 1's game, or its bye
    assert played_by_leaver <= 1 and len(forfeits) + played_by_leaver == 4  # its other games are forfeits
    assert all(t["points"] == [1.0] and leaver.username not in t["seats"] for t in forfeits)
    row = {r["name"]: r for r in detail["standings"]}
    assert sum(r["forfeits"] for r in row.values()) == len(forfeits) and row[leaver.username]["forfeits"] == 0


def test_a_bot_is_seeded_with_its_rating_in_the_pool():
    from competition.models import Entrant, Rating

    organiser = register()
    tournament_id = _organise(organiser)
    Rating.objects.create(player="bot:random:1", name="random (level 1)", is_bot=True, rules="toy_race",
                          time_class="step", system="glicko2", rating=1234.5, deviation=80, volatility=0.06,
                          mu=1234.5, sigma=80, last_played_at=timezone.now())
    assert organiser.post(f"/api/tournaments/{tournament_id}/bots/", {"bot": "random", "level": 1}).status_code == 201
    assert Entrant.objects.get(tournament_id=tournament_id, bot="random").seed_rating == 1234.5


@pytest.mark.parametrize("rules_id", ["terrafex", "terrain_vague", "space_junkyard", "scavenge"])
def test_a_resigner_ahead_on_the_board_loses_in_the_standings(rules_id, monkeypatch):
    from games import selectors as games_selectors

    real = games_selectors.finished_games

    def board_favours_the_resigner(**kwargs):
        games = real(**kwargs)
        for game in games:  # the board as Terrafex keeps it: the resigner (not a winner) ahead
            result = game["result"]
            if result.get("winners"):
                game["result"] = {**result, "scores": [8 if s in result["winners"] else 10 for s in range(2)]}
        return games

    monkeypatch.setattr(tournament_service.games_selectors, "finished_games", board_favours_the_resigner)
    organiser = register()
    players = [register() for _ in range(2)]
    tournament_id = _organise(organiser, rules=rules_id)
    for player in players:
        player.post(f"/api/tournaments/{tournament_id}/entry/")
    _start_now(tournament_id)
    _finish_current_round(tournament_id, [player.username for player in players])  # the second resigns
    detail = organiser.get(f"/api/tournaments/{tournament_id}/").json()
    assert detail["status"] == "finished"
    assert [(row["name"], row["points"], row["wins"]) for row in detail["standings"]] == [
        (players[0].username, 1.0, 1), (players[1].username, 0.0, 0)]


def test_starting_early_with_too_few_entrants_is_refused_and_changes_nothing():
    """Start now with one entrant cancelled the tournament for good, where waiting for its time
    lets others still enter."""
    organiser, player = register(), register()
    tournament_id = _organise(organiser, kind="swiss")
    player.post(f"/api/tournaments/{tournament_id}/entry/")
    answer = organiser.post(f"/api/tournaments/{tournament_id}/start/")
    assert answer.status_code == 400 and answer.json()["code"] == "invalid_input"
    assert "1 entered" in answer.json()["detail"]
    assert Tournament.objects.get(pk=tournament_id).status == "registering"
    late = register()
    assert late.post(f"/api/tournaments/{tournament_id}/entry/").status_code == 201
    started = organiser.post(f"/api/tournaments/{tournament_id}/start/")
    assert started.status_code == 200 and started.json()["status"] == "running"


def test_a_refusal_names_the_tournaments_state_in_the_readers_language():
    """"toernooi 3 is running": the state was written into the Dutch sentence as the database
    keeps it. The same for a game not yet analysable."""
    organiser, entrant = register(), register()
    tournament_id = _organise(organiser)
    for player in (organiser, entrant):
        assert player.post(f"/api/tournaments/{tournament_id}/entry/").status_code == 201
    _start_now(tournament_id)
    late = register().client.post(f"/api/tournaments/{tournament_id}/entry/", HTTP_ACCEPT_LANGUAGE="nl").json()
    assert late["code"] == "tournament_closed"
    assert late["detail"].startswith(f"toernooi {tournament_id} is bezig") and "running" not in late["detail"], late
    game_id = Table.objects.get(tournament_id=tournament_id).game_id
    early = organiser.client.post(f"/api/games/{game_id}/analysis/", HTTP_ACCEPT_LANGUAGE="nl").json()
    assert early["detail"].startswith(f"partij {game_id} is bezig") and "active" not in early["detail"], early


def test_a_late_entrant_joins_a_running_swiss_from_its_next_round():
    """A club's Swiss takes a member who comes late: entered while round 1 is played, paired from
    round 2, round 1 an absence without points (TRF's `Z`, as bbpPairings reads a late entry);
    no entry once the last round is paired, nor into a running round robin."""
    from competition import trf

    organiser, players, tournament_id = _swiss_of_four_started(rounds=2)
    late = register()
    answer = late.post(f"/api/tournaments/{tournament_id}/entry/")
    assert answer.status_code == 201, answer.content
    assert [e["username"] for e in answer.json()["entrant_list"]][-1] == late.username
    first = answer.json()["round_list"][0]["tables"]
    assert all(late.username not in t["seats"] for t in first)  # round 1 was paired before the entry
    _finish_current_round(tournament_id, [p.username for p in players])
    detail = organiser.get(f"/api/tournaments/{tournament_id}/").json()
    assert detail["current_round"] == 2
    second = detail["round_list"][1]["tables"]
    assert sum(late.username in t["seats"] for t in second) == 1 and len(second) == 3  # five: two games, a bye
    row = next(r for r in detail["standings"] if r["name"] == late.username)
    assert row["games"] + row["byes"] <= 1 and row["points"] <= 1
    too_late = register().post(f"/api/tournaments/{tournament_id}/entry/")  # round 2 of 2 is paired
    assert (too_late.status_code, too_late.json()["code"]) == (409, "tournament_closed")
    _finish_current_round(tournament_id, [p.username for p in players] + [late.username])
    exported = trf.loads(organiser.get(f"/api/tournaments/{tournament_id}/trf/").content.decode())
    line = next(p for p in exported.players if p.name == late.username)
    assert (line.games[0].opponent, line.games[0].result) == (None, "Z")


def test_the_organiser_takes_an_entrant_out_and_nobody_else_can():
    """A bot entered at the wrong level could not be taken out again, nor a member who stopped
    coming: now the organiser can, as the entrant's own withdrawal would (gone before the start,
    no further round once running); others are refused and nothing changes."""
    organiser, player, other = register(), register(), register()
    tournament_id = _organise(organiser, kind="swiss", rounds=3)
    for client in (player, other):
        assert client.post(f"/api/tournaments/{tournament_id}/entry/").status_code == 201
    added = organiser.post(f"/api/tournaments/{tournament_id}/bots/", {"bot": "random"}).json()
    bot = next(e for e in added["entrant_list"] if e["is_bot"])
    path = f"/api/tournaments/{tournament_id}/entrants/{bot['id']}/"

    refused = player.client.delete(path)
    assert (refused.status_code, refused.json()["code"]) == (403, "not_the_organiser")
    answer = organiser.client.delete(path)
    assert answer.status_code == 200 and [e["name"] for e in answer.json()["entrant_list"]] == [player.username,
                                                                                                 other.username]
    gone = organiser.client.delete(path)
    assert (gone.status_code, gone.json()["code"]) == (404, "entrant_not_found")
    huge = organiser.client.delete(f"/api/tournaments/{tournament_id}/entrants/{10 ** 30}/")  # past any id column
    assert (huge.status_code, huge.json()["code"]) == (404, "not_found")  # no route: tests/api/test_row_ids.py
    elsewhere = _organise(register(), kind="swiss")
    wrong = organiser.client.delete(f"/api/tournaments/{elsewhere}/entrants/{bot['id']}/")
    assert (wrong.status_code, wrong.json()["code"]) == (403, "not_the_organiser")

    third = register()
    assert third.post(f"/api/tournaments/{tournament_id}/entry/").status_code == 201
    _start_now(tournament_id)
    entrant = next(e for e in organiser.get(f"/api/tournaments/{tournament_id}/").json()["entrant_list"]
                   if e["username"] == other.username)
    answer = organiser.client.delete(f"/api/tournaments/{tournament_id}/entrants/{entrant['id']}/")
    assert answer.status_code == 200
    assert next(e for e in answer.json()["entrant_list"] if e["id"] == entrant["id"])["withdrawn"] is True
    again = organiser.client.delete(f"/api/tournaments/{tournament_id}/entrants/{entrant['id']}/")
    assert (again.status_code, again.json()["code"]) == (404, "entrant_not_found")
    _finish_current_round(tournament_id, [player.username, third.username, other.username])
    second = organiser.get(f"/api/tournaments/{tournament_id}/").json()["round_list"][1]["tables"]
    assert all(other.username not in t["seats"] for t in second)
