"""A game's chat in its mails: the lines others wrote since the last mail the reader got about
the game, shown near the top of the next one (`compose.chat_lines`). Lines come from the chat
selector, so a mail shows only what the reader's channel may read and nothing it muted."""

from __future__ import annotations

from typing import Any

from chat import selectors as chat_selectors
from mail.models import Outgoing

SHOWN = 20  # a longer talk is cut to its newest lines: the rest is on the game's page


def new_chat(user: Any, game: Any) -> list[dict[str, Any]]:
    last = (Outgoing.objects.filter(user_id=user.pk, game_id=game.pk).exclude(kind__in=("digest", "verify"))
            .order_by("-pk").values_list("created_at", flat=True).first())
    lines = [line for line in chat_selectors.chat_lines(game=game, user=user, since=last, limit=500)
             if line["username"] != user.username]
    return lines[-SHOWN:]
