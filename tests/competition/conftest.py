"""Competition tests run the workers' tasks in-process (eager), as a one-process server does."""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth import get_user_model

_names = itertools.count()


@pytest.fixture(autouse=True)
def eager_tasks():
    from project.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def make_users(n: int, prefix: str = "r") -> list:
    User = get_user_model()
    # no password: hashing one costs a third of a second, and these accounts never log in
    return [User.objects.create_user(username=f"{prefix}{next(_names)}") for _ in range(n)]
