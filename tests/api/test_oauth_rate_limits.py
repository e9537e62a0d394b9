"""OAuth's endpoints have rate limits of their own, per client address and per client id, told
as the API's are (RateLimit, RateLimit-Policy) and refused as the API's are (429 with Retry-After,
JSON for an app; the site's page for a browser on the consent page)."""

from __future__ import annotations

import base64
import uuid

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def _address() -> str:
    """A client address no earlier run has used: the counts live in a shared cache."""
    value = uuid.uuid4().int
    return f"10.{value % 250}.{value // 250 % 250}.{value // 62500 % 250 + 1}"


def _limits(settings, **rates):
    settings.SCRAPYARD_RATE_LIMITS = {**settings.SCRAPYARD_RATE_LIMITS, **rates}


def _token_call(address: str, client_id: str, **headers):
    return Client(REMOTE_ADDR=address).post("/oauth/token/", {
        "grant_type": "authorization_code", "code": "guessed", "client_id": client_id,
        "redirect_uri": "http://127.0.0.1:9/callback", "code_verifier": "x" * 50,
    }, **headers)


def test_one_address_guessing_codes_at_the_token_endpoint_is_limited(settings):
    _limits(settings, oauth_address=3, oauth_client=1000)
    address = _address()
    answers = [_token_call(address, f"app-{uuid.uuid4().hex}") for _ in range(4)]
    assert all(a.status_code != 429 for a in answers[:3])
    assert '"oauth_address";q=3;w=60' in answers[0]["RateLimit-Policy"]
    assert '"oauth_address";r=2;' in answers[0]["RateLimit"]
    refused = answers[3]
    assert refused.status_code == 429
    assert refused["Content-Type"].startswith("application/json")
    assert refused.json()["code"] == "rate_limited" and refused.json()["error"] == "rate_limited"
    assert int(refused["Retry-After"]) > 0
    assert _token_call(_address(), f"app-{uuid.uuid4().hex}").status_code != 429  # another address still passes


def test_one_client_id_from_many_addresses_is_limited_in_the_form_and_in_basic_auth(settings):
    _limits(settings, oauth_address=1000, oauth_client=3)
    client_id = f"app-{uuid.uuid4().hex}"
    basic = base64.b64encode(f"{client_id}:wrong-secret".encode()).decode()
    codes = [_token_call(_address(), client_id).status_code for _ in range(2)]
    codes.append(_token_call(_address(), "", HTTP_AUTHORIZATION=f"Basic {basic}").status_code)
    assert 429 not in codes
    assert _token_call(_address(), client_id).status_code == 429
    assert _token_call(_address(), "", HTTP_AUTHORIZATION=f"Basic {basic}").status_code == 429
    assert _token_call(_address(), f"app-{uuid.uuid4().hex}").status_code != 429  # another app still passes


def test_revocation_counts_too_and_the_consent_page_answers_a_browser_with_a_page(settings):
    _limits(settings, oauth_address=2, oauth_client=1000)
    address = _address()
    client = Client(REMOTE_ADDR=address)
    for _ in range(2):
        assert client.post("/oauth/revoke_token/", {"token": "syo_x", "client_id": "nobody"}).status_code != 429
    assert client.post("/oauth/revoke_token/", {"token": "syo_x", "client_id": "nobody"}).status_code == 429
    page = client.get("/oauth/authorize/?client_id=nobody", HTTP_ACCEPT="text/html")
    assert page.status_code == 429 and page["Content-Type"].startswith("text/html") and int(page["Retry-After"]) > 0


def test_a_refusal_keeps_its_code_and_words_its_detail_in_the_callers_language(settings):
    _limits(settings, oauth_address=1, oauth_client=1000)
    address = _address()
    _token_call(address, f"app-{uuid.uuid4().hex}")
    refused = _token_call(address, f"app-{uuid.uuid4().hex}", HTTP_ACCEPT_LANGUAGE="nl").json()
    assert refused["code"] == "rate_limited" and refused["error"] == "rate_limited"
    assert refused["detail"].startswith("te veel verzoeken: probeer het over ")
