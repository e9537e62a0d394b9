"""Writes: asking for an analysis.

One row per game (`Analysis.game_id` is unique): however many ask at once, one row is made, and
with it one row of the analysis consumer's outbox (`analysis.consumer`), by whoever made it. The
run is the consumer framework's: its lease (renewed after every move, so a second worker given
the same analysis finds it held), its retries and its sweep; the result is stored only by the
run that still holds the lease. A done analysis is kept: asking again answers it at once.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from analysis import errors as analysis_errors
from analysis.consumer import ANALYSES, budget_settings, row_fields, row_key
from analysis.models import OUTSTANDING, Analysis, AnalysisRequest, AnalysisStatus
from consumers import framework
from games import errors, selectors
from games.words import state_said
from rules.words import msg

__all__ = ["budget_settings"]


def game_analysable(*, game_id: int, user: Any) -> None:
    """Refuse a game the caller may not see (404, a private game's strangers told there is none)
    or one not finished (409)."""
    game = selectors.game_get(game_id=game_id)
    if game.private and selectors.seat_of(game=game, user=user) is None:
        raise errors.GameNotFound(msg("there is no game {game_id}", game_id=game_id))
    if not selectors.game_finished(game):
        raise errors.GameNotFinished(msg("game {game_id} is {status}: a game is analysed once it has finished", game_id=game_id, status=state_said(game.status)))


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
                status=AnalysisStatus.QUEUED, finished_at=None, problem="") == 1
            analysis.refresh_from_db()
        if user.is_authenticated:
            _note_request(analysis, user, by_mail)
        if made:
            _count_run(game_id)
            _run_queue(game_id)
    return analysis


def _run_queue(game_id: int) -> None:
    """The analysis's outbox row, pending (made, or the one it had with fresh retries), sent to
    the `analysis` queue after the commit."""
    if not framework.row_again(ANALYSES, row_key(game_id)):
        framework.rows_make(ANALYSES, [row_fields(game_id, selectors.game_get(game_id=game_id).seq)])


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
    return AnalysisRequest.objects.filter(user=user, analysis__status__in=OUTSTANDING).count()


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
            return Analysis.objects.get_or_create(game_id=game_id, defaults={"budget": budget_settings()})
    except IntegrityError:  # another request made it between our look and our insert
        return Analysis.objects.get(game_id=game_id), False


def _note_request(analysis: Analysis, user: Any, by_mail: bool) -> None:
    request, _ = AnalysisRequest.objects.get_or_create(analysis=analysis, user=user, defaults={"by_mail": by_mail})
    if by_mail and not request.by_mail:
        AnalysisRequest.objects.filter(pk=request.pk).update(by_mail=True, mailed_at=None)


def request_mailed(*, request_id: int) -> None:
    AnalysisRequest.objects.filter(pk=request_id, mailed_at__isnull=True).update(mailed_at=timezone.now())


