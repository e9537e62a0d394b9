"""The analysis tests think little: a tiny search budget per position keeps them fast on a busy
machine (what they prove is the plumbing and the views, not the bot's strength)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def tiny_analysis_budget(settings):
    settings.SCRAPYARD_ANALYSIS_ITERATIONS = 6
    settings.SCRAPYARD_ANALYSIS_MILLISECONDS = 200


@pytest.fixture
def sent(monkeypatch):
    """What is sent to the analysis consumer's queue (`analysis.consumer`), recorded instead of
    sent, as (task, (consumer, row id))."""
    from consumers import framework
    from games import dispatch

    calls: list[tuple[str, tuple]] = []
    real = dispatch.send

    def send(name, args, **options):
        if args and args[0] == "analysis":
            calls.append((name, args))
        else:  # the games' own tasks go on as ever
            real(name, args, **options)

    monkeypatch.setattr(framework.dispatch, "send", send)
    return calls


def run_row(game_id: int) -> int:
    from consumers.models import Message

    return Message.objects.get(consumer="analysis", game_id=game_id).pk


def run_analysis(game_id: int) -> str:
    """The analysis worker's attempt at the game's row, as the framework makes it: "done",
    "failed", "retry", or "not_ours" (nothing due: done already, or another worker holds it)."""
    from analysis.consumer import ANALYSES
    from consumers import framework

    outcome = framework.attempt(ANALYSES, run_row(game_id))
    if outcome is None:
        return "not_ours"
    return "done" if outcome.delivered else "retry" if outcome.retry else "failed"


@pytest.fixture
def ask(django_capture_on_commit_callbacks):
    """POST an analysis request as `player`, running what its commit would set off."""

    def post(player, game_id: int):
        with django_capture_on_commit_callbacks(execute=True):
            return player.post(f"/api/games/{game_id}/analysis")

    return post
