"""Leaderboards, a player's profile with its rating plot, and a tournament's standings, in a real
browser: rendered from the API with no page errors."""

from __future__ import annotations

import datetime as dt
import re
import time

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from competition import tournament_service
from games import services
from games.models import Game

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres, pytest.mark.redis, pytest.mark.browser]

TIMEOUT = 15_000  # ms


def _until_held(page, held: list, within: float = TIMEOUT / 1000) -> None:
    """Until the page's request that the test's route holds has come (it looped for ever, at 50 ms
    a look, when it never came)."""
    deadline = time.monotonic() + within
    while not held:
        assert time.monotonic() < deadline, f"the page did not ask within {within:.0f} s"
        page.wait_for_timeout(50)


def _rated_games(winner, loser, count):
    for _ in range(count):
        game = services.game_create_seated(creator=winner, rules_id="toy_race", players=2, options={},
                                           time_control={"type": "step", "seconds": 60}, rated=True,
                                           seats=[{"user": winner}, {"user": loser}])
        services.resign(game_id=game.pk, user=loser)


def _page(browser):
    page = browser.new_context().new_page()
    page.set_default_timeout(TIMEOUT)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def test_leaderboard_and_profile_pages_show_ratings_and_their_history(browser, site, screenshot):
    User = get_user_model()
    ada, bob = (User.objects.create_user(name, password="pw-long-enough") for name in ("ada", "bob"))
    _rated_games(ada, bob, 3)
    from competition.models import Rating

    Rating.objects.update(sigma=60, deviation=60)  # settled, as after many more games: listed
    page, errors = _page(browser)
    page.goto(f"{site}/leaderboards/")
    page.locator("#people li a").first.wait_for()  # the list is filled (it says "Loading…" before)
    assert "minus 2 deviations" in page.locator("#board-rule").inner_text()
    people = page.locator("#people li")
    assert people.nth(0).inner_text().startswith("ada") and people.nth(1).inner_text().startswith("bob")
    assert page.locator("#bots li").inner_text() == "nobody yet"
    page.click("#people li a >> text=ada")
    page.wait_for_url(f"{site}/players/ada/")
    page.locator(".rating-plot").wait_for()
    assert "3 rated games: 3 won" in page.locator("#tally").inner_text()
    points = page.locator(".rating-plot .rating").get_attribute("points").split()
    assert len(points) == 3
    screenshot(page, "player-profile")
    assert not errors


def test_a_tournament_page_shows_standings_and_rounds(browser, site, screenshot):
    User = get_user_model()
    organiser = User.objects.create_user("organiser", password="pw-long-enough")
    players = [User.objects.create_user(f"entrant{n}", password="pw-long-enough") for n in range(2)]
    tournament = tournament_service.tournament_create(
        user=organiser, name="Winter cup", kind="round_robin", rules_id="toy_race", players=2, options={},
        time_control={"type": "step", "seconds": 60}, rated=False, starts_at=timezone.now() + dt.timedelta(hours=1))
    for player in players:
        tournament_service.tournament_join(user=player, tournament_id=tournament.pk)
    type(tournament).objects.filter(pk=tournament.pk).update(starts_at=timezone.now())
    tournament_service.tournaments_tick()
    game_id = tournament.tables.get().game_id
    services.resign(game_id=game_id, user=players[1])
    page, errors = _page(browser)
    page.goto(f"{site}/tournaments/")
    page.click("text=Winter cup")
    page.locator("#standings tbody tr").first.wait_for()
    rows = page.locator("#standings tbody tr")
    assert rows.nth(0).inner_text().split("\t")[:3] == ["1", "entrant0", "1"]
    assert "finished" in page.locator("#about").inner_text()
    assert page.locator(f"#rounds a[href='/games/{game_id}/']").count() == 1
    # a tournament of two says whose name at a board takes the first turn
    assert page.locator("#rounds-first").is_visible()
    assert "first name has seat 0 and takes the first turn" in page.locator("#rounds-first").inner_text()
    screenshot(page, "tournament-rounds")
    page.click(f"#rounds a[href='/games/{game_id}/']")
    back = page.locator("h1 a.tournament-line")  # the game's page leads back to its tournament
    assert back.inner_text() == "Round 1 of Winter cup"
    assert back.get_attribute("href") == f"/tournaments/{tournament.pk}/"
    screenshot(page, "tournament-game")
    assert not errors


