"""Middleware only where a request needs it: a token caller skips sessions, CSRF and messages;
a browser keeps all of them, CSRF check included."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.authtoken.models import Token

pytestmark = pytest.mark.django_db


def _account(name: str):
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    return user, Token.objects.create(user=user).key


def test_a_token_caller_gets_no_session_cookie_and_no_csrf_check():
    _, key = _account("tokenized")
    client = Client(enforce_csrf_checks=True)
    answer = client.post("/api/games/", {"rules": "scavenge", "players": 2}, content_type="application/json",
                         HTTP_AUTHORIZATION=f"Token {key}")
    assert answer.status_code == 201, answer.content
    assert "sessionid" not in answer.cookies and "csrftoken" not in answer.cookies


def test_a_session_caller_still_has_its_session_and_its_csrf_check():
    user, _ = _account("browser")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    refused = client.post("/api/games/", {"rules": "scavenge", "players": 2}, content_type="application/json")
    assert refused.status_code == 403
    assert refused.json()["code"] in ("csrf_failed", "permission_denied", "forbidden", "csrf_failure")
    me = client.get("/api/accounts/me/")
    assert me.status_code == 200 and me.json()["username"] == "browser"


def test_a_bad_token_is_refused_not_taken_for_the_session():
    user, _ = _account("both")
    client = Client()
    client.force_login(user)
    answer = client.get("/api/accounts/me/", HTTP_AUTHORIZATION="Token not-a-token")
    assert answer.status_code == 401
