"""A game's chat: a side log beside the game's, never folded into its state. Seated players talk
in the `players` channel, everyone else in `spectators`; a line is at most 500 characters, an
account writes at most CHAT_PER_MINUTE lines a minute in a game, and each account may mute
others (their lines are left out of what it reads)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from apikit.errors import InvalidInput
from apikit.text import one_line
from chat import selectors as chat_selectors
from chat.errors import ChatTooFast
from chat.models import ChatMessage, ChatMute
from games import announce, selectors, time_controls
from rules.words import msg

MAX_LENGTH = 500


def chat_post(*, game_id: int, user: Any, text: str, invitation: str = "") -> ChatMessage:
    game = selectors.game_for(game_id=game_id, user=user, invitation=invitation)
    text = one_line(str(text))
    if not text or len(text) > MAX_LENGTH:
        raise InvalidInput(msg("a chat line has 1 to {max_length} characters", max_length=MAX_LENGTH), fields={"text": ["1 to 500 characters"]})
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one count at a time per account
        since = time_controls.now() - dt.timedelta(minutes=1)
        if ChatMessage.objects.filter(game=game, user=user, created_at__gte=since).count() >= settings.SCRAPYARD_CHAT_PER_MINUTE:
            raise ChatTooFast(msg("at most {scrapyard_chat_per_minute} lines a minute in a game: wait a little", scrapyard_chat_per_minute=settings.SCRAPYARD_CHAT_PER_MINUTE))
        line = ChatMessage.objects.create(game=game, user=user, channel=chat_selectors.chat_channel(game=game, user=user), text=text)
        announce.chat_after_commit(game, line.pk)
    return line


def chat_mute(*, user: Any, username: str, muted: bool = True) -> None:
    other = get_user_model().objects.filter(username=username).first()
    if other is None or other.pk == user.pk:
        raise InvalidInput(msg("no other account named {username!r}", username=username), fields={"username": ["unknown account"]})
    if muted:
        ChatMute.objects.get_or_create(user=user, muted=other)
    else:
        ChatMute.objects.filter(user=user, muted=other).delete()
