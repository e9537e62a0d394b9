"""A game's chat: lines and mutes. A side log beside the game's own, never folded into it.

The tables were made by `games`' migrations and keep their names: the rows never moved, only the
code that owns them."""

from django.conf import settings
from django.db import models


class ChatChannel(models.TextChoices):
    PLAYERS = "players", "the seated players"
    SPECTATORS = "spectators", "everyone else watching"


class ChatMessage(models.Model):
    """A line of a game's chat: a side log, never folded into the game. Players and spectators
    talk apart while the game runs; once it is over everyone reads both."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="chat")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    channel = models.CharField(max_length=12, choices=ChatChannel.choices)
    text = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "games_chatmessage"  # made by games' migrations before this app had its own
        indexes = [models.Index(fields=("game", "channel", "id"), name="chat_game_channel")]


class ChatMute(models.Model):
    """One account no longer sees another's chat lines."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_mutes")
    muted = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")

    class Meta:
        db_table = "games_chatmute"  # made by games' migrations before this app had its own
        constraints = [models.UniqueConstraint(fields=("user", "muted"), name="chat_mute_once")]
