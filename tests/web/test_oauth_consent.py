"""The consent page in a real browser: a player who allows an app is sent back to the app's
registered address, which the page's Content-Security-Policy lets the form's redirect reach."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from oauth2_provider.models import get_application_model

from tests.api.test_oauth import CALLBACK, _authorize_url, _pkce
from tests.web.test_browser import _sign_up

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_a_player_allows_an_app_on_the_consent_page_and_is_sent_back_to_it(browser, site):
    application = get_application_model().objects.create(
        name="Board Buddy", client_type="public", authorization_grant_type="authorization-code", redirect_uris=CALLBACK)
    context = browser.new_context()
    page = _sign_up(context, site, "consenting")
    arrived: list[str] = []

    def the_app(route):
        arrived.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<p>the app</p>")

    page.route("http://127.0.0.1:9/**", the_app)
    _, challenge = _pkce()
    page.goto(_authorize_url(site, application.client_id, challenge, "read play"))
    assert page.locator("h1").inner_text() == "Allow Board Buddy to use your account?"
    assert page.locator("#scopes li").all_inner_texts() == [
        "See your games, including your private ones, and follow them live (read)",
        "Make moves, offer draws, resign and create or join games as you (play)",
    ]
    page.get_by_role("button", name="Allow").click()
    page.wait_for_url("http://127.0.0.1:9/**")
    returned = parse_qs(urlsplit(arrived[0]).query)
    assert returned["state"] == ["s-42"] and returned["code"][0]
