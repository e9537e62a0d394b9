"""Analyses as a consumer of the consumer framework (`consumers.framework`): one row per game,
made when someone asks (`analysis.services.analysis_request`: the request is this consumer's
news, not a game's event), on the `analysis` queue and its low-priority worker. The framework
leases the row (renewed after every move analysed, so a worker that dies is found within
`SCRAPYARD_ANALYSIS_LEASE_SECONDS` however long the game), retries it, gives it up once its runs
keep dying, and its sweep sends again a row whose message was lost; the sweep's turn also sends
the mails still owed for done analyses."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.conf import settings
from django.db import transaction

from analysis import engine, signals
from analysis.models import OUTSTANDING, Analysis, AnalysisRequest, AnalysisStatus
from bots.mcts import Budget
from consumers import framework
from consumers.outbox import PENDING
from games import dispatch, positions, time_controls

log = logging.getLogger(__name__)

GAME = 0  # the one recipient of a game's analysis: however many ask, it is made once


class Analyses(framework.Consumer):
    name = "analysis"
    queue = "analysis"  # a flood of searches delays neither a bot's reply nor a deadline
    # Three runs in all, as before the framework: a search that kills its worker is not tried for ever.
    retry_waits = (30, 300)
    time_limit = 3600.0  # a whole game's searches, at their millisecond cap per position

    @property
    def lease_seconds(self) -> float:
        return settings.SCRAPYARD_ANALYSIS_LEASE_SECONDS

    @property
    def resend_seconds(self) -> float:
        return settings.SCRAPYARD_ANALYSIS_STALLED_SECONDS

    @property
    def sweep_seconds(self) -> float:
        return settings.SCRAPYARD_ANALYSIS_SWEEP_SECONDS

    # --- what it wants: nothing of a game's news; its rows are made on request ---

    def wanted(self, game_id: int, hints: dict[str, Any]) -> bool:
        return False

    def recipients(self, game_id: int) -> dict[int, int | None]:
        return {}

    def notices(self, recipient: int, seat: int | None, game: dict[str, Any], after: int) -> list[dict[str, Any]]:
        return []

    def followed(self, since: Any) -> list[dict[str, Any]]:
        return []  # no fan-out to lose: a request makes its row in its own transaction

    # --- how it delivers ---

    def deliver(self, row: Any) -> framework.Outcome:
        """The game's search, the lease renewed after every move; a bug in a game or a bot is
        told, not retried (an outage of the database or broker is: it raises)."""
        if not Analysis.objects.filter(game_id=row.game_id, status__in=OUTSTANDING).update(status=AnalysisStatus.RUNNING):
            return framework.Outcome(delivered=True, note="settled before this run")
        budget = budget_settings()
        try:
            moves = engine.analyse(positions.finished_game(game_id=row.game_id), Budget(**budget),
                                   after_each=lambda: framework.lease_renew(self, row))
        except (framework.LeaseLost, *dispatch.INFRASTRUCTURE_ERRORS):
            raise
        except Exception as error:
            log.exception("analysis of game %s failed", row.game_id)
            return framework.Outcome(delivered=False, note=f"{type(error).__name__}: {error}"[:300])
        return framework.Outcome(delivered=True, detail={"moves": moves, "budget": budget})

    def settle(self, row: Any, outcome: framework.Outcome, at: dt.datetime) -> None:
        """The analysis as the row came out (under the row's lock, held by this run alone)."""
        super().settle(row, outcome, at)
        if outcome.detail is not None:
            _analysis_done(row.game_id, at, **outcome.detail)
        elif row.status == PENDING:  # to be tried again: queued meanwhile
            Analysis.objects.filter(game_id=row.game_id, status=AnalysisStatus.RUNNING).update(status=AnalysisStatus.QUEUED)
        elif not outcome.delivered:
            Analysis.objects.filter(game_id=row.game_id, status__in=OUTSTANDING).update(
                status=AnalysisStatus.FAILED, finished_at=at, problem=outcome.note[:300])

    def periodic(self) -> int:
        return mails_owed_send()


def budget_settings() -> dict[str, int]:
    return {"iterations": settings.SCRAPYARD_ANALYSIS_ITERATIONS,
            "milliseconds": settings.SCRAPYARD_ANALYSIS_MILLISECONDS}


def _analysis_done(game_id: int, at: dt.datetime, *, moves: list[dict[str, Any]], budget: dict[str, int]) -> None:
    Analysis.objects.filter(game_id=game_id).update(status=AnalysisStatus.DONE, finished_at=at, moves=moves,
                                                    budget=budget, problem="")
    transaction.on_commit(lambda: signals.analysis_done.send(sender=Analysis, game_id=game_id), robust=True)


def mails_owed_send() -> int:
    """Tell mail again of done analyses whose mail is still owed a while after (its first notice
    was lost with the process that stored the analysis); how many games."""
    since = time_controls.now() - dt.timedelta(seconds=settings.SCRAPYARD_ANALYSIS_STALLED_SECONDS)
    owed = (AnalysisRequest.objects.filter(by_mail=True, mailed_at__isnull=True, analysis__status=AnalysisStatus.DONE,
                                           analysis__finished_at__lt=since)
            .values_list("analysis__game_id", flat=True).distinct())
    games = list(owed)
    for game_id in games:
        signals.analysis_done.send(sender=Analysis, game_id=game_id)
    return len(games)


def row_fields(game_id: int, seq: int) -> dict[str, Any]:
    return framework.message(recipient=GAME, kind="analysis", game_id=game_id, seq=seq, key=row_key(game_id))


def row_key(game_id: int) -> str:
    return f"analysis:{game_id}"


ANALYSES = framework.register(Analyses())