def test_quick_pairing_from_the_lobby_takes_both_seekers_to_one_game(browser, site):
    from tests.web.test_browser import _sign_up

    pages = [_sign_up(browser.new_context(), site, name) for name in ("quick1", "quick2")]
    for page in pages:
        page.goto(f"{site}/")
        page.select_option("#seek-rules", "toy_race")
        page.select_option("#seek-players", "2")
        page.click("#seek-form button[type=submit]")
        if page is pages[0]:
            page.locator("#seek-status", has_text="Seeking").wait_for()
    for page in pages:
        page.wait_for_url(re.compile(r"/games/\d+/$"))
    assert pages[0].url == pages[1].url
    game_id = int(pages[0].url.rstrip("/").rsplit("/", 1)[1])
    assert Game.objects.get(pk=game_id).rated


def test_a_seek_made_while_the_lobby_still_loads_is_followed_once(browser, site):
    """The lobby follows the open seek it finds of its own at load, and the seek its form makes.
    When the form's seek was made before the lobby's look for its own seeks was answered, the
    lobby found it there too and followed it twice: two polls a second and, once paired, two
    navigations to the game, the second aborting the first (seen as a flaky quick-pairing test)."""
    from tests.web.test_browser import _sign_up

    page = _sign_up(browser.new_context(), site, "early_seeker")
    held, polls = [], []
    page.route(re.compile(r"/api/seeks/\?mine=true$"), lambda route: held.append(route))  # answered once the seek is made
    page.on("request", lambda request: polls.append(request.url) if re.search(r"/api/seeks/\d+/$", request.url) else None)
    page.goto(f"{site}/")
    _until_held(page, held)
    page.select_option("#seek-rules", "toy_race")
    page.select_option("#seek-players", "2")
    page.click("#seek-form button[type=submit]")
    page.locator("#seek-status", has_text="Seeking").wait_for()
    held[0].continue_()
    page.wait_for_timeout(3500)
    # One follower asks at once and then once a second: four times in 3.5 s at most.
    assert 1 <= len(polls) <= 5, polls


def test_a_tournament_is_organised_entered_started_and_followed_from_its_pages(browser, site):
    from tests.web.test_browser import _sign_up

    organiser = _sign_up(browser.new_context(), site, "arbiter")
    organiser.set_default_timeout(TIMEOUT)
    organiser.goto(f"{site}/tournaments/")
    organiser.click("text=Organise a tournament")
    organiser.fill("#t-name", "Spring Swiss")
    organiser.select_option("#t-rules", "toy_race")
    organiser.select_option("#t-time", "step")
    organiser.fill("#t-rounds", "3")
    organiser.click("#new-tournament button[type=submit]")
    organiser.wait_for_url(re.compile(r"/tournaments/\d+/$"))
    tournament_id = int(organiser.url.rstrip("/").rsplit("/", 1)[1])
    organiser.locator("#enter").click()
    organiser.locator("#entrants li", has_text="arbiter").wait_for()
    User = get_user_model()
    for name in ("entrant_a", "entrant_b"):
        tournament_service.tournament_join(user=User.objects.create_user(name), tournament_id=tournament_id)
    organiser.reload()
    asked = []
    organiser.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    organiser.locator("#start").click()
    organiser.locator("#rounds h3", has_text="Round 1").wait_for()
    assert asked == ["Start now? Entries close and round 1 is paired."]
    boards = organiser.locator("#rounds li")
    assert boards.count() == 2  # three entrants: one game, one bye
    assert boards.filter(has_text="bye").count() == 1
    game_link = organiser.locator("#rounds li a")
    assert re.fullmatch(r"/games/\d+/", game_link.get_attribute("href"))
    assert "round 1 of 3" in organiser.locator("#about").inner_text()
    assert organiser.locator("#start").is_hidden() and organiser.locator("#leave").is_visible()


