"""Each game's page and move schema (`docs/games/`, `GET /api/rules/{id}/`): every kind of move
the engine lists in play is in the page's examples, and every legal move fits the schema."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import jsonschema
import pytest
from django.conf import settings

import rules

pytestmark = pytest.mark.django_db

DOCS = Path(settings.BASE_DIR) / "docs" / "games"
SHIPPED = ["scavenge", "space_junkyard", "terrafex", "terrain_vague"]


def _moves_in_play(game, seed: int, players: int, steps: int = 400) -> dict[str, dict]:
    """Legal moves met in a random game with seeds of our own (not the page's), each once."""
    rnd, found = random.Random(seed), {}
    state = game.setup(players, {}, f"check-{seed}")
    for _ in range(steps):
        if game.outcome(state) is not None:
            break
        for seat in game.to_act(state):
            found.update((json.dumps(move, sort_keys=True), move) for move in game.legal_moves(state, seat))
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rnd.choice(game.legal_moves(state, seat)))
    return found


@pytest.mark.parametrize("rules_id", SHIPPED)
def test_every_kind_of_move_met_in_play_is_in_the_page_and_fits_the_schema(rules_id):
    game = rules.get(rules_id)
    page = (DOCS / f"{rules_id}.md").read_text()
    examples = page.split("## Every kind of move", 1)[1].split("## The view", 1)[0]
    documented = set(re.findall(r"^- `([a-z_]+)`: `(\{.*\})` — `(.+)`$", examples, re.MULTILINE))
    kinds = {kind for kind, _, _ in documented}
    schema = jsonschema.Draft202012Validator(json.loads((DOCS / f"{rules_id}.moves.json").read_text()))
    for kind, as_json, notation in documented:
        assert json.loads(as_json)["type"] == kind and notation
    for players in (game.min_players, game.max_players):
        for move in _moves_in_play(game, 99, players).values():
            assert move["type"] in kinds, f"{move['type']} is not in docs/games/{rules_id}.md"
            schema.validate(move)
    assert not any(line for line in page.splitlines() if "RULINGS.md" in line and "copied" in line)


def test_the_api_serves_a_games_page_and_move_schema(client):
    response = client.get("/api/rules/terrafex/")
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == "terrafex" and body["doc"].startswith("# Terrafex")
    assert {shape["title"] for shape in body["move_schema"]["oneOf"]} >= {"forest", "mountain", "fire", "glacier"}
    missing = client.get("/api/rules/chess/")
    assert missing.status_code == 404 and missing.json()["code"] == "rules_not_found"


def test_a_game_kept_outside_the_repository_gets_a_schema_made_on_demand(client):
    body = client.get("/api/rules/toy_race/").json()
    assert body["doc"] is None and body["move_schema"]["oneOf"]
