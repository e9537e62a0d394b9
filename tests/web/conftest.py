"""The web client in a real browser: Playwright driving Debian's Chromium (`/usr/bin/chromium`)
against a live server with the stream server beside it, on PostgreSQL and Redis (notices wake
the streams) or on the embedded default (the tests' SQLite file, which the stream server reads
too; its streams re-read the database every second), as `make run` serves its streams in either.
Without Chromium the browser tests skip on a developer's machine and fail in CI, like the
service tests.

Screenshots of every game page are written to `artifacts/screenshots/` for people to look at.

Every page a test opens is watched: a script error on it, or an error on its console, fails the
test (`page_errors`), unless the test names it with `@pytest.mark.console_errors_allowed(...)`."""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from pathlib import Path

import pytest

from project.celery import app as celery_app
from tests.conftest import IN_CI
from tests.streams.test_game_stream import ROOT, free_port, start_uvicorn, stop

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


# A module's tests share one browser. Not the whole session's: while Playwright runs, its event
# loop holds this thread, and a parallel run may hand the same process stream tests (which start
# loops of their own) after a browser test.
@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        message = f"no Chromium at {CHROMIUM} (apt-get install -y chromium)"
        pytest.fail(message) if IN_CI else pytest.skip(message)
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread, and Django refuses database work
    # where a loop runs; the tests' database work is synchronous all the same.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield WatchedBrowser(chromium)
        chromium.close()
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE")


class WatchedBrowser:
    """The browser, whose every context's pages report their script errors and console errors
    into `errors` (the `page_errors` fixture empties it before each test and checks it after)."""

    def __init__(self, browser):
        self._browser = browser
        self.errors: list[str] = []

    def new_context(self, **options):
        context = self._browser.new_context(**options)
        context.on("page", self.watch)
        return context

    def watch(self, page) -> None:
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: script error: {error}"))
        page.on("console", lambda message: message.type == "error" and self.errors.append(
            f"{page.url}: console error: {message.text} ({message.location.get('url', '')})"))

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture(autouse=True)
def page_errors(request):
    """No script error and no console error on any page of a browser test. Expected ones (a 409
    the test provokes, a stream it cuts) are named by the test's `console_errors_allowed` marker.
    A stream server runs in every configuration, so a failed stream request is an error here too."""
    if "browser" not in request.fixturenames:
        yield []
        return
    browser = request.getfixturevalue("browser")
    browser.errors.clear()
    yield browser.errors
    allowed = [re.compile(pattern) for marker in request.node.iter_markers("console_errors_allowed") for pattern in marker.args]
    # A move refused as stale (409) is the protocol's answer to a seat acting at the same time or a
    # second tab: the page reads the game again and says so. The browser logs the refused request
    # itself on the console; no script of the page can keep it from doing so.
    allowed.append(re.compile(r"status of 409 .*/api/games/\d+/moves/\)$"))
    found = [error for error in browser.errors if not any(pattern.search(error) for pattern in allowed)]
    assert found == [], "errors on the pages:\n" + "\n".join(found[:20])


@pytest.fixture(scope="module")
def stream_port(django_db_setup, live_server):
    """The stream server beside the live server, on the test's database, one for a module's tests
    (starting one costs a second of CPU). On the embedded default too: without it the pages, whose
    streams found nothing listening, fell back to polling, which `make run` (granian serving the
    streams on the site's origin) never does, so a test of what a stream pushes failed there."""
    port = free_port()
    streams = start_uvicorn(port, SCRAPYARD_WEB_ORIGINS=live_server.url)
    _wait_until_listening(port)  # a page that asked first would find no server, and say so on its console
    yield port
    stop(streams)


def _wait_until_listening(port: int, within: float = 120.0) -> None:
    deadline = time.monotonic() + within
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.fixture
def site(browser, live_server, stream_port, settings):
    """The web client's address, with the stream server running beside it. Bot seats move in the live server itself, right after the move that
    woke them (Celery's eager mode): the workers have their own tests (tests/workers/)."""
    settings.SCRAPYARD_STREAM_URL = f"http://localhost:{stream_port}"
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield live_server.url
    # Pages stop asking before the test's database is emptied (this fixture ends before it): their
    # streams end with them.
    _close_pages(browser)
    celery_app.conf.task_always_eager = eager


def _close_pages(browser, within: float = 15.0) -> None:
    """Close every page, then wait for what their last requests started in the live server (a
    join's commit and the eager tasks after it): emptying the database under a request still
    running deadlocked the flush, and the request died with a 500."""
    for context in list(browser.contexts):
        context.close()
    deadline = time.monotonic() + within
    while any("process_request_thread" in thread.name for thread in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.02)


@pytest.fixture
def screenshot():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


@pytest.fixture(autouse=True)
def _pages_closed_after_each_test(request):
    """A page left open keeps polling the live server after its test (its game, its chat): close
    every browser context a test opened, so later tests run alone."""
    yield
    if "browser" in request.fixturenames:
        _close_pages(request.getfixturevalue("browser"))


def wait_for_js(page, expression: str, timeout: float = 15_000) -> None:
    """Wait until `expression` is true in the page. Playwright's `wait_for_function` compiles its
    string with eval inside the page, which the pages' Content-Security-Policy forbids (no
    'unsafe-eval'); `evaluate` goes through the browser's debugging protocol, outside it."""
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout / 1000:.0f} s: {expression}")
        page.wait_for_timeout(100)