def test_the_leaderboards_page_offers_every_pool_before_anyone_is_rated(browser, site):
    page, errors = _page(browser)
    page.goto(f"{site}/leaderboards/")
    options = page.locator("#pool option")
    assert options.count() > 3
    assert "nobody rated yet" in options.first.inner_text()
    page.locator("#people li", has_text="nobody yet").wait_for()
    assert not errors


def test_a_round_robin_forfeit_reads_as_one_and_the_standings_fit_a_phone(browser, site):
    """A withdrawn entrant's scheduled game showed as the opponent's "bye", its point in no column
    of the standings; the standings' ten columns made the whole page scroll sideways on a phone;
    and a tables-of-three tournament linked a TRF file the API refuses (409)."""
    User = get_user_model()
    organiser = User.objects.create_user("organiser", password="pw-long-enough")
    players = [User.objects.create_user(f"player_with_a_long_name_{n}") for n in range(4)]
    tournament = tournament_service.tournament_create(
        user=organiser, name="Club round robin", kind="round_robin", rules_id="toy_race", players=2, options={},
        time_control={"type": "step", "seconds": 60}, rated=False, starts_at=timezone.now() + dt.timedelta(hours=1))
    for player in players:
        tournament_service.tournament_join(user=player, tournament_id=tournament.pk)
    type(tournament).objects.filter(pk=tournament.pk).update(starts_at=timezone.now())
    tournament_service.tournaments_tick()
    leaver = players[3]
    tournament_service.tournament_leave(user=leaver, tournament_id=tournament.pk)  # during round 1
    for table in tournament.tables.filter(round=1):
        game = Game.objects.get(pk=table.game_id)
        services.resign(game_id=game.pk, user=game.seats.order_by("index")[1].user)
    triples = tournament_service.tournament_create(
        user=organiser, name="Triples", kind="swiss", rules_id="toy_race", players=3, options={},
        time_control={"type": "step", "seconds": 60}, rated=False, starts_at=timezone.now() + dt.timedelta(hours=1))

    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{site}/tournaments/{tournament.pk}/")
    page.locator("#rounds h3", has_text="Round 2").wait_for()
    second = page.locator("#rounds section").nth(1).locator("li")
    assert second.filter(has_text="wins by forfeit").count() == 1
    assert second.filter(has_text="bye").count() == 0
    assert page.locator("#forfeits-h").is_visible()
    rows = {row.split("\t")[1]: row.split("\t") for row in page.locator("#standings tbody tr").all_inner_texts()}
    forfeited = next(name for name, row in rows.items() if row[8] == "1")
    assert float(rows[forfeited][2]) == int(rows[forfeited][4]) + int(rows[forfeited][8])  # wins + forfeits
    assert f"{leaver.username} (withdrawn)" in rows
    assert page.locator("#trf").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.goto(f"{site}/tournaments/{triples.pk}/")
    page.locator("#name", has_text="Triples").wait_for()
    assert page.locator("#trf").is_hidden()


def test_an_imported_forfeit_names_both_players_and_its_result(browser, site):
    """A TRF's forfeit is a table of both players: the page read its first seat as the winner."""
    User = get_user_model()
    organiser = User.objects.create_user("organiser")
    for name in ("ann", "bob"):
        User.objects.create_user(name)
    line = "001 {}      {:<33} {}                             {}    1  {}\n"
    text = ("XXR 3\n" + line.format("   1", "ann", 2000, "0.0", "0002 - -")
            + line.format("   2", "bob", 1900, "1.0", "0001 - +"))
    tournament = tournament_service.tournament_import_trf(user=organiser, text=text, rules_id="toy_race",
                                                          time_control={"type": "step", "seconds": 60})
    page = browser.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{site}/tournaments/{tournament.pk}/")
    page.locator("#rounds h3", has_text="Round 2").wait_for()
    assert page.locator("#rounds section").first.locator("li").inner_text() == "ann – bob (forfeit) · 0 – 1"


