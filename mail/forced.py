"""Forced moves as a consumer of the log (`consumers.framework`, decision 0021, "Fourth step"): a
seat whose only legal move is forced, whose account plays by email and chose it, has that move
played for it (`mail.services.forced`). The notice is one row per (game, seq) where such an
account is to act, the delivery the move; the cursor, the lease, the retries, the sweep and the
queue (mail's) are the framework's. A game none of whose seated accounts has its forced moves
played is not listened to (`listens_to`, cached): its moves pay nothing here.

The fan-out's worker plays the move at once (`attempt_in_fan_out`), so a forced move is one
message after the commit that made it due, and its own commit brings the consumer back: a run of
forced moves plays out. It is registered before mail (`mail.consumer`), so its fan-out is sent
first and a forced move played spares the mail that would have asked for it."""

from __future__ import annotations

import datetime as dt
from typing import Any

from consumers import framework
from games import errors, selectors
from mail.services import forced

NAME = "forced"
GAME = 0  # the one recipient of a game's forced moves: its seats together


class ForcedMoves(framework.Consumer):
    name = NAME
    queue = "mail"  # with mail's fan-outs and sends, ahead of them (decision 0035)
    attempt_in_fan_out = True
    retry_waits = (1, 5, 30, 120)  # a worker's error: soon, then less often
    lease_seconds = 30.0  # a forced move is one fold through the writer
    missed_sweep_seconds = 5.0  # as mail's: a lost forced move holds up a game
    # Every open or active game of a forced-move account is followed whatever the look-back
    # (`games_moved_since`); this only adds the games that ended since.
    look_back = dt.timedelta(minutes=1)

    def listens_to(self, game_id: int) -> bool:
        return forced.game_has_forced_players(game_id=game_id)

    def recipients(self, game_id: int) -> dict[int, int | None]:
        return {GAME: None}

    def game(self, game_id: int, seat: int | None) -> dict[str, Any]:
        try:
            game = selectors.game_get(game_id=game_id)
        except errors.GameNotFound:
            return {"game": game_id, "seq": 0}
        to_act = [row.user_id for row in game.seat_rows() if row.user_id and row.index in game.to_act]
        return {"game": game_id, "seq": game.seq, "status": game.status, "accounts_to_act": to_act}

    def notices(self, recipient: int, seat: int | None, game: dict[str, Any], after: int) -> list[dict[str, Any]]:
        """A row when an account whose forced moves are played is to act; whether its move is
        forced is the delivery's to find out (the rules' fold)."""
        if game["status"] != "active" or not forced.forced_players(game["accounts_to_act"]):
            return []
        return [framework.message(recipient=GAME, kind="forced", game_id=game["game"], seq=game["seq"],
                                  key=f"forced:{game['game']}:{game['seq']}")]

    def followed(self, since: dt.datetime) -> list[dict[str, Any]]:
        return [{"game": game_id, "seq": seq, "recipients": [GAME]}
                for game_id, seq in forced.forced_moves_followed(since=since)]

    def deliver(self, row: Any) -> framework.Outcome:
        forced.forced_moves_play(game_id=row.game_id, seq=row.seq)
        return framework.Outcome(delivered=True)
