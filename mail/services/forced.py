"""Mail out, forced moves: a seat with only one legal move, whose account plays by email and chose
it, has that move played for it (and so is not mailed for it). When is the consumer's to say
(`mail.forced.ForcedMoves`, a consumer of the log on mail's queue: one row per (game, seq), the
framework's lease, retries and sweep); what is played, for whom, is said here."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from accounts import selectors as account_selectors
from games import selectors, services
from mail.models import Preference


def forced_moves_play(*, game_id: int, seq: int | None = None) -> int:
    """Play, for each seated account with an address that chose it (the default), its seat's
    only legal move, as its own move (`games.services.forced_move_play`, keyed by game, seq and
    seat), if the game is still at `seq` (when given). The move's commit brings the game here
    again, so a run of forced moves plays out."""
    game = selectors.game_get(game_id=game_id)
    if game.status != "active" or (seq is not None and game.seq != seq):
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
    return user_id in forced_players([user_id])


def forced_players(user_ids: Iterable[int]) -> set[int]:
    """Of these accounts, those whose forced moves the server plays: an address given, and forced
    moves not turned off (on by default, before any preference is stored). Reads only."""
    with_address = account_selectors.accounts_with_any_email(among=user_ids)
    declined = Preference.objects.filter(user_id__in=with_address, play_forced=False).values_list("user_id", flat=True)
    return set(with_address) - set(declined)


def game_has_forced_players(*, game_id: int) -> bool:
    """Whether one of the game's seated accounts has its forced moves played (the consumer's
    `listens_to`: a game with none pays nothing per move)."""
    return bool(forced_players(selectors.account_seats(game_id=game_id)))


def forced_moves_followed(*, since: dt.datetime) -> list[tuple[int, int]]:
    """(game, seq) of the games the sweep looks at for forced moves lost (the framework's
    `followed`): those open or being played, or moved since `since`, where an account whose
    forced moves are played is seated."""
    players = forced_players(account_selectors.accounts_with_any_email())
    moved = selectors.games_moved_since(user_ids=sorted(players), game_ids=[], since=since)
    return [(game["game"], game["seq"]) for game in moved]
