"""Reads. What each caller may see of a game: its own seat's view, and the log as that seat may
see it (another seat's secret choice shows only as the rules' public form until the game ends).
Writes are in `games.services`. One module per concern; every name below is importable as
`games.selectors.<name>`, as callers use it:

- `access`: which games a caller may see (private games, invitations) and its seat in one;
- `game`: one game as a seat sees it (detail, summary, clocks, legal moves, the answer to a
  move, the board as text, a move read from notation, whether a reply's position still holds);
- `events`: the log as a seat may see it, with notation; what a live stream shares;
- `feeds`: what the apps beside `games` follow (account feed, hooks, mail's fan-out, deadline
  warnings);
- `life`: pending draw offers and takeback requests, seats still playing, the abandonment sweep;
- `catalogues`: the rules and bots this server offers;
- `health`: the database and broker check;
- `competition`: finished games for ratings and tournaments, a profile's current games.

A test that replaces a selector replaces it where its caller looks it up: a caller outside this
package reads `games.selectors.<name>`, a selector inside reads its own module's import.
"""

from games.selectors.access import (
    INVITATION_KEY_CHARACTERS,
    check_invitation,
    game_for,
    game_get,
    game_owner_id,
    games_hidden_from,
    has_taken_a_seat,
    invitation_matches,
    invitation_notice_get,
    invitation_notices_of,
    invitations_of,
    may_see,
    private_game_viewers,
    seat_of,
    visible_games,
)
from games.selectors.catalogues import GAME_DOCS, bots_catalogue, rules_catalogue, rules_detail
from games.selectors.competition import finished_games, games_current, seats_absent
from games.selectors.events import (
    FORCED_KEY_PREFIX,
    STAND_IN,
    event_visible,
    events_seen_by,
    events_since_own_move,
    events_visible,
    move_was_forced,
    starts_game,
)
from games.selectors.feeds import (
    ADJOURNED,
    account_game,
    account_game_of,
    account_games,
    account_seats,
    deadline_warnings,
    game_has_addressees,
    game_started_between,
    games_moved_since,
    games_with_news_since,
)
from games.selectors.game import (
    board_text,
    clocks_of,
    events_after,
    game_detail,
    game_finished,
    game_list,
    game_summary,
    legal_moves_for,
    move_answer,
    move_read,
    move_words,
    moves_unchanged_since,
    public_state,
    seat_moves_at,
    seats_of,
    view_at,
)
from games.selectors.health import health, health_checks
from games.selectors.life import (
    DRAW_ACCEPTED,
    DRAW_DECLINED,
    DRAW_OFFERED,
    TAKEBACK_ACCEPTED,
    TAKEBACK_DECLINED,
    TAKEBACK_REQUESTED,
    draw_offer,
    games_maybe_abandoned,
    last_person_move_at,
    pending_proposals,
    still_playing,
    takeback_request,
)
from games.selectors.seen import presentation_of

__all__ = [
    "ADJOURNED",
    "DRAW_ACCEPTED",
    "DRAW_DECLINED",
    "DRAW_OFFERED",
    "FORCED_KEY_PREFIX",
    "GAME_DOCS",
    "INVITATION_KEY_CHARACTERS",
    "STAND_IN",
    "TAKEBACK_ACCEPTED",
    "TAKEBACK_DECLINED",
    "TAKEBACK_REQUESTED",
    "account_game",
    "account_game_of",
    "account_games",
    "account_seats",
    "board_text",
    "bots_catalogue",
    "check_invitation",
    "clocks_of",
    "deadline_warnings",
    "draw_offer",
    "event_visible",
    "events_after",
    "events_seen_by",
    "events_since_own_move",
    "events_visible",
    "finished_games",
    "game_detail",
    "game_finished",
    "game_for",
    "game_get",
    "game_has_addressees",
    "game_list",
    "game_owner_id",
    "game_started_between",
    "game_summary",
    "games_current",
    "games_hidden_from",
    "games_maybe_abandoned",
    "games_moved_since",
    "games_with_news_since",
    "has_taken_a_seat",
    "health",
    "health_checks",
    "invitation_matches",
    "invitation_notice_get",
    "invitation_notices_of",
    "invitations_of",
    "last_person_move_at",
    "legal_moves_for",
    "may_see",
    "move_answer",
    "move_read",
    "move_was_forced",
    "move_words",
    "moves_unchanged_since",
    "pending_proposals",
    "presentation_of",
    "private_game_viewers",
    "public_state",
    "rules_catalogue",
    "rules_detail",
    "seat_moves_at",
    "seat_of",
    "seats_absent",
    "seats_of",
    "starts_game",
    "still_playing",
    "takeback_request",
    "view_at",
    "visible_games",
]

