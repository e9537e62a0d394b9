"""Celery tasks. Each takes ids, reloads, and does nothing if the game has moved on, so a
redelivered or duplicated task is harmless."""
