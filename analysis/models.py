"""The analysis of a finished game: one row per game (its unique `game_id` is what keeps two
analyses of one game from ever existing), its status and its result.

A game is named by its id only, never by a foreign key into `games`: this app reads games
through their selectors (`games.positions`) and keeps nothing of theirs.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class AnalysisStatus(models.TextChoices):
    QUEUED = "queued", "queued"
    RUNNING = "running", "running"
    DONE = "done", "done"
    FAILED = "failed", "failed"


OUTSTANDING = (AnalysisStatus.QUEUED, AnalysisStatus.RUNNING)  # what the per-account quota counts


class Analysis(models.Model):
    """What the API tells of a game's analysis; its run's lease, retries and resends are its row
    in the consumer framework's outbox (`analysis.consumer`)."""

    game_id = models.BigIntegerField(unique=True)
    status = models.CharField(max_length=10, choices=AnalysisStatus.choices, default=AnalysisStatus.QUEUED)
    finished_at = models.DateTimeField(null=True, blank=True)
    budget = models.JSONField(default=dict, help_text="the search budget per position it was run with")
    moves = models.JSONField(default=list, help_text="per move: seq, seat, move, values, preferred move, mark")
    problem = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"analysis of game {self.game_id} ({self.status})"


class AnalysisRequest(models.Model):
    """Who asked for an analysis, and whether they want a mail with it when it is done."""

    analysis = models.ForeignKey(Analysis, on_delete=models.CASCADE, related_name="requests")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    by_mail = models.BooleanField(default=False)
    mailed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=("analysis", "user"), name="analysis_request_once")]
