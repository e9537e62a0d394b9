from django.urls import path

from apikit.routes import with_and_without_slash
from games import apis, conditional_apis, record_api, rematch
from project import throttles

_routes = [
    # The routes of play first: Django tries the patterns in order, on every request.
    path("games/<id:game_id>/moves/", apis.MoveSubmitApi.as_view(), name="game-moves"),
    path("games/<id:game_id>/", apis.GameDetailApi.as_view(), name="game-detail"),
    path("games/<id:game_id>/legal-moves/", apis.GameLegalMovesApi.as_view(), name="game-legal-moves"),
    path("games/<id:game_id>/events/", apis.GameEventsApi.as_view(), name="game-events"),
    path("rules/", apis.RulesListApi.as_view(), name="rules-list"),
    path("rules/<str:rules_id>/", apis.RulesDetailApi.as_view(), name="rules-detail"),
    path("games/", apis.GameListCreateApi.as_view(), name="game-list"),
    path("games/<id:game_id>/join/", apis.GameJoinApi.as_view(), name="game-join"),
    path("games/<id:game_id>/decline/", apis.GameDeclineApi.as_view(), name="game-decline"),
    path("games/<id:game_id>/invitations/<str:username>/", apis.GameInvitationCancelApi.as_view(),
         name="game-invitation-cancel"),
    path("invitations/", apis.InvitationsApi.as_view(), name="invitations"),
    path("games/<id:game_id>/bots/", apis.GameBotAddApi.as_view(), name="game-bots"),
    path("games/<id:game_id>/return/", apis.GameSeatReturnApi.as_view(), name="game-seat-return"),
    path("games/<id:game_id>/resign/", apis.GameResignApi.as_view(), name="game-resign"),
    path("games/<id:game_id>/abort/", apis.GameAbortApi.as_view(), name="game-abort"),
    path("games/<id:game_id>/leave/", apis.GameLeaveApi.as_view(), name="game-leave"),
    path("games/<id:game_id>/cancel/", apis.GameCancelApi.as_view(), name="game-cancel"),
    path("games/<id:game_id>/draw/", apis.GameDrawApi.as_view(), name="game-draw"),
    path("games/<id:game_id>/takeback/", apis.GameTakebackApi.as_view(), name="game-takeback"),
    path("bots/", apis.BotListApi.as_view(), name="bot-list"),
    path("games/<id:game_id>/state/", apis.GameStateApi.as_view(), name="game-state"),
    path("health/", throttles.never_refused(apis.HealthApi.as_view()), name="health"),
    path("games/<id:game_id>/record/", record_api.GameRecordApi.as_view(), name="game-record"),
    path("players/<str:username>/games/", record_api.PlayerGamesExportApi.as_view(), name="player-games-export"),
    path("games/<id:game_id>/conditionals/", conditional_apis.ConditionalsApi.as_view(), name="game-conditionals"),
    path("games/<id:game_id>/rematch/", rematch.RematchApi.as_view(), name="game-rematch"),
    path("games/<id:game_id>/conditionals/preview/", conditional_apis.ConditionalPreviewApi.as_view(),
         name="game-conditional-preview"),
    path("games/<id:game_id>/conditionals/<uuid:line_id>/", conditional_apis.ConditionalCancelApi.as_view(),
         name="game-conditional-cancel"),
]

urlpatterns = [
    *with_and_without_slash(_routes),
    path("games/<id:game_id>/board.txt", apis.GameBoardTextApi.as_view(), name="game-board-text"),
]
