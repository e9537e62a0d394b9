"""Who starts at a tournament's tables of two. The pairing gives out the first seat as a chess
pairing gives out White, balancing it round by round; a game whose book draws who starts is
told to let seat 0 start (`rules.options.FIRST_PLAYER`), or the balancing would decide nothing."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from competition.models import Tournament
from tests.api.conftest import register
from tests.competition.test_tournaments import STEP, _finish_current_round, _start_now

pytestmark = pytest.mark.django_db(transaction=True)


def _body(**more):
    return {"name": "Terrafex night", "kind": "swiss", "rules": "terrafex", "time_control": STEP, "rounds": 2,
            "starts_at": (timezone.now() + dt.timedelta(hours=1)).isoformat(), **more}


def _tables_started(organiser, tournament_id, round_number):
    detail = organiser.get(f"/api/tournaments/{tournament_id}/").json()
    return [table for table in detail["round_list"][round_number - 1]["tables"] if table["game"] is not None]


def test_the_pairings_first_seat_takes_the_first_turn_in_every_game():
    organiser = register()
    answer = organiser.post("/api/tournaments/", _body())
    assert answer.status_code == 201, answer.content
    tournament_id = answer.json()["id"]
    assert answer.json()["options"]["first_player"] == "seat_0"
    players = [register() for _ in range(6)]
    for player in players:
        assert player.post(f"/api/tournaments/{tournament_id}/entry/").status_code == 201
    _start_now(tournament_id)
    strength = [player.username for player in players]
    seen = []
    for round_number in (1, 2):
        for table in _tables_started(organiser, tournament_id, round_number):
            game = organiser.get(f"/api/games/{table['game']}/").json()
            assert game["options"]["first_player"] == "seat_0"
            assert game["to_act"] == [0], (round_number, table)
            assert [seat["username"] for seat in game["seats"]] == table["seats"]
            seen.append(table["seats"][0])
        if round_number == 1:
            _finish_current_round(tournament_id, strength)
    assert len(seen) == 6 and len(set(seen)) > 3  # the first seat goes round, not always to the same


def test_asking_a_tournament_of_two_for_the_draw_is_refused_and_makes_nothing():
    organiser = register()
    answer = organiser.post("/api/tournaments/", _body(options={"first_player": "drawn"}), format="json")
    assert answer.status_code == 400
    assert answer["Content-Type"].startswith("application/json")
    assert answer.json()["code"] == "invalid_option" and answer.json()["option"] == "first_player"
    assert not Tournament.objects.exists()


def test_tables_of_three_keep_the_books_draw():
    organiser = register()
    answer = organiser.post("/api/tournaments/", _body(rules="scavenge", players=3), format="json")
    assert answer.status_code == 201, answer.content
    assert answer.json()["options"]["first_player"] == "drawn"


def test_the_upgrade_lets_seat_0_start_in_tournaments_of_two_still_to_be_played():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    def apps_at(targets):
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(targets)
        return MigrationExecutor(connection).loader.project_state(targets).apps

    leaves = [node for node in MigrationExecutor(connection).loader.graph.leaf_nodes() if node[0] == "competition"]
    old = apps_at([("competition", "0003_half_point_byes")])
    organiser = old.get_model("auth", "User").objects.create(username="arbiter")
    made = {}
    for name, rules_id, players, status in (("running", "terrafex", 2, "running"), ("open", "scavenge", 2, "registering"),
                                            ("played", "terrafex", 2, "finished"), ("three", "scavenge", 3, "running"),
                                            ("fixed", "space_junkyard", 2, "running")):
        made[name] = old.get_model("competition", "Tournament").objects.create(
            name=name, kind="swiss", rules=rules_id, players=players, options={}, time_control=STEP, rounds=3,
            status=status, starts_at=timezone.now(), created_by=organiser).pk

    new = apps_at([("competition", "0004_first_seat_starts")])
    options = dict(new.get_model("competition", "Tournament").objects.values_list("name", "options"))
    assert options == {"running": {"first_player": "seat_0"}, "open": {"first_player": "seat_0"},
                       "played": {}, "three": {}, "fixed": {}}
    apps_at(leaves)
