"""Writes: asking for an analysis, and the worker's run of it under a lease.

One row per game (`Analysis.game_id` is unique): however many ask at once, one row is made and
one task sent, by whoever made it. The run takes the row's lease in a short locked transaction
(`select_for_update`), so a second worker given the same analysis (a redelivered message, the
sweep's resend) finds it held and does nothing; the lease is renewed after every move and the
result is stored only by the run that still holds it. A done analysis is kept: asking again
answers it at once.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from analysis import engine, signals
from analysis import errors as analysis_errors
from analysis.models import Analysis, AnalysisRequest, AnalysisStatus
from bots.mcts import Budget
from games import dispatch, errors, positions, selectors
from rules.words import msg

log = logging.getLogger(__name__)

RUN = "analysis.run"
MAX_ATTEMPTS = 3  # runs that died (their lease ran out) before the analysis is given up as failed


class LeaseLost(Exception):
    """Another run took the analysis over (this one was too slow to renew its lease)."""


def game_analysable(*, game_id: int, user: Any) -> None:
    """Refuse a game the caller may not see (404, a private game's strangers told there is none)
    or one not finished (409)."""
    game = selectors.game_get(game_id=game_id)
    if game.private and selectors.seat_of(game=game, user=user) is None:
        raise errors.GameNotFound(msg("there is no game {game_id}", game_id=game_id))
    if not selectors.game_finished(game):
        raise errors.GameNotFinished(msg("game {game_id} is {status}: a game is analysed once it has finished", game_id=game_id, status=game.status))


def analysis_request(*, game_id: int, user: Any, by_mail: bool = False) -> Analysis:
    """The game's analysis, queued if it was never asked for (or failed); the caller is noted.
    A request that would queue work is refused over the account's or the game's quota
    (`quota_check`); asking for one already queued, running or done costs nothing."""
    game_analysable(game_id=game_id, user=user)
    with transaction.atomic():
        _lock_account(user)  # one request of an account at a time: two cannot both pass the quota
        existing = Analysis.objects.filter(game_id=game_id).values_list("status", flat=True).first()
        if existing in (None, AnalysisStatus.FAILED):
            quota_check(user=user, game_id=game_id)
        analysis, made = _analysis_row(game_id)
        if not made and analysis.status == AnalysisStatus.FAILED:
            made = Analysis.objects.filter(pk=analysis.pk, status=AnalysisStatus.FAILED).update(
                status=AnalysisStatus.QUEUED, queued_at=timezone.now(), attempts=0, problem="") == 1
            analysis.refresh_from_db()
        if user.is_authenticated:
            _note_request(analysis, user, by_mail)
        if made:
            _count_run(game_id)
            transaction.on_commit(lambda: dispatch.send(RUN, (analysis.pk,)), robust=True)
    return analysis


# --- quotas: a person asking for many analyses, or one game's again and again --------------------

GAME_RUNS_WINDOW_SECONDS = 24 * 3600


def quota_check(*, user: Any, game_id: int) -> None:
    """Refuse (429) a request that would queue an analysis when the account already has
    `SCRAPYARD_ANALYSIS_PER_ACCOUNT` queued or running (each counts for everyone who asked for
    it), or the game's was queued `SCRAPYARD_ANALYSIS_RUNS_PER_GAME` times in a day."""
    limit = settings.SCRAPYARD_ANALYSIS_PER_ACCOUNT
    if user.is_authenticated and _outstanding_of(user) >= limit:
        raise analysis_errors.TooManyAnalyses(
            msg("you have {limit} analyses queued or running; ask again once one is done", limit=limit), retry_after=60)
    if _runs_of(game_id) >= settings.SCRAPYARD_ANALYSIS_RUNS_PER_GAME:
        raise analysis_errors.AnalysisRunsUsed(
            msg("game {game_id}'s analysis was queued {scrapyard_analysis_runs_per_game} times today; ask again tomorrow", game_id=game_id, scrapyard_analysis_runs_per_game=settings.SCRAPYARD_ANALYSIS_RUNS_PER_GAME), retry_after=3600)


def _lock_account(user: Any) -> None:
    if user.is_authenticated:
        list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True))


def _outstanding_of(user: Any) -> int:
    return AnalysisRequest.objects.filter(
        user=user, analysis__status__in=(AnalysisStatus.QUEUED, AnalysisStatus.RUNNING)).count()


def _runs_key(game_id: int) -> str:
    return f"analysis:runs:{game_id}"


def _runs_of(game_id: int) -> int:
    try:
        return int(cache.get(_runs_key(game_id), 0))
    except Exception:  # the cache away: a quota fails open, as the rate limits do
        return 0


def _count_run(game_id: int) -> None:
    try:
        cache.add(_runs_key(game_id), 0, timeout=GAME_RUNS_WINDOW_SECONDS)
        cache.incr(_runs_key(game_id))
    except Exception:  # the cache away (or the key just expired): uncounted, not refused
        pass


def _analysis_row(game_id: int) -> tuple[Analysis, bool]:
    try:
        with transaction.atomic():
            return Analysis.objects.get_or_create(game_id=game_id, defaults={"queued_at": timezone.now(),
                                                                             "budget": budget_settings()})
    except IntegrityError:  # another request made it between our look and our insert
        return Analysis.objects.get(game_id=game_id), False


def _note_request(analysis: Analysis, user: Any, by_mail: bool) -> None:
    request, _ = AnalysisRequest.objects.get_or_create(analysis=analysis, user=user, defaults={"by_mail": by_mail})
    if by_mail and not request.by_mail:
        AnalysisRequest.objects.filter(pk=request.pk).update(by_mail=True, mailed_at=None)


