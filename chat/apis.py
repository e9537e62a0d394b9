"""The chat's API: a game's lines (players and spectators apart while it runs) and mutes."""

from __future__ import annotations

from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response

from accounts import auth
from apikit.schema import operation
from apikit.views import ScopedApi, invitation_of, validated
from chat import schema, selectors, services
from games import selectors as game_selectors


class GameChatApi(ScopedApi):
    """A game's chat: players and spectators apart while it runs (`chat.services`)."""

    def get_permissions(self):
        allowed = IsAuthenticated() if self.request.method == "POST" else AllowAny()
        return [allowed, auth.TokenScopes()]

    class ChatFilterSerializer(serializers.Serializer):
        after = serializers.IntegerField(min_value=0, required=False, default=0, help_text="only lines after this id")

    class ChatInputSerializer(serializers.Serializer):
        text = serializers.CharField(max_length=500, help_text="one line, 1 to 500 characters")

    @operation("gameChat", summary="The game's chat lines you may read (your channel; both once the game is over)",
               answer=schema.ChatPage, parameters=[ChatFilterSerializer], game=True, codes=["invalid_input"], scope="read")
    def get(self, request, game_id: int):
        after = validated(self.ChatFilterSerializer, request.query_params)["after"]
        game = game_selectors.game_for(game_id=game_id, user=request.user, invitation=invitation_of(request))
        return Response({"channel": selectors.chat_channel(game=game, user=request.user),
                         "lines": selectors.chat_lines(game=game, user=request.user, after=after)})

    @operation("gameChatPost", summary="Say something in the game's chat", answer=schema.ChatLine, status=201,
               request=ChatInputSerializer, body=True, auth="required", game=True,
               codes=["invalid_input", "chat_too_fast"], scope="play")
    def post(self, request, game_id: int):
        text = validated(self.ChatInputSerializer, request.data)["text"]
        line = services.chat_post(game_id=game_id, user=request.user, text=text, invitation=invitation_of(request))
        return Response({"id": line.pk, "channel": line.channel, "username": request.user.username, "text": line.text,
                         "at": line.created_at}, status=status.HTTP_201_CREATED)


class ChatMuteApi(ScopedApi):
    """A mute is the account's own setting, read in every game's chat (`/api/accounts/me/mutes/`,
    beside the account's other settings): scope `account`, as they are, not `play`."""

    permission_classes = (IsAuthenticated,)
    scopes = {"POST": "account"}

    class MuteInputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        muted = serializers.BooleanField(required=False, default=True, help_text="false lifts the mute")

    @operation("chatMute", summary="Mute (or unmute) another account's chat lines for you", answer=None, status=204,
               request=MuteInputSerializer, body=True, auth="required", codes=["invalid_input"], scope="account")
    def post(self, request):
        data = validated(self.MuteInputSerializer, request.data)
        services.chat_mute(user=request.user, username=data["username"], muted=data["muted"])
        return Response(status=status.HTTP_204_NO_CONTENT)
