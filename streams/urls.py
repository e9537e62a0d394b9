from django.urls import path

from streams import views

urlpatterns = [
    path("games/<id:game_id>/stream/", views.game_stream, name="game-stream"),
    path("games/<id:game_id>/stream", views.game_stream),
    path("games/<id:game_id>/chat/stream/", views.chat_stream, name="chat-stream"),
    path("games/<id:game_id>/chat/stream", views.chat_stream),
    path("stream/", views.account_stream, name="account-stream"),
    path("stream", views.account_stream),
]
