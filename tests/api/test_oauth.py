"""OAuth 2 for third-party apps (accounts.oauth), end to end with a real HTTP client against the live
server: a player registers an app, signs in and approves it on the consent page, the app exchanges
the code with its PKCE verifier and calls the API with `Authorization: Bearer`; a refresh and a
revocation each end at once every stream the old token had open; and the refusals are the RFC's."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import secrets
import threading
import time
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from oauth2_provider.models import get_application_model

from tests.api.conftest import register, start_game
from tests.streams.test_game_stream import free_port, start_uvicorn, stop

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]

CALLBACK = "http://127.0.0.1:9/callback"
PASSWORD = "correct horse battery"  # tests.api.conftest.register's


@pytest.fixture(autouse=True)
def _requests_answered_or_failed(monkeypatch):
    """requests has no timeout of its own: a call to the live server that got no answer waited for
    ever. Each call that names none fails after 60 s."""
    request = requests.Session.request

    def bounded(self, method, url, **kwargs):
        kwargs.setdefault("timeout", 60)
        return request(self, method, url, **kwargs)

    monkeypatch.setattr(requests.Session, "request", bounded)


def _csrf(page: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]


def _signed_in(base: str, username: str) -> requests.Session:
    browser = requests.Session()
    page = browser.get(f"{base}/login/")
    answer = browser.post(f"{base}/login/", data={"username": username, "password": PASSWORD, "next": "/",
                                                  "csrfmiddlewaretoken": _csrf(page.text)},
                          headers={"Referer": f"{base}/login/"}, allow_redirects=False)
    assert answer.status_code == 302, answer.text
    return browser


def _register_app(base: str, browser: requests.Session, client_type: str = "public") -> dict:
    page = browser.get(f"{base}/oauth/applications/register/")
    assert page.status_code == 200
    answer = browser.post(f"{base}/oauth/applications/register/", data={
        "name": "Board Buddy", "client_type": client_type, "redirect_uris": CALLBACK,
        "csrfmiddlewaretoken": _csrf(page.text),
    }, headers={"Referer": f"{base}/oauth/applications/register/"})
    assert answer.status_code == 200, answer.text
    client_id = re.search(r'<code id="client-id">([^<]+)</code>', answer.text)[1]
    secret = re.search(r'id="client-secret">([^<]+)<', answer.text)
    return {"client_id": client_id, "client_secret": secret and secret[1]}


def _pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def _authorize_url(base: str, client_id: str, challenge: str | None, scope: str | None = "read play",
                   method: str | None = "S256") -> str:
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": CALLBACK, "state": "s-42"}
    if scope is not None:
        query["scope"] = scope
    if challenge is not None:
        query["code_challenge"] = challenge
    if method is not None:
        query["code_challenge_method"] = method
    return f"{base}/oauth/authorize/?{urlencode(query)}"


def _consent_page(browser: requests.Session, url: str) -> requests.Response:
    return browser.get(url, allow_redirects=False)


def _approve(base: str, browser: requests.Session, page: requests.Response, allow: bool = True) -> dict:
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page.text))
    fields = {name: html.unescape(value) for name, value in fields.items()}
    if allow:
        fields["allow"] = "Authorize"
    answer = browser.post(f"{base}/oauth/authorize/", data=fields, allow_redirects=False,
                          headers={"Referer": page.url})
    assert answer.status_code == 302, answer.text
    location = answer.headers["Location"]
    assert location.startswith(CALLBACK)
    return {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}


def _code(base: str, browser: requests.Session, client_id: str, scope: str | None = "read play") -> tuple[str, str]:
    verifier, challenge = _pkce()
    page = _consent_page(browser, _authorize_url(base, client_id, challenge, scope))
    assert page.status_code == 200, page.text
    returned = _approve(base, browser, page)
    assert returned["state"] == "s-42"
    return returned["code"], verifier


def _exchange(base: str, client_id: str, code: str, verifier: str) -> requests.Response:
    return requests.post(f"{base}/oauth/token/", data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK, "client_id": client_id,
        "code_verifier": verifier,
    })


def _bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def _stream(port: int, game_id: int, token: str) -> requests.Response:
    for _ in range(150):  # the stream server is starting
        try:
            answer = requests.get(f"http://127.0.0.1:{port}/api/games/{game_id}/stream/", stream=True, timeout=15,
                                  headers={**_bearer(token), "Accept": "application/x-ndjson"})
            assert answer.status_code == 200, answer.text
            return answer
        except requests.ConnectionError:
            time.sleep(0.2)
    raise AssertionError("the stream server did not start")


class _Lines:
    """A stream's lines, read by a thread of their own."""

    def __init__(self, answer: requests.Response):
        self.items: list[dict] = []
        self.over = threading.Event()
        threading.Thread(target=self._pump, args=(answer,), daemon=True).start()

    def _pump(self, answer: requests.Response) -> None:
        try:
            for line in answer.iter_lines():
                if line:
                    self.items.append(json.loads(line))
        except requests.RequestException:
            pass
        self.over.set()

    def wait_for(self, kind: str, seconds: float = 10.0) -> dict:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            found = [item for item in self.items if item.get("type") == kind]
            if found:
                return found[0]
            time.sleep(0.05)
        raise AssertionError(f"no {kind} in {self.items}")


