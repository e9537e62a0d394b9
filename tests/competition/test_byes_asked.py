"""Half-point byes an entrant asks for: a Swiss entrant who cannot play a round says so before it
is paired, sits it out for half a point (its own bye, not the pairing's), and the TRF writes it as
an arbiter does (`H`); every refusal has its code and changes nothing."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from competition import selectors, trf
from competition.models import Entrant, Tournament
from tests.api.conftest import register
from tests.competition.test_tournaments import STEP, _finish_current_round, _start_now

pytestmark = pytest.mark.django_db(transaction=True)


def _swiss(organiser, **more):
    body = {"name": "Club night", "kind": "swiss", "rules": "toy_race", "time_control": STEP, "rounds": 3,
            "starts_at": (timezone.now() + dt.timedelta(hours=1)).isoformat(), **more}
    answer = organiser.post("/api/tournaments/", body)
    assert answer.status_code == 201, answer.content
    return answer.json()["id"]


def _entered(tournament_id, count):
    players = [register() for _ in range(count)]
    for player in players:
        assert player.post(f"/api/tournaments/{tournament_id}/entry/").status_code == 201
    return players


def _entrant(detail, username):
    return next(e for e in detail["entrant_list"] if e["username"] == username)


def test_an_entrant_who_asked_sits_the_round_out_for_half_a_point_and_the_trf_writes_h():
    organiser = register()
    tournament_id = _swiss(organiser)
    players = _entered(tournament_id, 5)
    away = players[0]
    answer = away.post(f"/api/tournaments/{tournament_id}/byes/", {"round": 2})
    assert answer.status_code == 201, answer.content
    assert _entrant(answer.json(), away.username)["byes_asked"] == [2]
    assert answer.json()["half_point_byes"] == 1
    _start_now(tournament_id)
    strength = [player.username for player in players]
    _finish_current_round(tournament_id, strength)  # round 1: away plays (and wins: the strongest)

    detail = organiser.get(f"/api/tournaments/{tournament_id}/").json()
    assert detail["current_round"] == 2
    second = detail["round_list"][1]["tables"]
    games = [t for t in second if t["game"] is not None]
    assert all(away.username not in t["seats"] for t in games)
    assert len(games) == 2 and not any(t["bye"] and not t["asked_for"] for t in second)  # four left: no pairing bye
    (asked,) = [t for t in second if t["asked_for"]]
    assert asked["seats"] == [away.username] and asked["bye"] and asked["points"] == [0.5] and asked["game"] is None
    row = next(r for r in detail["standings"] if r["name"] == away.username)
    assert row["points"] == 1.5 and row["games"] == 1 and row["byes"] == 1

    _finish_current_round(tournament_id, strength)
    exported = trf.loads(organiser.get(f"/api/tournaments/{tournament_id}/trf/").content.decode())
    line = next(p for p in exported.players if p.name == away.username)
    assert (line.games[1].opponent, line.games[1].result) == (None, "H")
    assert line.points == 1.5 + sum(t["points"][t["seats"].index(away.username)]
                                    for r in organiser.get(f"/api/tournaments/{tournament_id}/").json()["round_list"][2:]
                                    for t in r["tables"] if away.username in t["seats"] and t["points"])


def test_a_bye_asked_for_does_not_use_up_the_pairings_bye():
    """The round sat out is recorded as not paired (TRF's `H`), so the pairing may still give the
    entrant its own bye later, as bbpPairings does (`test_trf`'s second case), and, in tables of
    three or four, it is no turn at sitting out."""
    organiser = register()
    tournament_id = _swiss(organiser, rounds=2)
    players = _entered(tournament_id, 3)
    last = players[2]  # the lowest pairing number (entered last, every rating 1500)
    assert last.post(f"/api/tournaments/{tournament_id}/byes/", {"round": 1}).status_code == 201
    _start_now(tournament_id)
    first = organiser.get(f"/api/tournaments/{tournament_id}/").json()["round_list"][0]["tables"]
    assert [t["seats"] for t in first] == [[players[0].username, players[1].username], [last.username]]
    assert [t["asked_for"] for t in first] == [False, True]
    tournament = Tournament.objects.get(pk=tournament_id)
    everyone = {e.pk: e for e in tournament.entrants.all()}
    record = selectors.tournament_records(tournament, everyone)[_pk(tournament_id, last)]
    assert record.byes == 0 and record.points == 0.5
    assert [(r.paired, r.played, r.opponent, r.points) for r in record.history] == [(False, False, None, 0.5)]


def _pk(tournament_id, client):
    return Entrant.objects.get(tournament_id=tournament_id, user__username=client.username).pk


def test_byes_are_refused_with_codes_and_nothing_changes(client):
    organiser = register()
    tournament_id = _swiss(organiser)
    player, other = _entered(tournament_id, 2)
    stranger = register()
    path = f"/api/tournaments/{tournament_id}/byes/"

    def refused(caller, body, status, code, method="post", url=path):
        answer = caller.post(url, body) if method == "post" else caller.client.delete(url)
        assert answer.status_code == status, answer.content
        assert answer.json()["code"] == code
        assert _asked(tournament_id) == before

    before = _asked(tournament_id)
    refused(stranger, {"round": 2}, 403, "not_entered")
    refused(client, {"round": 2}, 401, "not_authenticated")  # no account: Django's own client
    refused(player, {"round": 0}, 400, "invalid_input")
    refused(player, {"round": "two"}, 400, "invalid_input")
    refused(player, {"round": 4}, 400, "invalid_input")  # the Swiss has 3 rounds
    refused(player, {}, 400, "invalid_input")
    refused(player, None, 404, "bye_not_asked", method="delete", url=f"{path}2/")
    refused(player, None, 404, "bye_not_asked", method="delete", url=f"{path}{10 ** 30}/")
    refused(player, {"round": 10 ** 30}, 400, "invalid_input")
    refused(stranger, {"round": 2}, 404, "tournament_not_found", url="/api/tournaments/999999/byes/")

    assert player.post(path, {"round": 2}).status_code == 201
    assert player.post(path, {"round": 2}).status_code == 201  # asked again: the same, not a second bye
    before = _asked(tournament_id)
    assert before[player.username] == [2]
    refused(player, {"round": 3}, 409, "too_many_byes")  # one a tournament unless the organiser gives more
    in_dutch = player.post(path, {"round": 3}, **{"Accept-Language": "nl"}).json()
    assert in_dutch == {"code": "too_many_byes", "detail": "je hebt geen vrije ronde voor een half punt meer in "
                                                           f"toernooi {tournament_id} (de grens per deelnemer: 1)"}
    assert player.client.delete(f"{path}2/").status_code == 200  # taken back: the allowance is free again
    assert player.post(path, {"round": 3}).status_code == 201
    before = _asked(tournament_id)

    _start_now(tournament_id)
    refused(other, {"round": 1}, 409, "round_already_paired")
    before = _asked(tournament_id)
    Tournament.objects.filter(pk=tournament_id).update(current_round=3)
    refused(player, None, 409, "round_already_paired", method="delete", url=f"{path}3/")
    Tournament.objects.filter(pk=tournament_id).update(status="finished")
    refused(other, {"round": 3}, 409, "tournament_closed")

    robin = organiser.post("/api/tournaments/", {"name": "Robin", "kind": "round_robin", "rules": "toy_race",
                                                 "time_control": STEP, "starts_at": (timezone.now() + dt.timedelta(hours=1)).isoformat()}).json()["id"]
    assert player.post(f"/api/tournaments/{robin}/entry/").status_code == 201
    answer = player.post(f"/api/tournaments/{robin}/byes/", {"round": 2})
    assert (answer.status_code, answer.json()["code"]) == (409, "byes_swiss_only")


def test_an_organiser_sets_how_many_byes_an_entrant_may_ask_for():
    organiser = register()
    none_allowed = _swiss(organiser, half_point_byes=0)
    (player,) = _entered(none_allowed, 1)
    answer = player.post(f"/api/tournaments/{none_allowed}/byes/", {"round": 1})
    assert (answer.status_code, answer.json()["code"]) == (409, "too_many_byes")
    two = _swiss(organiser, half_point_byes=2)
    (player,) = _entered(two, 1)
    for number in (3, 1):
        assert player.post(f"/api/tournaments/{two}/byes/", {"round": number}).status_code == 201
    assert _asked(two)[player.username] == [1, 3]
    for wrong in (-1, 11, "many"):
        answer = organiser.post("/api/tournaments/", {"name": "x", "kind": "swiss", "rules": "toy_race",
                                                      "time_control": STEP, "half_point_byes": wrong,
                                                      "starts_at": (timezone.now() + dt.timedelta(hours=1)).isoformat()})
        assert (answer.status_code, answer.json()["code"]) == (400, "invalid_input"), wrong
    assert Tournament.objects.count() == 2


def _asked(tournament_id):
    return {e.user.username: e.byes_asked for e in Entrant.objects.filter(tournament_id=tournament_id).select_related("user")}


def test_a_token_just_revoked_or_without_the_play_scope_asks_for_no_bye():
    from tests.api.conftest import Player

    organiser = register()
    tournament_id = _swiss(organiser)
    (member,) = _entered(tournament_id, 1)
    path = f"/api/tournaments/{tournament_id}/byes/"
    reading = Player(member.username, member.post("/api/tokens/", {"scopes": ["read"]}).json()["token"])
    answer = reading.post(path, {"round": 2})
    assert answer.status_code == 403 and _asked(tournament_id)[member.username] == []
    made = member.post("/api/tokens/", {"scopes": ["play"]}).json()
    playing = Player(member.username, made["token"])
    assert member.client.delete(f"/api/tokens/{made['id']}/").status_code == 204
    answer = playing.post(path, {"round": 2})
    assert answer.status_code == 401 and _asked(tournament_id)[member.username] == []


def test_a_bye_asked_for_a_round_the_start_does_not_plan_is_dropped_and_given_back():
    """A Swiss whose rounds are left to its field's size has no last round until it starts: a bye
    asked before then for a round past the number the start fixes is never played, so the start
    drops it and the entrant may ask for another in a round that is played."""
    organiser = register()
    tournament_id = _swiss(organiser, rounds=None)
    players = _entered(tournament_id, 4)
    hopeful = players[0]
    assert hopeful.post(f"/api/tournaments/{tournament_id}/byes/", {"round": 9}).status_code == 201
    _start_now(tournament_id)

    detail = organiser.get(f"/api/tournaments/{tournament_id}/").json()
    assert detail["rounds"] < 9
    assert _entrant(detail, hopeful.username)["byes_asked"] == []
    answer = hopeful.post(f"/api/tournaments/{tournament_id}/byes/", {"round": detail["rounds"]})
    assert answer.status_code == 201, answer.content
    assert _entrant(answer.json(), hopeful.username)["byes_asked"] == [detail["rounds"]]
