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
    """The tasks the analysis services send, recorded instead of sent."""
    from analysis import services

    calls: list[tuple[str, tuple]] = []
    real = services.dispatch.send

    def send(name, args, **options):
        if name.startswith("analysis."):
            calls.append((name, args))
        else:  # the games' own tasks go on as ever
            real(name, args, **options)

    monkeypatch.setattr(services.dispatch, "send", send)
    return calls


@pytest.fixture
def ask(django_capture_on_commit_callbacks):
    """POST an analysis request as `player`, running what its commit would set off."""

    def post(player, game_id: int):
        with django_capture_on_commit_callbacks(execute=True):
            return player.post(f"/api/games/{game_id}/analysis")

    return post