def _play_one_move_with(base: str, game_id: int, access: str, opponent) -> None:
    """One move of seat 0 posted with the app's Bearer token (the move shortcut's path), the
    opponent moving first while seat 0 is not to act."""
    for _ in range(20):
        game = requests.get(f"{base}/api/games/{game_id}/", headers=_bearer(access)).json()
        if 0 in game["to_act"]:
            listed = requests.get(f"{base}/api/games/{game_id}/legal-moves/", headers=_bearer(access)).json()
            moved = requests.post(f"{base}/api/games/{game_id}/moves/", headers=_bearer(access),
                                  json={"move": listed["moves"][0], "expected_seq": listed["seq"]})
            assert moved.status_code == 201, moved.text
            return
        listed = opponent.get(f"/api/games/{game_id}/legal-moves/").json()
        assert opponent.submit(game_id, listed["moves"][0], listed["seq"]).status_code == 201
    raise AssertionError("seat 0 never came to act")


def test_an_app_signs_a_player_in_plays_with_bearer_refreshes_and_revokes_ending_its_streams(live_server):
    base = live_server.url
    game_id, (player, opponent) = start_game("scavenge", 2)
    app = _register_app(base, _signed_in(base, register().username))  # an app author's account
    assert app["client_secret"] is None  # a public app has none: PKCE proves it

    verifier, challenge = _pkce()
    browser = requests.Session()  # the player's, signed out: the app sends it to sign in first
    sent = browser.get(_authorize_url(base, app["client_id"], challenge, "read play"), allow_redirects=False)
    assert sent.status_code == 302 and urlsplit(sent.headers["Location"]).path == "/login/"
    login = browser.get(f"{base}{sent.headers['Location']}")
    signed_in = browser.post(login.url, data={
        "username": player.username, "password": PASSWORD, "csrfmiddlewaretoken": _csrf(login.text),
        "next": parse_qs(urlsplit(sent.headers["Location"]).query)["next"][0]}, headers={"Referer": login.url})
    page = signed_in  # the login form's redirect followed: back to the consent page
    assert page.status_code == 200 and urlsplit(page.url).path == "/oauth/authorize/", page.url
    assert "Board Buddy" in page.text
    assert 'data-scope="read"' in page.text and 'data-scope="play"' in page.text
    assert 'data-scope="account"' not in page.text
    assert "See your games" in page.text and "Make moves" in page.text  # each scope in plain words
    assert "form-action 'self' http://127.0.0.1:9" in page.headers["Content-Security-Policy"]
    returned = _approve(base, browser, page)
    assert returned["state"] == "s-42"

    issued = _exchange(base, app["client_id"], returned["code"], verifier)
    assert issued.status_code == 200, issued.text
    tokens = issued.json()
    assert tokens["token_type"] == "Bearer" and tokens["scope"] == "read play"
    assert tokens["access_token"].startswith("syo_") and tokens["refresh_token"].startswith("syr_")
    access = tokens["access_token"]

    games = requests.get(f"{base}/api/games/{game_id}/", headers=_bearer(access))
    assert games.status_code == 200 and games.json()["your_seat"] == 0
    assert requests.get(f"{base}/api/games/{game_id}/", headers={"Authorization": f"Token {access}"}).status_code == 200
    refused = requests.get(f"{base}/api/accounts/me/", headers=_bearer(access))
    assert (refused.status_code, refused.json()["code"]) == (403, "missing_scope")
    _play_one_move_with(base, game_id, access, opponent)
    made = requests.post(f"{base}/api/games/", json={"rules": "scavenge", "players": 2}, headers=_bearer(access))
    assert made.status_code == 201, made.text
    assert "RateLimit" in made.headers and '"account"' in made.headers["RateLimit-Policy"]  # counted per account

    port = free_port()
    streams = start_uvicorn(port)
    try:
        first = _Lines(_stream(port, game_id, access))
        assert first.wait_for("game_full", 30)["game"]["your_seat"] == 0

        refreshed = requests.post(f"{base}/oauth/token/", data={
            "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": app["client_id"]})
        assert refreshed.status_code == 200, refreshed.text
        renewed = refreshed.json()
        assert renewed["access_token"] != access and renewed["refresh_token"] != tokens["refresh_token"]
        assert first.wait_for("stream_end") == {"type": "stream_end", "reason": "token_revoked"}
        gone = requests.get(f"{base}/api/games/{game_id}/", headers=_bearer(access))
        assert gone.status_code == 401 and gone.headers["Content-Type"].startswith("application/json")
        assert gone.json()["code"] == "authentication_failed"

        second = _Lines(_stream(port, game_id, renewed["access_token"]))
        second.wait_for("game_full", 30)
        revoked = requests.post(f"{base}/oauth/revoke_token/", data={
            "token": renewed["access_token"], "token_type_hint": "access_token", "client_id": app["client_id"]})
        assert revoked.status_code == 200, revoked.text
        assert second.wait_for("stream_end") == {"type": "stream_end", "reason": "token_revoked"}
        assert requests.get(f"{base}/api/games/{game_id}/", headers=_bearer(renewed["access_token"])).status_code == 401
        # Revoking the access token revoked its refresh token too (RFC 7009 2.1).
        again = requests.post(f"{base}/oauth/token/", data={
            "grant_type": "refresh_token", "refresh_token": renewed["refresh_token"], "client_id": app["client_id"]})
        assert (again.status_code, again.json()["error"]) == (400, "invalid_grant")
    finally:
        stop(streams)


