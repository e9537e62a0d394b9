"""Opening a stream counts against the caller's rate limit, as any request of the API does: the
account's with a token that works, else the address's (no token, or one that does not work), and
the answer, stream or refusal, says where the caller stands (issue 53, item 6)."""

from __future__ import annotations

import json

import pytest
from django.test import AsyncClient

from tests.api.conftest import register, start_game
from tests.api.test_rate_limit_headers import _address, _limits, limits_told
from tests.streams.test_game_stream import _run

pytestmark = [pytest.mark.django_db(transaction=True)]


def test_each_stream_tells_its_callers_limit_and_a_guessed_token_counts_against_the_address(settings):
    _limits(settings, account=1000, address=1000)
    game_id, (alice, _) = start_game("toy_race", 2)
    paths = ["/api/stream/", f"/api/games/{game_id}/stream/", f"/api/games/{game_id}/chat/stream/"]

    async def scenario():
        client = AsyncClient(REMOTE_ADDR=_address())
        signed_in = [await client.head(path, headers={"Authorization": f"Token {alice.token}"}) for path in paths]
        guessed = [await client.head(path, headers={"Authorization": "Bearer sy_nonsense"}) for path in paths]
        anonymous = [await client.head(path) for path in paths[1:]]
        return signed_in, guessed, anonymous

    signed_in, guessed, anonymous = _run(scenario)
    assert [answer.status_code for answer in signed_in] == [200] * 3
    assert all(limits_told(answer) == ["account"] for answer in signed_in)
    assert [answer.status_code for answer in guessed] == [401] * 3
    assert all(limits_told(answer) == ["address"] for answer in guessed)
    assert [answer.status_code for answer in anonymous] == [200] * 2
    assert all(limits_told(answer) == ["address"] for answer in anonymous)


def test_an_account_opening_streams_past_its_limit_gets_429_with_retry_after(settings):
    _limits(settings, account=2)
    player = register()

    async def scenario():
        client = AsyncClient()
        return [await client.get("/api/stream/", headers={"Authorization": f"Bearer {player.token}"}) for _ in range(3)]

    answers = _run(scenario)
    assert [answer.status_code for answer in answers] == [200, 200, 429]
    refused = answers[-1]
    assert json.loads(refused.content)["code"] == "rate_limited"
    assert refused["RateLimit"] == f'"account";r=0;t={refused["Retry-After"]}'
