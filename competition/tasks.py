"""Competition tasks: each takes ids, is safe to run twice, and is backed by the beat sweep."""

from __future__ import annotations

from celery import shared_task

from competition import pairing, rating_service, tournament_service
from games.dispatch import INFRASTRUCTURE_ERRORS


@shared_task(name="competition.game_finished", acks_late=True, autoretry_for=INFRASTRUCTURE_ERRORS,
             retry_backoff=True, max_retries=5)
def game_finished(game_id: int) -> None:
    rating_service.ratings_catch_up(game_ids=[game_id])
    tournament_service.table_finished(game_id=game_id)


@shared_task(name="competition.pair", acks_late=True, autoretry_for=INFRASTRUCTURE_ERRORS, retry_backoff=True,
             max_retries=5)
def pair(seek_id: int) -> int:
    return pairing.seek_pair(seek_id=seek_id)


@shared_task(name="competition.sweep", acks_late=True, ignore_result=True, expires=10)
def sweep() -> int:
    """Every few seconds: games whose rating message was lost, seeks to expire or still to
    pair, tournaments to start and rounds to begin."""
    done = rating_service.ratings_catch_up()
    done += pairing.seeks_expire() + pairing.buckets_pair()
    done += tournament_service.tournaments_tick()
    return done
