"""Tasks run inline here (eager), so a reply's whole effect (the move, the answer, the other seat's
mail) is in the sink when `sendmail` returns; real workers: tests/workers/test_mail_workers.py.
The `sink` and `gateway` fixtures are in tests/conftest.py (tests/mail/smtp.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _sender_limit_out_of_the_way(settings):
    """Whole games come from two addresses; the test of the limit sets its own."""
    settings.SCRAPYARD_MAIL_SENDER_LIMIT = 1_000_000


@pytest.fixture
def eager_tasks():
    from project.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before
