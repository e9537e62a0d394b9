"""What competition does when `games` finishes a game: ask a worker to rate it and to move its
tournament on. A lost message is caught by the sweep (`competition.tasks.sweep`)."""

from __future__ import annotations

import logging

from games import dispatch

log = logging.getLogger(__name__)

GAME_FINISHED = "competition.game_finished"


def game_finished(sender, *, game_id: int, **kwargs) -> None:
    try:
        dispatch.send(GAME_FINISHED, (game_id,))
    except Exception as error:  # the broker away: the sweep rates the game within seconds
        log.warning("rating of game %s not sent (%s); the sweep will rate it", game_id, error)
