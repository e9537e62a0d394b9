"""A person's clocks across their games: a vacation stops the correspondence and bank clocks of
every game they sit in, and its end starts them again, each game as a change of its own."""

from __future__ import annotations

import datetime as dt
from typing import Any

from games import deadlines, writer
from games.models import GameStatus, Seat


def clocks_of_user_set(user: Any, at: dt.datetime, *, running: bool) -> None:
    seated = Seat.objects.filter(user=user, game__status=GameStatus.ACTIVE).values_list("game_id", "index")
    for game_id, index in sorted(seated):
        writer.write(game_id, lambda change, seat=index: deadlines.clock_set(change.game, seat, at, running=running))