def test_personal_tokens_work_as_bearer_and_token_alike(live_server):
    game_id, (player, _) = start_game("scavenge", 2)
    scoped = player.post("/api/tokens/", {"scopes": ["read"]}).json()["token"]
    for key in (player.token, scoped):
        for keyword in ("Bearer", "Token", "bearer"):
            answer = requests.get(f"{live_server.url}/api/games/{game_id}/", headers={"Authorization": f"{keyword} {key}"})
            assert answer.status_code == 200 and answer.json()["your_seat"] == 0, (keyword, answer.text)
    refused = requests.post(f"{live_server.url}/api/games/", json={"rules": "scavenge", "players": 2},
                            headers=_bearer(scoped))
    assert (refused.status_code, refused.json()["code"]) == (403, "missing_scope")
    unknown = requests.get(f"{live_server.url}/api/games/{game_id}/", headers=_bearer("syo_nothing"))
    assert unknown.status_code == 401 and unknown.json()["code"] == "authentication_failed"


def test_the_code_exchange_refuses_a_wrong_verifier_a_reused_code_and_a_foreign_client(live_server):
    base = live_server.url
    player = register()
    browser = _signed_in(base, player.username)
    app = _register_app(base, browser)

    code, verifier = _code(base, browser, app["client_id"])
    wrong = _exchange(base, app["client_id"], code, verifier + "x")
    assert (wrong.status_code, wrong.json()["error"]) == (400, "invalid_grant")

    code, verifier = _code(base, browser, app["client_id"])
    assert _exchange(base, app["client_id"], code, verifier).status_code == 200
    reused = _exchange(base, app["client_id"], code, verifier)
    assert (reused.status_code, reused.json()["error"]) == (400, "invalid_grant")

    code, verifier = _code(base, browser, app["client_id"])
    unknown_client = _exchange(base, "no-such-client", code, verifier)
    assert (unknown_client.status_code, unknown_client.json()["error"]) == (401, "invalid_client")

    odd = requests.post(f"{base}/oauth/token/", data={"grant_type": "password", "username": player.username,
                                                       "password": PASSWORD, "client_id": app["client_id"]})
    assert odd.status_code in (400, 401) and odd.json()["error"] in ("unsupported_grant_type", "unauthorized_client")
    assert odd.headers["Content-Type"].startswith("application/json")


