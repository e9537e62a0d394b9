"""`project.celery.tasks_eager`: Celery's `task_always_eager`, read quickly, as Celery reads it."""

from __future__ import annotations

from project.celery import app, tasks_eager


def test_tasks_eager_is_what_celery_says_as_it_changes(settings):
    before = app.conf.task_always_eager
    try:
        for value in (True, False, True):
            app.conf.task_always_eager = value  # set on the app at run time, as the tests do
            assert tasks_eager() is value is app.conf.task_always_eager
        del app.conf.changes["task_always_eager"]  # back to the setting the app is configured from
        for value in (True, False):
            settings.CELERY_TASK_ALWAYS_EAGER = value
            assert tasks_eager() is value is app.conf.task_always_eager
    finally:
        app.conf.task_always_eager = before
