"""Every game in the catalogue, at its fewest and most players, played to its end through the REST
API alone by as many clients as seats, each choosing random moves from its own legal-moves list.
The API's final state must be the rules' own fold of the same moves from the published seed."""

from __future__ import annotations

import random

import pytest

import rules
from tests.api.conftest import Player, play_to_end, start_game

pytestmark = pytest.mark.django_db

CASES = [
    pytest.param(game.id, players, id=f"{game.id}-{players}p")
    for game in rules.catalog().values()
    for players in sorted({game.min_players, game.max_players})
]

# Seeds are reproducible (tests/conftest.py), and so are the random clients' choices: these chooser
# seeds keep every game a few hundred moves long, ending the way its rules mean it to end, where a
# random Scavenge walk can take thousands (chooser 1 took 1,107 and 862 moves at 2 and 4 players;
# 31 takes 404 and 183, the good stuff brought home all the same). A shorter game proves the same.
CHOOSERS = {"scavenge": 31}


@pytest.mark.parametrize("rules_id, players", CASES)
def test_a_complete_game_through_the_api(rules_id: str, players: int):
    game_id, seated = start_game(rules_id, players)
    final = play_to_end(game_id, seated, random.Random(f"{rules_id}:{players}:{CHOOSERS.get(rules_id, 1)}"))
    assert final["status"] == "finished" and final["to_act"] == [] and final["seed"]
    assert set(final["result"]["winners"]) <= set(range(players))
    _check_replay_from_the_published_log(rules_id, final, seated[0])
    _check_the_log_reads_in_words(final, seated)


def _check_the_log_reads_in_words(final: dict, seated: list[Player]) -> None:
    """Every move of the log in the rules' notation, as `describe_move` wrote it when listed."""
    log = seated[0].get(f"/api/games/{final['id']}/events/", notation="true").json()["events"]
    moves = [event for event in log if event["kind"] == "move"]
    assert moves and all(event["text"] and not event["text"].startswith("move ") for event in moves)
    # A page asks for the new events only: the same texts, one event at a time, as all at once.
    for event in log[-12:]:
        alone = seated[0].get(f"/api/games/{final['id']}/events/", notation="true", after=event["seq"] - 1).json()
        assert alone["events"][0] == event


def _check_replay_from_the_published_log(rules_id: str, final: dict, client: Player) -> None:
    """Once a game ends its log and seed are public: anyone can replay it and get the same end."""
    game = rules.get(rules_id)
    log = client.get(f"/api/games/{final['id']}/events/").json()["events"]
    created = log[0]["payload"]
    state = game.setup(created["players"], created["options"], final["seed"])
    for event in log[1:]:
        if "move" in event["payload"]:
            state = game.apply(state, event["seat"], event["payload"]["move"])
    assert game.outcome(state).as_dict() == final["result"]
    assert game.view(state, 0) == client.get(f"/api/games/{final['id']}/state/").json()["view"]
