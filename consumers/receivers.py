"""The framework's one receiver of `games.signals.events_recorded`, run in the request right after
its commit: it only hands the news over to the after-commit thread (`consumers.after_commit`),
which tells each consumer (`consumers.framework.news`) what the writer knew at the commit
(whether a bot seat is to act, whether a conditional line may wait)."""

from __future__ import annotations

from consumers import after_commit, framework  # imported by the app's `ready`: the models are loaded


def events_recorded(sender, *, game_id: int, seq: int, **hints) -> None:
    after_commit.soon(framework.news, game_id, seq, hints)
