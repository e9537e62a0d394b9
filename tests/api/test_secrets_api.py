"""A seat's secret never reaches another seat through the API.

Non-interference, tested as a counterfactual: two Terrain Vague games with the same seed and the
same moves reach the same secret wrestling step; seat A then chooses differently in each. Until
the duel resolves, everything seat B can read (the game, its view, the log, the state at every
event, its legal moves) must be identical in both games, but for the commitment hashes (which
depend on the choice, and are published by design) and the hashes chained over them."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from accounts import services as account_services
from games import services, store
from games.models import Game
from tests.api.conftest import Player

pytestmark = pytest.mark.django_db

# Ids, digests and the wall-clock times of two games made one after the other (their deadlines too).
UNCOMPARED = frozenset({
    "id", "commitment", "hash", "prev_hash", "private_digest", "created_at", "updated_at", "due_at", "deadline",
    "seconds_left",
})


def _masked(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: "*" if k in UNCOMPARED else _masked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return value


def _to_the_duel(users: list) -> Game:
    """A game played by random legal moves (the same every time) up to a simultaneous step."""
    game = services.game_create(creator=users[0], rules_id="terrain_vague", players=2, options={})
    services.game_join(game_id=game.pk, user=users[1])
    game_rules, rnd = store.rules_of(game), random.Random(0)
    while True:
        game.refresh_from_db()
        assert game.status == "active", "this seed must reach a duel"
        if len(game.to_act) == 2:
            return game
        seat = rnd.choice(game.to_act)
        move = rnd.choice(game_rules.legal_moves(store.state_at(game), seat))
        services.move_submit(game_id=game.pk, user=users[seat], move=move, expected_seq=game.seq)


def _everything_seen(player: Player, game_id: int, seq: int) -> dict:
    path = f"/api/games/{game_id}"
    return _masked({
        "game": player.get(f"{path}/").json(),
        "events": player.get(f"{path}/events/").json(),
        "states": [player.get(f"{path}/state/", at=n).json() for n in range(1, seq + 1)],
        "legal": player.get(f"{path}/legal-moves/").json(),
    })


def test_a_secret_choice_changes_nothing_another_seat_can_read(monkeypatch):
    monkeypatch.setattr(services.lobby, "new_seed", lambda: "same-seed-for-both-games")
    users = [get_user_model().objects.create_user(f"w{n}", password="pw-long-enough") for n in range(2)]
    tokens = [account_services.token_obtain(username=u.username, password="pw-long-enough").key for u in users]
    players = [Player(u.username, t) for u, t in zip(users, tokens)]

    first, second = _to_the_duel(users), _to_the_duel(users)
    chooser, watcher = first.to_act
    choices = [m for m in players[chooser].get(f"/api/games/{first.pk}/legal-moves/").json()["moves"]]
    assert len(choices) > 1
    for game, choice in ((first, choices[0]), (second, choices[-1])):
        assert players[chooser].submit(game.pk, choice, game.seq).status_code == 201

    seen = [_everything_seen(players[watcher], game.pk, game.seq + 1) for game in (first, second)]
    assert seen[0] == seen[1]
    spectator = Player("nobody", account_services.account_create(username="nobody", password="pw-long-enough")[1].key)
    assert _everything_seen(spectator, first.pk, first.seq + 1)["events"] == _everything_seen(
        spectator, second.pk, second.seq + 1
    )["events"]
    # The chooser sees its own choice, so for it the two games differ: the test can tell them apart.
    mine = [_everything_seen(players[chooser], game.pk, game.seq + 1) for game in (first, second)]
    assert mine[0] != mine[1]


def test_a_secret_choice_landing_while_the_other_seat_chooses_does_not_refuse_its_move():
    """Both seats read their moves at the same position; the first choice moves the game on, and
    the second is played all the same (its moves are the ones it chose from). A move whose
    position did change is still refused as stale."""
    users = [get_user_model().objects.create_user(f"s{n}", password="pw-long-enough") for n in range(2)]
    players = [Player(u.username, account_services.token_obtain(username=u.username, password="pw-long-enough").key) for u in users]
    game = _to_the_duel(users)
    first, second = game.to_act
    listed = {seat: players[seat].get(f"/api/games/{game.pk}/legal-moves/").json() for seat in (first, second)}
    assert players[first].submit(game.pk, listed[first]["moves"][0], listed[first]["seq"]).status_code == 201
    late = players[second].submit(game.pk, listed[second]["moves"][0], listed[second]["seq"])
    assert late.status_code == 201, late.json()
    game.refresh_from_db()
    seat = game.to_act[0]
    stale = players[seat].submit(game.pk, {"type": "end_step"}, listed[second]["seq"])
    assert stale.status_code == 409 and stale.json()["code"] == "stale_seq"
