"""A game's chat (`chat.services`): where the caller talks, and the lines it may read."""

from __future__ import annotations

from typing import Any

from django.db.models import Max

from chat.models import ChatChannel, ChatMessage, ChatMute
from games import selectors as game_selectors


def chat_channel(*, game: Any, user: Any) -> str:
    """Where the caller talks: with the players if seated, else with the spectators."""
    return ChatChannel.PLAYERS if game_selectors.seat_of(game=game, user=user) is not None else ChatChannel.SPECTATORS


def chat_lines(*, game: Any, user: Any, after: int = 0, limit: int = 200, since: Any = None) -> list[dict[str, Any]]:
    """The chat lines the caller may read after id `after` (and, given `since`, written after
    that time): its own channel while the game runs, both once it is over; none from accounts
    it muted."""
    lines = ChatMessage.objects.filter(game=game, id__gt=after).select_related("user").order_by("id")
    if since is not None:
        lines = lines.filter(created_at__gt=since)
    if not game_selectors.game_finished(game):
        lines = lines.filter(channel=chat_channel(game=game, user=user))
    if user.is_authenticated:
        lines = lines.exclude(user__in=ChatMute.objects.filter(user=user).values("muted"))
    return [
        {"id": line.pk, "channel": line.channel, "username": line.user.username, "text": line.text, "at": line.created_at}
        for line in lines[:limit]
    ]


def chat_resume_point(*, game_id: int, after: int) -> int:
    """Where a reader resuming after line `after` goes on from: an id past the game's newest line
    (a typo, another installation's, a database restored from an older backup) is read as that
    line, so the next line said is sent; line ids only grow, and every game shares them."""
    if not after:
        return 0
    newest = ChatMessage.objects.filter(game_id=game_id).aggregate(newest=Max("id"))["newest"] or 0
    return min(after, newest)