def request_mailed(*, request_id: int) -> None:
    AnalysisRequest.objects.filter(pk=request_id, mailed_at__isnull=True).update(mailed_at=timezone.now())


def budget_settings() -> dict[str, int]:
    return {"iterations": settings.SCRAPYARD_ANALYSIS_ITERATIONS,
            "milliseconds": settings.SCRAPYARD_ANALYSIS_MILLISECONDS}


# --- the worker's run ----------------------------------------------------------------------------


def analysis_run(*, analysis_id: int) -> str:
    """Run the analysis if nobody else is; what happened, as a word (for logs and tests)."""
    holder = uuid.uuid4().hex
    game_id = _lease_take(analysis_id, holder)
    if game_id is None:
        return "not_ours"
    budget = Budget(**budget_settings())
    try:
        moves = engine.analyse(positions.finished_game(game_id=game_id), budget,
                               after_each=lambda: _lease_renew(analysis_id, holder))
    except LeaseLost:
        return "lease_lost"
    except dispatch.INFRASTRUCTURE_ERRORS:
        _lease_release(analysis_id, holder)  # the task retries; the sweep would find it queued too
        raise
    except Exception as error:  # a bug in a game or a bot: told, not retried for ever
        log.exception("analysis of game %s failed", game_id)
        _finish(analysis_id, holder, status=AnalysisStatus.FAILED, problem=f"{type(error).__name__}: {error}"[:300])
        return "failed"
    return "done" if _finish(analysis_id, holder, status=AnalysisStatus.DONE, moves=moves, budget=budget_settings()) else "lease_lost"


def _lease_seconds() -> dt.timedelta:
    return dt.timedelta(seconds=settings.SCRAPYARD_ANALYSIS_LEASE_SECONDS)


def _lease_take(analysis_id: int, holder: str) -> int | None:
    """The game's id once this run holds the lease; None if the analysis is done or held."""
    now = timezone.now()
    with transaction.atomic():
        analysis = Analysis.objects.select_for_update().filter(pk=analysis_id).first()
        if analysis is None or analysis.status in (AnalysisStatus.DONE, AnalysisStatus.FAILED):
            return None
        if analysis.status == AnalysisStatus.RUNNING and analysis.lease_until and analysis.lease_until > now:
            return None
        Analysis.objects.filter(pk=analysis_id).update(
            status=AnalysisStatus.RUNNING, lease_holder=holder, lease_until=now + _lease_seconds(),
            attempts=analysis.attempts + 1)
        return analysis.game_id


def _lease_renew(analysis_id: int, holder: str) -> None:
    renewed = Analysis.objects.filter(pk=analysis_id, lease_holder=holder, status=AnalysisStatus.RUNNING).update(
        lease_until=timezone.now() + _lease_seconds())
    if not renewed:
        raise LeaseLost(f"analysis {analysis_id} was taken over")


def _lease_release(analysis_id: int, holder: str) -> None:
    Analysis.objects.filter(pk=analysis_id, lease_holder=holder, status=AnalysisStatus.RUNNING).update(
        status=AnalysisStatus.QUEUED, lease_holder="", lease_until=None)


def _finish(analysis_id: int, holder: str, *, status: str, **fields: Any) -> bool:
    with transaction.atomic():
        analysis = Analysis.objects.select_for_update().filter(pk=analysis_id, lease_holder=holder,
                                                               status=AnalysisStatus.RUNNING).first()
        if analysis is None:
            return False
        Analysis.objects.filter(pk=analysis_id).update(status=status, finished_at=timezone.now(), lease_until=None,
                                                       **fields)
        if status == AnalysisStatus.DONE:
            game_id = analysis.game_id
            transaction.on_commit(lambda: signals.analysis_done.send(sender=Analysis, game_id=game_id), robust=True)
    return True


# --- the sweep -----------------------------------------------------------------------------------


def analyses_catch_up() -> int:
    """Send again what a lost message or a dead worker left: a queued analysis whose task never
    ran, a running one whose lease ran out (given up after MAX_ATTEMPTS), and the mails still
    owed for done ones. How many it touched."""
    now = timezone.now()
    stalled = now - dt.timedelta(seconds=settings.SCRAPYARD_ANALYSIS_STALLED_SECONDS)
    touched = 0
    Analysis.objects.filter(status=AnalysisStatus.RUNNING, lease_until__lt=now, attempts__gte=MAX_ATTEMPTS).update(
        status=AnalysisStatus.FAILED, problem="its runs kept dying (out of memory or time?)", lease_until=None)
    for pk in Analysis.objects.filter(status=AnalysisStatus.RUNNING, lease_until__lt=now).values_list("pk", flat=True):
        touched += _resend(pk, now=now, status=AnalysisStatus.RUNNING, lease_until__lt=now)
    for pk in Analysis.objects.filter(status=AnalysisStatus.QUEUED, queued_at__lt=stalled).values_list("pk", flat=True):
        touched += _resend(pk, now=now, status=AnalysisStatus.QUEUED, queued_at__lt=stalled)
    owed = (AnalysisRequest.objects.filter(by_mail=True, mailed_at__isnull=True, analysis__status=AnalysisStatus.DONE,
                                           analysis__finished_at__lt=stalled)
            .values_list("analysis__game_id", flat=True).distinct())
    for game_id in owed:
        signals.analysis_done.send(sender=Analysis, game_id=game_id)
        touched += 1
    return touched


def _resend(pk: int, *, now: dt.datetime, **still: Any) -> int:
    moved = Analysis.objects.filter(pk=pk, **still).update(status=AnalysisStatus.QUEUED, queued_at=now,
                                                                 lease_holder="")
    if moved:
        dispatch.send(RUN, (pk,))
    return moved