def test_a_code_is_exchanged_only_by_its_own_app_with_its_own_redirect_uri(live_server):
    """Hostile exchanges: another real app's client id, a redirect URI other than the one the
    code was issued for, or none; each refused, and the code still works for its own app after."""
    base = live_server.url
    player = register()
    browser = _signed_in(base, player.username)
    mine, other = _register_app(base, browser), _register_app(base, _signed_in(base, register().username))
    code, verifier = _code(base, browser, mine["client_id"])
    answers = [
        requests.post(f"{base}/oauth/token/", data={"grant_type": "authorization_code", "code": code,
                                                    "redirect_uri": CALLBACK, "client_id": other["client_id"],
                                                    "code_verifier": verifier}),
        requests.post(f"{base}/oauth/token/", data={"grant_type": "authorization_code", "code": code,
                                                    "redirect_uri": "http://127.0.0.1:9/elsewhere",
                                                    "client_id": mine["client_id"], "code_verifier": verifier}),
        requests.post(f"{base}/oauth/token/", data={"grant_type": "authorization_code", "code": code,
                                                    "redirect_uri": CALLBACK + "?x=1", "client_id": mine["client_id"],
                                                    "code_verifier": verifier}),
    ]
    for answer in answers:
        assert answer.status_code in (400, 401) and "access_token" not in answer.json(), answer.text
    assert answers[0].json()["error"] == "invalid_grant"
    assert _exchange(base, mine["client_id"], code, verifier).status_code == 200


def test_the_authorization_request_needs_an_s256_challenge_and_a_known_scope(live_server):
    base = live_server.url
    player = register()
    browser = _signed_in(base, player.username)
    app = _register_app(base, browser)
    _, challenge = _pkce()
    for url in (_authorize_url(base, app["client_id"], None, method=None),  # no PKCE
                _authorize_url(base, app["client_id"], challenge, method="plain"),
                _authorize_url(base, app["client_id"], challenge, method=None),  # plain by default (RFC 7636)
                _authorize_url(base, app["client_id"], challenge, scope="read everything")):
        answer = _consent_page(browser, url)
        assert answer.status_code == 302, (url, answer.text)
        returned = parse_qs(urlsplit(answer.headers["Location"]).query)
        assert returned["error"][0] in ("invalid_request", "invalid_scope"), (url, returned)
        assert returned["state"] == ["s-42"]
    denied = _approve(base, browser, _consent_page(browser, _authorize_url(base, app["client_id"], challenge)),
                      allow=False)
    assert denied["error"] == "access_denied"


def test_a_scope_not_granted_is_refused_and_revoking_an_unknown_token_is_fine(live_server):
    base = live_server.url
    player = register()
    browser = _signed_in(base, player.username)
    app = _register_app(base, browser)
    code, verifier = _code(base, browser, app["client_id"], scope="read")
    access = _exchange(base, app["client_id"], code, verifier).json()["access_token"]
    refused = requests.post(f"{base}/api/games/", json={"rules": "scavenge", "players": 2}, headers=_bearer(access))
    assert (refused.status_code, refused.json()["code"]) == (403, "missing_scope")
    assert "play" in refused.json()["detail"]
    # RFC 7009 2.2: an invalid token is no error for the revocation endpoint.
    assert requests.post(f"{base}/oauth/revoke_token/", data={"token": "syo_unknown",
                                                              "client_id": app["client_id"]}).status_code == 200


def test_a_confidential_app_gets_its_secret_once_and_needs_it(live_server):
    base = live_server.url
    player = register()
    browser = _signed_in(base, player.username)
    app = _register_app(base, browser, client_type="confidential")
    assert app["client_secret"]
    detail = browser.get(f"{base}/oauth/applications/")
    assert "Board Buddy" in detail.text and app["client_secret"] not in detail.text
    code, verifier = _code(base, browser, app["client_id"])
    without = _exchange(base, app["client_id"], code, verifier)
    assert (without.status_code, without.json()["error"]) == (401, "invalid_client")
    code, verifier = _code(base, browser, app["client_id"])
    with_secret = requests.post(f"{base}/oauth/token/", auth=(app["client_id"], app["client_secret"]), data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK, "code_verifier": verifier})
    assert with_secret.status_code == 200, with_secret.text


def test_an_app_with_the_account_scope_may_not_manage_personal_tokens(live_server):
    """A personal token an app made, or the first token it rotated into its hands, would outlive
    the app's revocation: the player manages those alone."""
    base = live_server.url
    player = register()
    browser = _signed_in(base, player.username)
    app = _register_app(base, browser)
    code, verifier = _code(base, browser, app["client_id"], scope="read account")
    access = _exchange(base, app["client_id"], code, verifier).json()["access_token"]
    assert requests.get(f"{base}/api/accounts/me/", headers=_bearer(access)).status_code == 200
    for method, path, body in (("post", "/api/tokens/", {"scopes": ["read"]}), ("get", "/api/tokens/", None),
                               ("delete", "/api/tokens/1/", None), ("post", "/api/accounts/me/token/", None),
                               ("delete", "/api/accounts/me/token/", None)):
        refused = requests.request(method, f"{base}{path}", json=body, headers=_bearer(access))
        assert (refused.status_code, refused.json()["code"]) == (403, "personal_credentials_only"), (method, path)
    assert player.get("/api/tokens/").status_code == 200  # the player's own token still may


