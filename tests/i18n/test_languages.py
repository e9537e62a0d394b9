"""The reader's language, chosen as people expect: an account's own setting (account page, API,
or by mail: tests/mail/test_mail_languages.py), else the browser's Accept-Language, else English;
pages and the API's error details in it, the error codes the same in every language."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import Account
from tests.api.conftest import register

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "correct horse battery"


def _lang(page) -> str:
    return re.search(r'<html lang="([^"]+)"', page.content.decode())[1]


def _speaks(name: str, language: str) -> None:
    user = get_user_model().objects.get(username=name)
    Account.objects.update_or_create(user=user, defaults={"language": language})


def _signed_in(name: str, language: str = "") -> Client:
    register(name)
    if language:
        _speaks(name, language)
    client = Client()
    assert client.login(username=name, password=PASSWORD)
    return client


def test_a_visitor_gets_the_browsers_language_else_english():
    dutch = Client().get("/", HTTP_ACCEPT_LANGUAGE="nl-BE,nl;q=0.9,en;q=0.5")
    assert _lang(dutch) == "nl" and dutch["Content-Language"] == "nl"
    text = dutch.content.decode()
    assert "Open partijen" in text and "Registreer" in text and "Open games" not in text
    assert _lang(Client().get("/", HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9")) == "en"
    assert _lang(Client().get("/")) == "en"


def test_the_switcher_on_every_page_changes_a_visitors_language():
    client = Client()
    page = client.get("/leaderboards/").content.decode()
    assert 'name="language" value="nl"' in page and "Nederlands" in page  # the other language, in its own words
    switched = client.post("/language/", {"language": "nl", "next": "/leaderboards/"})
    assert switched.status_code == 302 and switched["Location"] == "/leaderboards/"
    assert "Ranglijsten" in client.get("/leaderboards/").content.decode()


def test_an_accounts_language_beats_the_browsers_on_its_pages():
    client = _signed_in("anouk", "nl")
    account = client.get("/account/", HTTP_ACCEPT_LANGUAGE="en")
    assert _lang(account) == "nl"
    text = account.content.decode()
    assert "E-mail en berichten" in text and "Vakantie" in text and "Email and notices" not in text
    lobby = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Mijn partijen" in lobby and "Snel koppelen" in lobby


def test_the_switcher_saves_a_signed_in_accounts_language():
    client = _signed_in("bram")
    client.post("/language/", {"language": "nl", "next": "/account/"})
    assert Account.objects.get(user__username="bram").language == "nl"


def test_the_api_account_settings_carry_the_language():
    player = register("cor")
    assert player.get("/api/accounts/me/").json()["language"] == ""
    changed = player.client.patch("/api/accounts/me/", {"language": "nl"}, format="json")
    assert changed.status_code == 200 and changed.json()["language"] == "nl"
    refused = player.client.patch("/api/accounts/me/", {"language": "xx"}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_input"


def test_an_api_errors_code_stays_and_its_detail_follows_accept_language():
    player = register("dirk")
    english = player.client.get("/api/games/999999/", HTTP_ACCEPT_LANGUAGE="en")
    dutch = player.client.get("/api/games/999999/", HTTP_ACCEPT_LANGUAGE="nl")
    assert english.status_code == dutch.status_code == 404
    assert english.json() == {"code": "game_not_found", "detail": "there is no game 999999"}
    assert dutch.json() == {"code": "game_not_found", "detail": "er is geen partij 999999"}


def test_a_token_caller_naming_no_language_reads_english_after_a_dutch_request_in_its_thread():
    """A token's request with no Accept-Language and no cookie installs no language
    (project.i18n.ReaderLanguageMiddleware): the Dutch one an earlier request left in the thread
    must not answer it."""
    player = register("joost")
    dutch = player.client.get("/api/games/999999/", HTTP_ACCEPT_LANGUAGE="nl")
    assert dutch.json()["detail"] == "er is geen partij 999999" and dutch.headers["Content-Language"] == "nl"
    bare = player.client.get("/api/games/999999/")
    assert bare.json() == {"code": "game_not_found", "detail": "there is no game 999999"}
    assert bare.headers["Content-Language"] == "en" and "Accept-Language" in bare.headers["Vary"]


def test_a_move_refused_in_dutch_keeps_its_code():
    game_id, seated = _started("scavenge")
    game = seated[0].get(f"/api/games/{game_id}/").json()
    waiting = next(player for seat, player in enumerate(seated) if seat not in game["to_act"])
    refused = waiting.submit(game_id, {"type": "stay"}, game["seq"] + 5, **{"Accept-Language": "nl"})
    assert refused.json()["code"] == "stale_seq" and "de partij staat op" in refused.json()["detail"]


def _started(rules_id: str):
    from tests.api.conftest import start_game

    return start_game(rules_id, 2)


def test_the_table_reads_in_dutch_prompt_panels_and_text_board_included():
    game_id, seated = _started("terrain_vague")
    _speaks(seated[0].username, "nl")
    client = Client()
    assert client.login(username=seated[0].username, password=PASSWORD)
    text = client.get(f"/games/{game_id}/").content.decode()
    assert _lang(client.get(f"/games/{game_id}/")) == "nl"
    for dutch in ("Tekstbord", "Eerlijkheid", "actiepunten", "pionnen in reserve", "kruiwagens", "katapulten",
                  "deksels", "grote broer", "Terrein: R Stenen", "Zo speel je"):
        assert dutch in text, dutch
    for english in ("Text board", "action points", "wheelbarrows", "Per gang:"):
        assert english not in text, english
    # The API answers the page's script in the same words.
    shown = client.get(f"/api/games/{game_id}/").json()["presentation"]
    assert shown["panels"][0]["resources"][0]["label"] == "actiepunten"


def test_the_kept_text_board_stays_english_whoever_reads_it_first():
    """What a seat sees is kept per (game, seq, seat) for readers of every language: a Dutch
    reader first must not leave Dutch words in it for the English reader after."""
    game_id, seated = _started("terrain_vague")
    client = Client()
    assert client.login(username=seated[0].username, password=PASSWORD)
    _speaks(seated[0].username, "nl")
    assert "actiepunten" in client.get(f"/games/{game_id}/").content.decode()
    _speaks(seated[0].username, "en")
    text = client.get(f"/games/{game_id}/").content.decode()
    assert "action points" in text and "wheelbarrows 4" in text and "actiepunten" not in text
    assert client.get(f"/api/games/{game_id}/").json()["presentation"]["panels"][0]["resources"][0]["label"] == "action points"


def test_the_app_pages_read_in_dutch():
    client = _signed_in("evi", "nl")
    apps = client.get("/oauth/applications/").content.decode()
    assert "Apps die je registreerde" in apps and "Een app registreren" in apps and "Apps you registered" not in apps
    register_page = client.get("/oauth/applications/register/").content.decode()
    assert "Registreren" in register_page and "Openbaar:" in register_page
    allowed = client.get("/oauth/authorized_tokens/").content.decode()
    assert "Geen enkele app heeft een token van jou." in allowed


def test_a_deadline_is_written_in_the_readers_language_and_time_zone():
    import datetime as dt

    from django.utils import translation

    from mail.compose import local_time

    at = dt.datetime(2026, 3, 2, 13, 0, tzinfo=dt.timezone.utc)
    assert local_time(at, "Europe/Amsterdam") == "Mon 02 Mar 2026 14:00 Europe/Amsterdam"
    with translation.override("nl"):
        assert local_time(at, "Europe/Amsterdam") == "ma 02 mrt 2026 14:00 Europe/Amsterdam"  # Dutch writes months in lower case
        assert local_time(None, "UTC") == "geen klok"


def test_a_signed_in_page_names_the_accounts_time_zone_for_its_scripts():
    from mail.models import Preference

    client = _signed_in("ilse", "nl")
    user = get_user_model().objects.get(username="ilse")
    Preference.objects.update_or_create(user=user, defaults={"time_zone": "Europe/Amsterdam"})
    assert 'data-time-zone="Europe/Amsterdam"' in client.get("/").content.decode()
    assert "data-time-zone" not in Client().get("/").content.decode()  # a visitor's browser keeps its own
