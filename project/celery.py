"""The Celery app, so that `celery -A project worker` and `celery -A project beat` work."""

import os

from celery import Celery, signals

from project import broker

broker.register()  # the embedded default's broker, scrapyard-files://
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

app = Celery("project")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.worker_process_init.connect
def _pool_process_niceness(**_) -> None:
    """A worker's pool process runs its tasks at SCRAPYARD_WORKER_NICE (the analysis worker: 19,
    deploy/supervisord.conf); the worker's main process, which boots and talks to the broker,
    keeps the usual priority."""
    niceness = int(os.environ.get("SCRAPYARD_WORKER_NICE", "0") or 0)
    if niceness:
        os.setpriority(os.PRIO_PROCESS, 0, niceness)


def tasks_eager() -> bool:
    """`app.conf.task_always_eager`, read in a dictionary lookup or two: Celery's layered lookup
    (its key spellings, the settings' namespace) takes several microseconds a read, and every
    move asks twice (`consumers.after_commit`). A value set on the app at run time (the tests' way)
    wins, as in Celery's own lookup; else the setting the app is configured from."""
    changes = app.conf.changes
    if not isinstance(changes, dict):  # the configuration not read yet: Celery's own lookup
        return bool(app.conf.task_always_eager)
    if "task_always_eager" in changes:
        return bool(changes["task_always_eager"])
    from django.conf import settings

    return bool(getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False))
