"""Rate limits: password guessing slows down per username and per address; every account and
address has a ceiling; a refusal says 429 `rate_limited` and when to come back."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import register

pytestmark = pytest.mark.django_db


def _address() -> str:
    """A client address no earlier run has used: the counts live in a shared cache."""
    value = uuid.uuid4().int
    return f"10.{value % 250}.{value // 250 % 250}.{value // 62500 % 250 + 1}"


def _login(username: str, password: str, address: str):
    return APIClient(REMOTE_ADDR=address).post(
        "/api/accounts/token/", {"username": username, "password": password}, format="json"
    )


def _limits(settings, **rates):
    settings.SCRAPYARD_RATE_LIMITS = {**settings.SCRAPYARD_RATE_LIMITS, **rates}


def test_guessing_one_username_is_limited_from_any_number_of_addresses(settings):
    _limits(settings, login=10, login_address=1000)
    player = register(f"victim{uuid.uuid4().hex[:10]}")
    answers = [_login(player.username, f"wrong{n}", _address()) for n in range(11)]
    assert [a.status_code for a in answers[:10]] == [400] * 10
    assert answers[10].status_code == 429
    assert answers[10].json()["code"] == "rate_limited"
    assert int(answers[10]["Retry-After"]) > 0
    # The right password is refused too until the window passes: the limit is on guessing.
    assert _login(player.username, "correct horse battery", _address()).status_code == 429


def test_one_address_trying_many_usernames_is_limited(settings):
    _limits(settings, login=1000, login_address=30)
    address = _address()
    codes = [_login(f"nobody{uuid.uuid4().hex[:8]}", "x", address).status_code for _ in range(31)]
    assert codes[:30] == [400] * 30 and codes[30] == 429
    assert _login(f"nobody{uuid.uuid4().hex[:8]}", "x", _address()).status_code == 400


def test_an_account_has_a_ceiling_wherever_it_calls_from(settings):
    _limits(settings, account=5)
    player = register()
    codes = [player.get("/api/games/").status_code for _ in range(6)]
    assert codes == [200] * 5 + [429]
    assert register().get("/api/games/").status_code == 200


def test_an_address_without_an_account_has_a_ceiling(settings):
    _limits(settings, address=3)
    client = APIClient(REMOTE_ADDR=_address())
    codes = [client.get("/api/rules/").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]


def test_x_forwarded_for_does_not_choose_the_address_unless_proxies_are_declared(settings):
    _limits(settings, address=2)
    address = _address()
    codes = [APIClient(REMOTE_ADDR=address).get("/api/rules/", HTTP_X_FORWARDED_FOR=_address()).status_code
             for _ in range(3)]
    assert codes == [200, 200, 429]


@pytest.mark.parametrize(
    "username, password, says",
    [("marguerite", "marguerite1", "too similar"), ("someone", "password123", "too common"),
     ("someone2", "48151623", "entirely numeric")],
)
def test_weak_passwords_are_refused_at_sign_up(username, password, says):
    response = APIClient(REMOTE_ADDR=_address()).post(
        "/api/accounts/", {"username": username, "password": password}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_input"
    assert says in response.json()["detail"]


def test_the_window_slides_a_full_minute_is_not_forgiven_at_the_turn_of_the_clock(settings, monkeypatch):
    from project import throttles

    _limits(settings, account=5)
    player = register()
    clock = {"now": 1_800_000_000.0 + 59.5}  # (a whole number of minutes) half a second before a minute turns
    monkeypatch.setattr(throttles._PerMinute, "timer", lambda self: clock["now"])
    assert [player.get("/api/games/").status_code for _ in range(5)] == [200] * 5
    clock["now"] += 1  # the next fixed minute: its counter is empty, the last one still weighs
    refused = player.get("/api/games/")
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 120
    clock["now"] += 60  # a whole minute on: the old requests no longer count
    assert player.get("/api/games/").status_code == 200


def test_requests_counted_ahead_but_never_made_do_not_weigh_on_the_next_minute(settings, monkeypatch):
    """A process counts requests ahead in the minute's counter (on Redis) and lets them through
    without asking. Those it has not let through when the minute turns were never made: they go
    back, or the next minute would refuse a client below its limit (a flaky login test found it,
    when its 31 requests straddled a minute)."""
    from project import throttles

    _limits(settings, account=30)
    player = register()
    clock = {"now": 1_800_000_000.0 + 59.9}  # a tenth of a second before a minute turns
    monkeypatch.setattr(throttles._PerMinute, "timer", lambda self: clock["now"])
    codes = [player.get("/api/games/").status_code]  # far from the limit: a few counted at once
    clock["now"] += 0.2  # the next minute, at its start: the last one weighs almost whole
    codes += [player.get("/api/games/").status_code for _ in range(30)]
    assert codes == [200] * 30 + [429]


def test_a_thread_still_on_the_last_minute_does_not_undo_the_turn_of_the_minute():
    """Threads read the clock before they take the lock: one that read it just before the minute
    turned comes after one that read it just after. It must not turn the process back to the
    last minute (that forgot the requests to give back, the defect above, and this minute's
    allowances); what it counted ahead there is never made either."""
    from project import throttles

    allowances = throttles._Allowances()
    allowances.add("k:100", 100, 3)  # counted ahead in minute 100
    assert allowances.take("k:100", 100)  # one of them made
    allowances.add("k:101", 101, 4)  # minute 101: two of minute 100's were never made
    allowances.add("k:100", 100, 1)  # a thread that read the clock before the turn counted one more
    assert not allowances.take("k:100", 100)  # it asks Redis, as any request not held does
    assert allowances.take("k:101", 101)  # this minute's are still held
    assert allowances.give_back("k:100") == 3 and allowances.give_back("k:100") == 0


# --- Django's own password forms (issue 30, point 7) -----------------------------------------


def _form_login(path: str, username: str, password: str, address: str):
    from django.test import Client

    return Client(REMOTE_ADDR=address).post(path, {"username": username, "password": password})


@pytest.mark.parametrize("path", ["/login/", "/admin/login/"])
def test_guessing_a_password_on_a_login_form_is_limited_like_the_api(settings, django_user_model, path):
    _limits(settings, login=10, login_address=1000)
    name = f"victim{uuid.uuid4().hex[:10]}"
    django_user_model.objects.create_user(name, password="correct horse battery", is_staff=True)
    answers = [_form_login(path, name, f"wrong{n}", _address()) for n in range(10)]
    assert [a.status_code for a in answers] == [200] * 10  # the form again, with its error
    refused = _form_login(path, name, "correct horse battery", _address())
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "_auth_user_id" not in refused.client.session  # not signed in


@pytest.mark.parametrize("path", ["/login/", "/admin/login/"])
def test_one_address_trying_many_usernames_on_a_login_form_is_limited(settings, path):
    _limits(settings, login=1000, login_address=30)
    address = _address()
    codes = [_form_login(path, f"nobody{uuid.uuid4().hex[:8]}", "x", address).status_code for _ in range(31)]
    assert codes[:30] == [200] * 30 and codes[30] == 429


def test_guesses_on_the_api_and_the_login_form_add_up(settings):
    _limits(settings, login=10, login_address=1000)
    player = register(f"victim{uuid.uuid4().hex[:10]}")
    for n in range(5):
        _login(player.username, f"wrong{n}", _address())
        _form_login("/login/", player.username, f"wrong{n}x", _address())
    assert _form_login("/login/", player.username, "whatever", _address()).status_code == 429
    assert _login(player.username, "whatever", _address()).status_code == 429


def test_signing_up_on_the_web_is_limited_per_address(settings):
    _limits(settings, login=1000, login_address=3)
    address = _address()
    codes = [_form_login("/signup/", f"new{uuid.uuid4().hex[:8]}", "x", address).status_code for _ in range(4)]
    assert codes[3] == 429 and 429 not in codes[:3]


# --- counted ahead: most requests take no round trip (issue 35) -------------------------------


NOW = 1_800_000_000.0 + 10  # ten seconds into a minute: the test never sees a minute turn


def _counter(player_id: int, throttles) -> int:
    from django.core.cache import cache

    window = int(NOW // 60)
    return int(cache.get(f"throttle_account_{player_id}:{window}") or 0)


@pytest.mark.redis
def test_far_from_its_limit_a_process_counts_requests_ahead_and_asks_redis_once_for_them(settings, monkeypatch):
    from django.contrib.auth import get_user_model

    from project import throttles

    monkeypatch.setattr(throttles._PerMinute, "timer", lambda self: NOW)
    _limits(settings, account=1200)
    player = register()
    player_id = get_user_model().objects.get(username=player.username).pk
    player.get("/api/games/")
    ahead = _counter(player_id, throttles)
    assert ahead == throttles.AHEAD  # counted in Redis for the whole batch at once
    for _ in range(ahead - 1):
        assert player.get("/api/games/").status_code == 200
    assert _counter(player_id, throttles) == ahead  # the batch spent without asking Redis
    player.get("/api/games/")
    assert _counter(player_id, throttles) == 2 * ahead


@pytest.mark.redis
def test_processes_counting_ahead_together_stay_under_the_one_limit(settings, monkeypatch):
    """Two processes (two allowances, one Redis) share an account's limit: never more than the
    limit between them, and no request refused while the limit has room but for what the other
    process holds counted ahead."""
    from project import throttles

    monkeypatch.setattr(throttles._PerMinute, "timer", lambda self: NOW)
    _limits(settings, account=300)
    player = register()
    processes = [throttles._Allowances(), throttles._Allowances()]
    codes = []
    for number in range(400):
        monkeypatch.setattr(throttles, "_allowances", processes[number % 2])
        codes.append(player.get("/api/games/").status_code)
    served = codes.count(200)
    assert throttles.AHEAD < 300 - throttles.AHEAD
    assert 300 - throttles.AHEAD <= served <= 300
    assert set(codes[served + throttles.AHEAD:]) == {429}


# --- where the caller stands: RateLimit and RateLimit-Policy (issue 53) ------------------------


def test_every_counted_answer_says_where_the_caller_stands(settings):
    _limits(settings, account=5)
    player = register()
    answers = [player.get("/api/games/") for _ in range(6)]
    assert [a["RateLimit-Policy"] for a in answers] == ['"account";q=5;w=60'] * 6
    left = [int(a["RateLimit"].split(";r=")[1].split(";")[0]) for a in answers]
    assert left == [4, 3, 2, 1, 0, 0]
    assert answers[-1].status_code == 429
    assert answers[-1]["RateLimit"].endswith(f';t={answers[-1]["Retry-After"]}')
    assert 0 < int(answers[0]["RateLimit"].rsplit(";t=", 1)[1]) <= 60


def test_a_stranger_and_a_password_attempt_see_their_limits(settings):
    _limits(settings, address=600, login=10, login_address=30)
    anonymous = APIClient(REMOTE_ADDR=_address()).get("/api/rules/")
    assert anonymous["RateLimit-Policy"] == '"address";q=600;w=60' and anonymous["RateLimit"].startswith('"address";r=599;t=')
    attempt = _login(f"nobody{uuid.uuid4().hex[:8]}", "x", _address())
    assert attempt["RateLimit-Policy"] == '"login_address";q=30;w=60, "login";q=10;w=60'
    assert attempt["RateLimit"].startswith('"login_address";r=29;t=')


def test_the_headers_are_in_the_schema(client):
    document = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    responses = document["paths"]["/api/games/"]["get"]["responses"]
    for status in ("200", "429"):
        assert {"RateLimit", "RateLimit-Policy"} <= set(responses[status]["headers"])


def test_a_move_answer_carries_them_too(settings):
    from tests.api.conftest import start_game

    _limits(settings, account=1200)
    game_id, seated = start_game("toy_race", 2)
    game = seated[0].get(f"/api/games/{game_id}/").json()
    mover = seated[game["to_act"][0]]
    listed = mover.get(f"/api/games/{game_id}/legal-moves/").json()
    answer = mover.submit(game_id, listed["moves"][0], listed["seq"])
    assert answer.status_code == 201, answer.content
    assert answer["RateLimit-Policy"] == '"account";q=1200;w=60' and answer["RateLimit"].startswith('"account";r=')


def test_a_refused_login_form_says_so_in_the_readers_language(settings):
    from django.test import Client

    _limits(settings, login_address=1)
    address = _address()
    Client(REMOTE_ADDR=address).post("/login/", {"username": "x", "password": "y"})
    refused = Client(REMOTE_ADDR=address, HTTP_ACCEPT_LANGUAGE="nl").post("/login/", {"username": "x", "password": "y"})
    assert refused.status_code == 429
    assert "Te veel pogingen: wacht" in refused.content.decode()
