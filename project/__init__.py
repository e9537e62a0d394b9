"""Scrapyard's Django project: settings from the environment, urls, and the Celery app."""

from project.celery import app as celery_app

__all__ = ("celery_app",)