def test_a_refresh_token_used_twice_ends_its_whole_chain_and_no_scope_asked_means_read(live_server):
    base = live_server.url
    player = register()
    browser = _signed_in(base, player.username)
    app = _register_app(base, browser)
    code, verifier = _code(base, browser, app["client_id"], scope=None)
    first = _exchange(base, app["client_id"], code, verifier).json()
    assert first["scope"] == "read"

    def refresh(token: str) -> requests.Response:
        return requests.post(f"{base}/oauth/token/", data={
            "grant_type": "refresh_token", "refresh_token": token, "client_id": app["client_id"]})

    second = refresh(first["refresh_token"]).json()
    replayed = refresh(first["refresh_token"])  # a stolen copy of the old refresh token, used again
    assert (replayed.status_code, replayed.json()["error"]) == (400, "invalid_grant")
    assert requests.get(f"{base}/api/games/", headers=_bearer(second["access_token"])).status_code == 401
    assert refresh(second["refresh_token"]).status_code == 400


def test_a_player_takes_an_apps_access_back_from_the_account_page(live_server):
    base = live_server.url
    player = register()
    browser = _signed_in(base, player.username)
    app = _register_app(base, browser)
    code, verifier = _code(base, browser, app["client_id"], scope="read")
    access = _exchange(base, app["client_id"], code, verifier).json()["access_token"]
    assert requests.get(f"{base}/api/games/", headers=_bearer(access)).status_code == 200
    account = browser.get(f"{base}/account/")
    assert "/oauth/authorized_tokens/" in account.text
    listed = browser.get(f"{base}/oauth/authorized_tokens/")
    assert "Board Buddy" in listed.text
    revoke_path = re.search(r'href="(/oauth/authorized_tokens/\d+/delete/)"', listed.text)[1]
    page = browser.get(f"{base}{revoke_path}")
    done = browser.post(f"{base}{revoke_path}", data={"csrfmiddlewaretoken": _csrf(page.text)},
                        headers={"Referer": page.url}, allow_redirects=False)
    assert done.status_code == 302, done.text
    refused = requests.get(f"{base}/api/games/", headers=_bearer(access))
    assert refused.status_code == 401 and refused.json()["code"] == "authentication_failed"


def test_an_unknown_app_or_an_unregistered_redirect_is_told_to_the_player_never_redirected(live_server):
    """RFC 6749 4.1.2.1: with a client or redirect URI that cannot be trusted, the server must not
    send the player anywhere; it says what is wrong on its own page."""
    base = live_server.url
    player = register()
    browser = _signed_in(base, player.username)
    app = _register_app(base, browser)
    _, challenge = _pkce()
    elsewhere = _authorize_url(base, app["client_id"], challenge).replace("127.0.0.1%3A9", "evil.example")
    for url in (_authorize_url(base, "no-such-app", challenge), elsewhere):
        answer = _consent_page(browser, url)
        assert answer.status_code == 400 and "Location" not in answer.headers, (url, answer.status_code)
        assert "cannot be granted" in answer.text and "authorizationForm" not in answer.text
        assert "evil.example" not in answer.headers["Content-Security-Policy"]  # its CSP names no other site


def test_deleting_an_app_revokes_its_tokens_everywhere(monkeypatch):
    """However an access token is deleted (here by its app's deletion, a cascade), its digest is
    published as revoked, which every process and stream hears (accounts.auth, streams.hub)."""
    import datetime as dt

    from django.contrib.auth import get_user_model
    from django.utils import timezone
    from oauth2_provider.models import get_access_token_model
    from rest_framework.test import APIClient

    from accounts import auth

    published: list[str] = []
    monkeypatch.setattr(auth, "_publish_revoked", published.append)
    player = register()
    user = get_user_model().objects.get(username=player.username)
    application = get_application_model().objects.create(
        name="Gone Soon", user=user, client_type="public", authorization_grant_type="authorization-code",
        redirect_uris=CALLBACK)
    key = "syo_" + secrets.token_urlsafe(32)
    get_access_token_model().objects.create(user=user, application=application, token=key, scope="read",
                                            expires=timezone.now() + dt.timedelta(hours=1))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert client.get("/api/games/").status_code == 200
    application.delete()
    assert published == [auth.key_digest(key)]
    assert client.get("/api/games/").status_code == 401
