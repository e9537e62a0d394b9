"""Analysis tasks: `analysis.run` on the analysis queue (a search over every move of a game, on
a worker of its own at the lowest CPU priority), the sweep on the default queue. Each takes ids and is safe to run twice (the run's lease)."""

from __future__ import annotations

from celery import shared_task

from analysis import services
from games.dispatch import INFRASTRUCTURE_ERRORS


@shared_task(name="analysis.run", acks_late=True, autoretry_for=INFRASTRUCTURE_ERRORS, retry_backoff=True,
             max_retries=5)
def run(analysis_id: int) -> str:
    return services.analysis_run(analysis_id=analysis_id)


@shared_task(name="analysis.sweep", acks_late=True, ignore_result=True, expires=30)
def sweep() -> int:
    """Analyses whose message was lost or whose worker died, and mails still owed."""
    return services.analyses_catch_up()
