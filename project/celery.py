"""The Celery app, so that `celery -A project worker` and `celery -A project beat` work."""

import os

from celery import Celery

from project import broker

broker.register()  # the embedded default's broker, scrapyard-files://
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

app = Celery("project")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
