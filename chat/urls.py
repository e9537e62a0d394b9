from django.urls import path

from apikit.routes import with_and_without_slash
from chat import apis

urlpatterns = with_and_without_slash([
    path("games/<id:game_id>/chat/", apis.GameChatApi.as_view(), name="game-chat"),
    path("accounts/me/mutes/", apis.ChatMuteApi.as_view(), name="chat-mutes"),
])
