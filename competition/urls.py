from django.urls import path

from apikit.routes import with_and_without_slash
from competition import apis

_routes = [
    path("seeks/", apis.SeeksApi.as_view(), name="seeks"),
    path("seeks/<id:seek_id>/", apis.SeekApi.as_view(), name="seek"),
    path("tournaments/", apis.TournamentsApi.as_view(), name="tournaments"),
    path("tournaments/<id:tournament_id>/", apis.TournamentApi.as_view(), name="tournament"),
    path("tournaments/<id:tournament_id>/trf/", apis.TournamentTrfApi.as_view(), name="tournament-trf"),
    path("tournaments/<id:tournament_id>/start/", apis.TournamentStartApi.as_view(), name="tournament-start"),
    path("tournaments/<id:tournament_id>/entry/", apis.TournamentJoinApi.as_view(), name="tournament-entry"),
    path("tournaments/<id:tournament_id>/byes/", apis.TournamentByesApi.as_view(), name="tournament-byes"),
    path("tournaments/<id:tournament_id>/byes/<int:round_number>/", apis.TournamentByeApi.as_view(),
         name="tournament-bye"),
    path("tournaments/<id:tournament_id>/entrants/<id:entrant_id>/", apis.TournamentEntrantApi.as_view(),
         name="tournament-entrant"),
    path("tournaments/<id:tournament_id>/bots/", apis.TournamentBotsApi.as_view(), name="tournament-bots"),
    path("leaderboards/", apis.LeaderboardsApi.as_view(), name="leaderboards"),
    path("leaderboards/<str:rules_id>/<str:time_class>/", apis.LeaderboardApi.as_view(), name="leaderboard"),
    path("players/<str:username>/", apis.PlayerApi.as_view(), name="player"),
]

urlpatterns = with_and_without_slash(_routes)
