"""An id in a path is a row's id: one the id column cannot hold finds nothing, a JSON 404 on every
route that takes one, never a 500 from the driver; the schema says which numbers are ids."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apikit.routes import LARGEST_ID
from tests.api.conftest import register

pytestmark = pytest.mark.django_db

TOO_LARGE = (LARGEST_ID + 1, 10**22)


def _id_routes(schema: dict) -> list[tuple[str, str, list[str]]]:
    """Every operation of the schema whose path takes a row id: its method, path and id names."""
    routes = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            ids = [p["name"] for p in operation.get("parameters", ())
                   if p["in"] == "path" and p["name"].endswith("id") and p["schema"].get("type") == "integer"]
            if ids and method in ("get", "post", "patch", "delete"):
                routes.append((method, path, ids))
    return routes


@pytest.mark.parametrize("number", TOO_LARGE)
def test_an_id_beyond_the_column_is_a_json_404_on_every_route_that_takes_one(number):
    player = register()
    schema = player.get("/api/schema/", format="json").json()
    routes = _id_routes(schema)
    assert len(routes) > 40, routes
    for method, path, ids in routes:
        url = path.replace("{round_number}", "1")
        for name in ids:
            url = url.replace("{" + name + "}", str(number))
        answer = getattr(player.client, method)(url, {}, format="json")
        assert answer.status_code == 404, (method, url, answer.status_code, answer.content[:200])
        assert answer.json()["code"] == "not_found", (method, url)


def test_the_largest_id_is_still_looked_for_and_found_missing():
    answer = register().get(f"/api/games/{LARGEST_ID}/")
    assert (answer.status_code, answer.json()["code"]) == (404, "game_not_found")


def test_the_schema_bounds_a_path_id_to_the_column(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    parameters = schema["paths"]["/api/games/{game_id}/"]["get"]["parameters"]
    game_id = next(p for p in parameters if p["name"] == "game_id")
    assert game_id["schema"] == {"type": "integer", "minimum": 0, "maximum": LARGEST_ID}


def test_a_game_page_for_an_id_beyond_the_column_is_not_found(client):
    assert reverse("game-detail", kwargs={"game_id": 7}) == "/api/games/7/"
    assert client.get(f"/games/{LARGEST_ID + 1}/").status_code == 404
