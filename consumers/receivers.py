"""The framework's one receiver of `games.signals.events_recorded`: each consumer the news
concerns gets its fan-out (`consumers.framework.news`), told what the writer knew at the commit
(whether a bot seat is to act, whether a conditional line may wait)."""

from __future__ import annotations


def events_recorded(sender, *, game_id: int, seq: int, **hints) -> None:
    from consumers import framework  # here: the receiver is connected while apps load

    framework.news(game_id, hints)
