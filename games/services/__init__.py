"""Writes. Every change to the server's data goes through here, for people, bots and timers
alike; reads are in `games.selectors`. One module per concern:

- `lobby`: creating games, taking seats, stand-in bots;
- `moves`: a person's move and a move made for a seat, under the game's row lock;
- `bot_turns`: a bot seat's move, and bot turns whose wake-up was lost;
- `conditionals`: lines queued while waiting ("if they play X, I play Y"), played after commit;
- `recording`: what follows every event (cached projection, snapshot, deadlines, waking bots);
- `common`: the row lock, the version check, finding a seat.

The log itself (appending, the hash chain) is `games.log`; the fold is `games.store`. Services
never import `games.tasks`: they name the task they want run (`games.dispatch`).
"""

from games.services.bot_turns import BOT_TURNS, bot_seat_play, bot_seed, bots_stalled
from games.services.conditionals import (
    CONDITIONAL_LINES,
    conditional_cancel,
    conditional_create,
    conditional_preview,
    conditionals_of,
    conditionals_play,
    conditionals_stalled,
)
from games.services.forced import forced_move_play
from games.services.life import abandoned_end, abort, cancel, draw, leave, resign, resign_after_timeouts, takeback
from games.services.lobby import (
    bot_account_seat,
    bot_seat_add,
    game_create,
    game_create_seated,
    game_join,
    invitation_cancel,
    invitation_decline,
    new_seed,
    seat_return,
    stand_in_take,
)
from games.services.moves import Submitted, act, canonical_move, move_submit, seat_act

__all__ = [
    "BOT_TURNS",
    "CONDITIONAL_LINES",
    "Submitted",
    "abandoned_end",
    "abort",
    "cancel",
    "draw",
    "leave",
    "resign",
    "resign_after_timeouts",
    "bot_account_seat",
    "bot_seat_add",
    "bot_seat_play",
    "bot_seed",
    "bots_stalled",
    "canonical_move",
    "conditional_cancel",
    "conditional_create",
    "conditional_preview",
    "conditionals_of",
    "conditionals_play",
    "conditionals_stalled",
    "forced_move_play",
    "game_create",
    "game_create_seated",
    "game_join",
    "invitation_cancel",
    "invitation_decline",
    "act",
    "move_submit",
    "new_seed",
    "seat_act",
    "seat_return",
    "stand_in_take",
    "takeback",
]
