"""The text board a reader gets from `board.txt` and the game page without JavaScript: the
rules' board (`render_text`) and under it the presentation in the words mails use
(`rules.presentation.text_lines`), so every text surface shows the panels and the prompt alike.
A read, kept beside the selectors it is built from."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from games import selectors, words
from games.models import EventKind, Game, GameStatus
from games.selectors import seen
from rules.presentation import text_lines


def player_name(seat: dict[str, Any]) -> str:
    """Who sits in a seat as the API describes it, in every surface's words (page, mail, text)."""
    if seat.get("username"):
        return seat["username"]
    if seat.get("bot"):
        return gettext("bot %(name)s") % {"name": seat["bot"]["name"]}
    return gettext("open seat")


def mover_name(event: dict[str, Any]) -> str | None:
    """The name a log line shows before a seat's move (`events_visible` with notation): its player
    then (`by`), not the seat's player now. None before a system event, whose words name its
    player themselves ("ann takes a seat"), and before an event of no seat."""
    if event["seat"] is None or event["kind"] == EventKind.SYSTEM:
        return None
    return player_name(event["by"]) if event.get("by") else gettext("seat %(seat)s") % {"seat": event["seat"]}


def board_and_panels(*, game: Game, user: Any) -> str:
    seat = selectors.seat_of(game=game, user=user)
    # Both worked out once per (game, seq, seat) and kept in the rules' English (`games.selectors.seen`,
    # shared by readers of every language): written in this reader's language only here, as they are read.
    kept_board, kept_presentation = seen.board_presented(game=game, seat=seat)
    shown = words.translated(kept_presentation)
    names = [player_name(one) for one in selectors.seats_of(game=game)]
    acting = game.to_act if game.status == GameStatus.ACTIVE else []
    lines = text_lines(shown, names, you=seat, acting=acting, say=words.translated)
    board = words.text_lines(kept_board).rstrip("\n")
    return "\n".join([board, "", *lines]) + "\n" if lines else board + "\n"
