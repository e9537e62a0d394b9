from django.contrib.auth import views as auth_views
from django.urls import path
from django.views.i18n import JavaScriptCatalog

from project.throttles import password_form_limited
from web import views

app_name = "web"

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("language/", views.language, name="language"),
    # The scripts' words (djangojs.po) for the reader's language: gettext() and friends.
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("signup/", password_form_limited(views.signup, per_username=False), name="signup"),
    path("login/", password_form_limited(auth_views.LoginView.as_view(template_name="web/login.html")), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/", views.account, name="account"),
    path("account/mail-addresses/", views.mail_addresses, name="mail-addresses"),
    path("games/new/", views.new_game, name="new-game"),
    path("games/<id:game_id>/", views.game, name="game"),
    path("leaderboards/", views.leaderboards, name="leaderboards"),
    path("players/<str:username>/", views.player, name="player"),
    path("tournaments/", views.tournaments, name="tournaments"),
    path("tournaments/new/", views.new_tournament, name="new-tournament"),
    path("tournaments/<id:tournament_id>/", views.tournament, name="tournament"),
]