def test_the_leaderboard_shows_the_pool_chosen_last_and_keeps_it_in_the_address(browser, site):
    """Choosing a pool, then another before the first answered, left the first pool's players
    under the second pool's name when the answers came back in the other order; and the pool
    chosen was lost on reload, so nobody could link a pool's board."""
    from competition.models import Rating

    for rules_id, name in (("toy_race", "racer"), ("terrafex", "fexer")):
        Rating.objects.create(player=f"u-{name}", name=name, rules=rules_id, time_class="step", system="glicko2",
                              mu=1600, sigma=60, volatility=0.06, rating=1600, deviation=60, games=30,
                              last_played_at=timezone.now())
    page, errors = _page(browser)
    page.goto(f"{site}/leaderboards/")
    page.locator("#people li a").first.wait_for()
    held = []
    page.route(re.compile(r"/api/leaderboards/terrafex/step/"), lambda route: held.append(route))
    page.select_option("#pool", "terrafex/step/glicko2")
    _until_held(page, held)
    page.select_option("#pool", "toy_race/step/glicko2")
    page.locator("#people li a", has_text="racer").wait_for()
    held[0].continue_()
    page.wait_for_timeout(500)  # the late answer for terrafex has arrived
    assert page.locator("#people li").all_inner_texts()[0].startswith("racer")
    page.unroute(re.compile(r"/api/leaderboards/terrafex/step/"))
    page.select_option("#pool", "terrafex/step/glicko2")
    page.locator("#people li a", has_text="fexer").wait_for()
    assert page.url.endswith("?pool=terrafex%2Fstep%2Fglicko2")
    page.reload()
    page.locator("#people li a", has_text="fexer").wait_for()
    assert page.locator("#pool").input_value() == "terrafex/step/glicko2"
    assert not errors


def test_the_new_tournament_form_fits_a_phone(browser, site):
    """The kind's longest choice made its select, and so the whole form, wider than a 390 px phone."""
    from tests.web.test_browser import _sign_up

    page = _sign_up(browser.new_context(viewport={"width": 390, "height": 844}), site, "phone_organiser")
    page.goto(f"{site}/tournaments/new/")
    page.locator("#t-kind").wait_for()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    box = page.locator("#t-kind").bounding_box()
    assert box["x"] + box["width"] <= 390


def test_withdrawing_from_a_running_tournament_is_asked_first(browser, site):
    """One tap on Withdraw, once the tournament ran, took the entrant out for good (no entering
    again): it is asked first, as resigning a game is, and dismissing it changes nothing."""
    from tests.web.test_browser import _sign_up

    page = _sign_up(browser.new_context(), site, "steady_player")
    User = get_user_model()
    organiser = User.objects.create_user("organiser")
    tournament = tournament_service.tournament_create(
        user=organiser, name="Autumn Swiss", kind="swiss", rules_id="toy_race", players=2, options={},
        time_control={"type": "step", "seconds": 60}, rated=False, starts_at=timezone.now() + dt.timedelta(hours=1))
    for user in (User.objects.get(username="steady_player"), User.objects.create_user("rival")):
        tournament_service.tournament_join(user=user, tournament_id=tournament.pk)
    tournament_service.tournament_start(user=organiser, tournament_id=tournament.pk)
    page.goto(f"{site}/tournaments/{tournament.pk}/")
    page.locator("#leave").wait_for()
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.locator("#leave").click()
    page.wait_for_timeout(500)
    assert asked and "cannot enter again" in asked[0]
    assert not tournament.entrants.filter(withdrawn=True).exists()
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#leave").click()
    page.locator("#entrants li", has_text="withdrawn").wait_for()
    assert tournament.entrants.get(name="steady_player").withdrawn


