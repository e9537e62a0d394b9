"""Clocks through the API: time controls at creation, deadlines in the game resource, a late move
refused with `deadline_passed`, vacation, a stand-in's seat taken back, and bots-only games."""

from __future__ import annotations

import datetime as dt

import pytest

from games import time_controls, timeouts
from games.models import Deadline, Event, Game, Seat
from tests.api.conftest import register

pytestmark = pytest.mark.django_db


def _created(player, **body):
    response = player.post("/api/games/", {"rules": "scavenge", "players": 2, **body})
    assert response.status_code == 201, response.content
    return response.json()


def _active(control: dict, policy: str = "auto"):
    first, second = register(), register()
    game = _created(first, time_control=control, timeout_policy=policy)
    second.post(f"/api/games/{game['id']}/join/")
    return first.get(f"/api/games/{game['id']}/").json(), [first, second]


def test_the_game_resource_shows_the_time_control_and_each_deadline():
    game, seated = _active({"type": "correspondence", "days": 3})
    assert game["time_control"] == {"type": "correspondence", "days": 3, "pause_weekends": False}
    assert game["timeout_policy"] == "auto"
    [entry] = game["deadlines"]
    assert entry["seat"] == game["to_act"][0] and not entry["stopped"]
    assert entry["seconds_left"] == pytest.approx(3 * 86_400, abs=5)
    assert game["deadline"] == entry["due_at"]
    listed = seated[0].get("/api/games/", mine=1).json()["results"][0]
    assert listed["deadline"] == game["deadline"]
    defaulted = _created(register())  # no clock asked for: correspondence, 14 days a move
    assert defaulted["time_control"] == {"type": "correspondence", "days": 14, "pause_weekends": False}
    untimed = _created(register(), time_control={"type": "none"}, private=True)
    assert untimed["time_control"] is None and untimed["deadline"] is None and untimed["deadlines"] == []
    public = register().post("/api/games/", {"rules": "scavenge", "players": 2, "time_control": {"type": "none"}})
    assert public.status_code == 400 and public.json()["code"] == "invalid_input"


def test_bad_time_controls_and_policies_are_refused():
    player = register()
    for body in ({"time_control": {"type": "correspondence", "days": 4}}, {"time_control": {"type": "step"}},
                 {"timeout_policy": "resign"}, {"time_control": "blitz"}):
        response = player.post("/api/games/", {"rules": "scavenge", "players": 2, **body})
        assert response.status_code == 400 and response.json()["code"] == "invalid_input", body
    assert player.get("/api/games/", mine=1).json()["count"] == 0


def test_a_move_after_the_deadline_is_refused_and_nothing_is_stored():
    game, seated = _active({"type": "step", "seconds": 60})
    seat = game["to_act"][0]
    Deadline.objects.filter(game_id=game["id"]).update(due_at=time_controls.now() - dt.timedelta(seconds=1))
    moves = seated[seat].get(f"/api/games/{game['id']}/legal-moves/").json()["moves"]
    response = seated[seat].submit(game["id"], moves[0], game["seq"])
    assert response.status_code == 409 and response.json()["code"] == "deadline_passed"
    assert Event.objects.filter(game_id=game["id"]).count() == game["seq"]
    stale = seated[seat].submit(game["id"], moves[0], game["seq"] - 1)
    assert stale.json()["code"] == "stale_seq"  # the version is judged first


def test_vacation_api_stops_and_restarts_the_clock():
    game, seated = _active({"type": "bank"})
    owner = seated[game["to_act"][0]]
    info = owner.get("/api/accounts/me/vacation/").json()
    assert info["on_vacation"] is False and info["days_per_year"] == 30 and info["days_left"] == 30
    on = owner.post("/api/accounts/me/vacation/", {"on": True})
    assert on.status_code == 200 and on.json()["on_vacation"] and on.json()["ends_at"]
    stopped = owner.get(f"/api/games/{game['id']}/").json()
    assert stopped["deadlines"][0]["stopped"] and stopped["deadline"] is None
    off = owner.post("/api/accounts/me/vacation/", {"on": False}).json()
    assert off["on_vacation"] is False and off["days_used"] < 0.01
    assert owner.get(f"/api/games/{game['id']}/").json()["deadline"] is not None
    bad = owner.post("/api/accounts/me/vacation/", {"on": "maybe"})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_input"


def test_a_stand_in_shows_in_the_resource_and_the_owner_takes_the_seat_back():
    game, seated = _active({"type": "step", "seconds": 60}, policy="bot")
    seat = game["to_act"][0]
    Deadline.objects.filter(game_id=game["id"]).update(due_at=time_controls.now() - dt.timedelta(seconds=1))
    assert timeouts.timeout_apply(game_id=game["id"], seq=game["seq"], seat=seat).kind == "timeout"
    shown = seated[0].get(f"/api/games/{game['id']}/").json()
    assert shown["stand_ins"] == [{"seat": seat, "bot": "mcts"}]
    back = seated[seat].post(f"/api/games/{game['id']}/return/")
    assert back.status_code == 200 and back.json()["stand_ins"] == []
    assert register().post(f"/api/games/{game['id']}/return/").json()["code"] == "not_a_player"


def test_a_creator_may_only_watch_a_game_of_bots():
    spectator = register()
    game = _created(
        spectator, rules="terrafex", creator_plays=False,
        bots=[{"seat": 0, "bot": "random"}, {"seat": 1, "bot": "random"}],
    )
    assert game["status"] == "active" and game["your_seat"] is None
    assert [seat["bot"]["name"] for seat in game["seats"]] == ["random", "random"]
    assert not Seat.objects.filter(game_id=game["id"], user__isnull=False).exists()
    waiting = _created(spectator, creator_plays=False)
    assert waiting["status"] == "open" and waiting["seats"] == []
    assert spectator.post(f"/api/games/{waiting['id']}/bots/", {"bot": "random"}).status_code == 201
    refused = spectator.post("/api/games/", {"rules": "scavenge", "players": 2, "bots": [{"seat": 0, "bot": "random"}]})
    assert refused.status_code == 400  # seat 0 is the creator's unless creator_plays is false
    assert Game.objects.filter(created_by__username=spectator.username).count() == 2
