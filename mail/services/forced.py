"""Mail out, forced moves: a seat with only one legal move, whose account plays by email and chose
it, has that move played for it (and so is not mailed for it)."""

from __future__ import annotations

import datetime as dt

from accounts import selectors as account_selectors
from games import dispatch, selectors, services, time_controls
from mail.services.preferences import preference_of

FORCED = "mail.forced_moves"
FORCED_LOOK_BACK = dt.timedelta(minutes=1)


def forced_moves_play(*, game_id: int) -> int:
    """Play, for each seated account with an address that chose it (the default), its seat's
    only legal move, as its own move (`games.services.forced_move_play`, keyed by game, seq and
    seat). The move's commit brings the game here again, so a run of forced moves plays out."""
    game = selectors.game_get(game_id=game_id)
    if game.status != "active":
        return 0
    played = 0
    for user_id, seat in selectors.account_seats(game_id=game_id).items():
        if seat not in game.to_act or not forced_moves_wanted(user_id):
            continue
        if services.forced_move_play(game_id=game_id, seq=game.seq, user=account_selectors.user_get(user_id=user_id)):
            played += 1
            break  # the game moved on: the next look is the commit's
    return played


def forced_moves_wanted(user_id: int) -> bool:
    account = account_selectors.mail_account(user_id=user_id)
    return bool(account and account["email"]) and preference_of(user_id).play_forced


def forced_moves_missed(*, at: dt.datetime | None = None) -> int:
    """Ask again for the forced moves of every game moved in the last minute (a lost request
    is caught within a beat or two; a forced move is due at once, so an older game is not)."""
    at = at or time_controls.now()
    moved = selectors.games_moved_since(user_ids=account_selectors.accounts_with_any_email(), game_ids=[], since=at - FORCED_LOOK_BACK)
    for game in moved:
        dispatch.send(FORCED, (game["game"],))
    return len(moved)