def test_a_tournament_page_follows_its_tournament_and_names_its_game(browser, site):
    """Left open, the page shows round 1 once it is paired and a game's result once it is in,
    without a reload (Playwright's clock stands in for the wait); the game is named by its title,
    not its id."""
    import rules

    User = get_user_model()
    organiser = User.objects.create_user("club_secretary", password="pw-long-enough")
    players = [User.objects.create_user(f"follower{n}", password="pw-long-enough") for n in range(2)]
    tournament = tournament_service.tournament_create(
        user=organiser, name="Open evening", kind="round_robin", rules_id="toy_race", players=2, options={},
        time_control={"type": "step", "seconds": 60}, rated=False, starts_at=timezone.now() + dt.timedelta(hours=1))
    for player in players:
        tournament_service.tournament_join(user=player, tournament_id=tournament.pk)
    page, errors = _page(browser)
    page.clock.install()
    page.goto(f"{site}/tournaments/{tournament.pk}/")
    page.locator("#entrants li", has_text="follower1").wait_for()
    about = page.locator("#about").inner_text()
    assert rules.get("toy_race").title in about and "toy_race" not in about
    assert page.locator("#rounds h3").count() == 0

    type(tournament).objects.filter(pk=tournament.pk).update(starts_at=timezone.now())
    tournament_service.tournaments_tick()
    page.clock.run_for(21_000)
    page.locator("#rounds h3", has_text="Round 1").wait_for()
    game_id = tournament.tables.get().game_id
    assert page.locator(f"#rounds a[href='/games/{game_id}/']").count() == 1

    services.resign(game_id=game_id, user=players[1])
    page.clock.run_for(21_000)
    page.locator("#rounds li", has_text="1 – 0").wait_for()
    assert page.locator("#standings tbody tr").nth(0).inner_text().split("\t")[:3] == ["1", "follower0", "1"]
    assert not errors


def test_the_new_tournament_form_asks_only_for_the_time_control_chosen(browser, site):
    """Both figures were asked whatever the choice (seconds a step beside days a move), and on a
    phone the Rated box sat on a line above its word."""
    from tests.web.test_browser import _sign_up

    page = _sign_up(browser.new_context(viewport={"width": 390, "height": 844}), site, "time_organiser")
    page.goto(f"{site}/tournaments/new/")
    page.locator("#t-days").wait_for()
    assert page.locator("#t-step").is_hidden()
    page.select_option("#t-time", "step")
    page.locator("#t-step").wait_for()
    assert page.locator("#t-days").is_hidden()
    rated, word = page.locator("#t-rated").bounding_box(), page.locator("label:has(#t-rated)").bounding_box()
    assert rated["height"] > word["height"] / 2, "the box and its word share one line"


@pytest.mark.console_errors_allowed(r"status of 400 .*/api/tournaments/")  # the refusal the test provokes
def test_the_new_tournament_form_offers_no_start_already_past_and_says_why_the_server_refused_one(browser, site):
    """A start in the past made a tournament the sweep cancelled within seconds: the field now
    begins at the present, and a past start sent anyway is refused with the server's words."""
    from tests.web.test_browser import _sign_up

    page = _sign_up(browser.new_context(viewport={"width": 390, "height": 844}), site, "past_organiser")
    page.goto(f"{site}/tournaments/new/")
    page.locator("#t-starts").wait_for()
    lowest, chosen = page.eval_on_selector("#t-starts", "field => [field.min, field.value]")
    now = page.evaluate("() => new Date(Date.now() - new Date().getTimezoneOffset() * 60000).toISOString().slice(0, 16)")
    assert lowest <= now < chosen, (lowest, now, chosen)
    page.fill("#t-name", "Too late")
    page.eval_on_selector("#t-starts", "field => { field.min = ''; field.value = '2020-01-01T10:00'; }")
    page.click("#new-tournament button[type=submit]")
    page.get_by_text("starts_at has passed").wait_for()
    assert "/tournaments/new/" in page.url


