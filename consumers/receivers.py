"""The framework's one receiver of `games.signals.events_recorded`: each listening consumer's
fan-out is asked for (`consumers.framework.news`)."""

from __future__ import annotations


def events_recorded(sender, *, game_id: int, seq: int, **kwargs) -> None:
    from consumers import framework  # here: the receiver is connected while apps load

    framework.news(game_id)