def test_an_entrant_asks_for_a_half_point_bye_from_the_page_and_sees_it_in_the_round(browser, site, screenshot):
    from tests.web.test_browser import _sign_up

    page = browser.new_context(viewport={"width": 390, "height": 844})
    page = _sign_up(page, site, "ada")
    User = get_user_model()
    organiser = User.objects.create_user("organiser", password="pw-long-enough")
    tournament = tournament_service.tournament_create(
        user=organiser, name="Club night", kind="swiss", rules_id="toy_race", players=2, options={}, rounds=3,
        time_control={"type": "step", "seconds": 60}, rated=False, starts_at=timezone.now() + dt.timedelta(hours=1))
    ada = User.objects.get(username="ada")
    others = [User.objects.create_user(f"member{n}") for n in range(2)]
    for entrant in (ada, *others):
        tournament_service.tournament_join(user=entrant, tournament_id=tournament.pk)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{site}/tournaments/{tournament.pk}/")
    page.locator("#byes").wait_for()
    assert "You may sit out 1 round of this tournament for half a point" in page.locator("#byes-rule").inner_text()
    page.fill("#bye-round", "2")
    page.click("#bye-form button[type=submit]")
    page.locator("#byes-asked li", has_text="Round 2: half-point bye").wait_for()
    assert page.locator("#entrants li", has_text="ada").inner_text().endswith("sits out round 2")
    assert page.locator("#bye-form").is_hidden()  # the one bye allowed is asked for
    page.click("#byes-asked .take-back")
    page.locator("#bye-form").wait_for()
    assert page.locator("#byes-asked li").count() == 0
    page.fill("#bye-round", "1")
    page.click("#bye-form button[type=submit]")
    page.locator("#byes-asked li", has_text="Round 1").wait_for()

    type(tournament).objects.filter(pk=tournament.pk).update(starts_at=timezone.now())
    tournament_service.tournaments_tick()
    page.reload()
    page.locator("#rounds h3", has_text="Round 1").wait_for()
    boards = page.locator("#rounds li")
    assert boards.filter(has_text="ada: half-point bye (asked for)").count() == 1
    assert boards.filter(has_text="member0 – member1").count() == 1
    assert page.locator("#byes-asked .take-back").count() == 0  # round 1 is paired: nothing to take back
    row = next(r.split("\t") for r in page.locator("#standings tbody tr").all_inner_texts() if "ada" in r)
    assert row[2] == "0.5" and row[7] == "1"  # half a point, one bye
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "tournament-half-point-bye")
    assert not errors

    latecomer = _sign_up(browser.new_context(), site, "latecomer")  # the Swiss runs: a late entry
    latecomer.goto(f"{site}/tournaments/{tournament.pk}/")
    asked = []
    latecomer.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    latecomer.locator("#enter").click()
    latecomer.locator("#entrants li", has_text="latecomer").wait_for()
    assert asked == [("Enter now? You are paired from round 2 on; the rounds already played count as missed, "
                      "with no points.")]
    assert latecomer.locator("#enter").is_hidden() and latecomer.locator("#leave").is_visible()


def test_the_organiser_takes_a_bot_out_from_the_page(browser, site):
    from tests.web.test_browser import _sign_up

    page = _sign_up(browser.new_context(), site, "arbiter")
    User = get_user_model()
    tournament = tournament_service.tournament_create(
        user=User.objects.get(username="arbiter"), name="Bots night", kind="swiss", rules_id="toy_race", players=2,
        options={}, time_control={"type": "step", "seconds": 60}, rated=False,
        starts_at=timezone.now() + dt.timedelta(hours=1))
    tournament_service.tournament_join(user=User.objects.create_user("member"), tournament_id=tournament.pk)
    tournament_service.tournament_bot_add(user=tournament.created_by, tournament_id=tournament.pk, bot="random")
    page.goto(f"{site}/tournaments/{tournament.pk}/")
    bot_line = page.locator("#entrants li", has_text="random #1")
    bot_line.wait_for()
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    bot_line.locator(".remove-entrant").click()
    bot_line.wait_for(state="detached")
    assert asked == ["Take random #1 (level 1) out of this tournament?"]
    assert page.locator("#entrants li").all_inner_texts() == ["member · 1500 Take out"]
    assert not tournament.entrants.filter(bot="random").exists()
