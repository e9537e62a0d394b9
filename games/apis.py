"""The REST API. Each view validates an input serializer, calls one service or selector, and
renders the result (the kit: `apikit.views`); errors become {code, detail} in
`apikit.http_errors.exception_handler`."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from rest_framework import serializers, status
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import auth
from apikit.schema import operation
from apikit.views import PlainTextApi, ScopedApi, invitation_of, validated
from games import errors, schema, selectors, services, text_board
from rules.words import msg


class RulesListApi(ScopedApi):
    permission_classes = (AllowAny,)

    @operation("rulesList", summary="Every game this server plays, with its options", answer=schema.RulesDescription(many=True), scope="read")
    def get(self, request):
        return Response(selectors.rules_catalogue())


class RulesDetailApi(ScopedApi):
    permission_classes = (AllowAny,)

    @operation("rulesGet", summary="One game: its options, the JSON Schema of its moves, and its page for players",
               answer=schema.RulesDetail, codes=["rules_not_found", "not_found"], scope="read")
    def get(self, request, rules_id: str):
        return Response(selectors.rules_detail(rules_id=rules_id))


class GamePagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200


class GameListCreateApi(ScopedApi):
    class GameListFilterSerializer(serializers.Serializer):
        status = serializers.CharField(required=False, allow_blank=True)
        mine = serializers.BooleanField(required=False, default=False)

    class GameCreateInputSerializer(serializers.Serializer):
        rules = serializers.CharField(max_length=40)
        players = serializers.IntegerField()
        options = serializers.DictField(required=False, default=dict)
        bots = serializers.ListField(child=schema.BotSeatField(), required=False, default=list)
        time_control = schema.TimeControlField(required=False, default=dict, allow_null=True)  # games.time_controls checks it
        timeout_policy = serializers.CharField(required=False, default="auto")
        creator_plays = serializers.BooleanField(required=False, default=True)
        private = serializers.BooleanField(required=False, default=False, help_text="unlisted: joined by invitation only")
        timeouts_to_resign = serializers.IntegerField(required=False, default=3, min_value=0, max_value=10,
                                                      help_text="timeouts in a row that resign a seat (0: never)")
        invitees = serializers.ListField(child=serializers.CharField(max_length=150), required=False, default=list,
                                         max_length=20, help_text="usernames invited to a private game")
        rated = serializers.BooleanField(required=False, default=False,
                                         help_text="the result changes the players' ratings (needs a time control; "
                                                   "a private game is never rated)")

    def get_permissions(self):
        allowed = IsAuthenticated() if self.request.method == "POST" else AllowAny()
        return [allowed, auth.TokenScopes()]

    @operation("gameList", summary="Games, newest first: filter by status, or only yours", answer=schema.GamePage,
               parameters=[GameListFilterSerializer, *schema.PAGE], codes=["invalid_input"], scope="read")
    def get(self, request):
        filters = validated(self.GameListFilterSerializer, request.query_params)
        games = selectors.game_list(user=request.user, status=filters.get("status"), mine=filters["mine"])
        paginator = GamePagination()
        page = paginator.paginate_queryset(games, request, view=self)
        return paginator.get_paginated_response([selectors.game_summary(game=game) for game in page])

    @operation("gameCreate", summary="Create a game (you take seat 0 unless creator_plays is false)",
               answer=schema.GameDetail, status=201, request=GameCreateInputSerializer, body=True, auth="required",
               codes=["unknown_rules", "invalid_option", "unknown_bot", "invalid_level"], rules_statuses=[400], scope="play")
    def post(self, request):
        data = validated(self.GameCreateInputSerializer, request.data)
        game = services.game_create(
            creator=request.user,
            rules_id=data["rules"],
            players=data["players"],
            options=data["options"],
            bot_seats=data["bots"],
            time_control=data["time_control"],
            timeout_policy=data["timeout_policy"],
            creator_plays=data["creator_plays"],
            private=data["private"],
            invitees=data["invitees"],
            timeouts_to_resign=data["timeouts_to_resign"],
            rated=data["rated"],
        )
        return Response(selectors.game_detail(game=game, user=request.user), status=status.HTTP_201_CREATED)


class GameDetailApi(ScopedApi):
    permission_classes = (AllowAny,)

    @operation("gameGet", summary="A game as your seat (or a spectator) sees it, with your legal moves when you are to act", answer=schema.GameDetail,
               game=True, codes=["log_damaged", "rules_version_gone"], scope="read")
    def get(self, request, game_id: int):
        game = selectors.game_for(game_id=game_id, user=request.user, invitation=invitation_of(request))
        return Response(selectors.game_detail(game=game, user=request.user))


class GameJoinApi(ScopedApi):
    permission_classes = (IsAuthenticated,)

    class JoinInputSerializer(serializers.Serializer):
        invitation = serializers.CharField(max_length=64, required=False, help_text="a private game's invitation key (from its link)")

    @operation("gameJoin", summary="Take the next free seat of an open game (a private one: with an invitation)",
               answer=schema.GameDetail, status=201, request=JoinInputSerializer, body=True, auth="required", game=True,
               codes=["game_not_open", "already_seated", "log_damaged", "rules_version_gone"], scope="play")
    def post(self, request, game_id: int):
        data = validated(self.JoinInputSerializer, request.data if isinstance(request.data, dict) else {})
        services.game_join(game_id=game_id, user=request.user, invitation=data.get("invitation", ""))
        game = selectors.game_for(game_id=game_id, user=request.user, invitation=invitation_of(request))
        return Response(selectors.game_detail(game=game, user=request.user), status=status.HTTP_201_CREATED)


class GameDeclineApi(ScopedApi):
    permission_classes = (IsAuthenticated,)

    @operation("gameInvitationDecline", summary="Decline your invitation to a private game", answer=None, status=204,
               auth="required", game=True, scope="play")
    def post(self, request, game_id: int):
        services.invitation_decline(game_id=game_id, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class GameInvitationCancelApi(ScopedApi):
    permission_classes = (IsAuthenticated,)
    scopes = {"DELETE": "play"}  # a method `scopes` does not name is checked for no scope at all

    @operation("gameInvitationCancel", summary="Cancel your invitation of an account to your private game",
               answer=None, status=204, auth="required", game=True, scope="play",
               codes=["not_the_creator", "invalid_input"])
    def delete(self, request, game_id: int, username: str):
        services.invitation_cancel(game_id=game_id, user=request.user, username=username)
        return Response(status=status.HTTP_204_NO_CONTENT)


class InvitationsApi(ScopedApi):
    permission_classes = (IsAuthenticated,)

    @operation("invitationList", summary="The private games you are invited to (not declined)",
               answer=schema.InvitationInfo(many=True), auth="required", scope="read")
    def get(self, request):
        return Response(selectors.invitations_of(user=request.user))


class GameBotAddApi(ScopedApi):
    """Seat one of the server's bots (`bot`, `level`) or a bot account (`account`)."""

    permission_classes = (IsAuthenticated,)

    class BotSeatInputSerializer(serializers.Serializer):
        bot = serializers.CharField(max_length=20, required=False, help_text="one of GET /api/bots/")
        level = serializers.IntegerField(required=False)
        account = serializers.CharField(max_length=150, required=False, help_text="a bot account's username")

        def validate(self, data):
            if ("bot" in data) == ("account" in data):
                raise serializers.ValidationError("name either a bot or a bot account")
            return data

    @operation("gameBotAdd", summary="Seat a bot, or a bot account, in the next free seat of an open game",
               answer=schema.GameDetail, status=201, request=BotSeatInputSerializer, body=True, auth="required",
               game=True, scope="play",
               codes=["game_not_open", "not_a_player", "unknown_bot", "invalid_level", "not_a_bot_account",
                      "already_seated", "log_damaged", "rules_version_gone"])
    def post(self, request, game_id: int):
        data = validated(self.BotSeatInputSerializer, request.data)
        if "account" in data:
            services.bot_account_seat(game_id=game_id, user=request.user, account=data["account"])
        else:
            services.bot_seat_add(game_id=game_id, user=request.user, bot=data["bot"], level=data.get("level"))
        game = selectors.game_for(game_id=game_id, user=request.user, invitation=invitation_of(request))
        return Response(selectors.game_detail(game=game, user=request.user), status=status.HTTP_201_CREATED)


class _GameLifeApi(ScopedApi):
    """A player's call on the game's life (`games.services.life`); answers the game as it is now."""

    permission_classes = (IsAuthenticated,)

    def answer(self, request, game_id: int, status_code: int = status.HTTP_200_OK):
        game = selectors.game_for(game_id=game_id, user=request.user, invitation=invitation_of(request))
        return Response(selectors.game_detail(game=game, user=request.user), status=status_code)


class GameResignApi(_GameLifeApi):
    @operation("gameResign", summary="Resign: leave the game for good (again: the same answer)", answer=schema.GameDetail,
               auth="required", game=True, codes=["not_a_player", "game_not_active", "log_damaged", "rules_version_gone"],
               scope="play")
    def post(self, request, game_id: int):
        services.resign(game_id=game_id, user=request.user)
        return self.answer(request, game_id)


class GameAbortApi(_GameLifeApi):
    @operation("gameAbort", summary="Abort the game before every seat has moved: it ends with no result, never rated",
               answer=schema.GameDetail, auth="required", game=True,
               codes=["not_a_player", "game_not_active", "too_late_to_abort", "log_damaged", "rules_version_gone"],
               scope="play")
    def post(self, request, game_id: int):
        services.abort(game_id=game_id, user=request.user)
        return self.answer(request, game_id)


class GameLeaveApi(_GameLifeApi):
    @operation("gameLeave", summary="Leave an open game before it starts (its creator cancels it instead)",
               answer=schema.GameDetail, auth="required", game=True,
               codes=["not_a_player", "game_not_open", "creator_cannot_leave", "log_damaged", "rules_version_gone"],
               scope="play")
    def post(self, request, game_id: int):
        services.leave(game_id=game_id, user=request.user)
        return self.answer(request, game_id)


class GameCancelApi(_GameLifeApi):
    @operation("gameCancel", summary="Cancel an open game you made, before it starts", answer=schema.GameDetail,
               auth="required", game=True, codes=["not_the_creator", "game_not_open", "log_damaged", "rules_version_gone"],
               scope="play")
    def post(self, request, game_id: int):
        services.cancel(game_id=game_id, user=request.user)
        return self.answer(request, game_id)


class GameDrawApi(_GameLifeApi):
    class DrawInputSerializer(serializers.Serializer):
        action = serializers.ChoiceField(choices=["offer", "accept", "decline"],
                                         help_text="offer a draw, or accept or decline the one on offer")

    @operation("gameDraw", summary="Offer a draw, or accept or decline the one on offer (all accept: a shared result)",
               answer=schema.GameDetail, request=DrawInputSerializer, body=True, auth="required", game=True,
               codes=["not_a_player", "game_not_active", "no_draw_offered", "log_damaged", "rules_version_gone"],
               scope="play")
    def post(self, request, game_id: int):
        data = validated(self.DrawInputSerializer, request.data)
        services.draw(game_id=game_id, user=request.user, action=data["action"])
        return self.answer(request, game_id)


class GameTakebackApi(_GameLifeApi):
    class TakebackInputSerializer(serializers.Serializer):
        action = serializers.ChoiceField(choices=["request", "accept", "decline"],
                                         help_text="ask to undo your last move, or accept or decline another's request")

    @operation("gameTakeback", summary="Ask to take back your last move, or accept or decline a request (all accept: undone)",
               answer=schema.GameDetail, request=TakebackInputSerializer, body=True, auth="required", game=True,
               codes=["not_a_player", "game_not_active", "takeback_refused", "no_takeback_requested", "log_damaged",
                      "rules_version_gone"], scope="play")
    def post(self, request, game_id: int):
        data = validated(self.TakebackInputSerializer, request.data)
        services.takeback(game_id=game_id, user=request.user, action=data["action"])
        return self.answer(request, game_id)


class GameSeatReturnApi(ScopedApi):
    """The owner of a seat a stand-in bot plays after a timeout takes it back."""

    permission_classes = (IsAuthenticated,)

    @operation("gameSeatReturn", summary="Take back your seat from the stand-in bot", answer=schema.GameDetail,
               auth="required", game=True, codes=["not_a_player", "log_damaged", "rules_version_gone"], scope="play")
    def post(self, request, game_id: int):
        services.seat_return(game_id=game_id, user=request.user)
        game = selectors.game_for(game_id=game_id, user=request.user, invitation=invitation_of(request))
        return Response(selectors.game_detail(game=game, user=request.user))


class BotListApi(ScopedApi):
    permission_classes = (AllowAny,)

    @operation("botList", summary="Every bot, with its levels", answer=schema.BotDescription(many=True), scope="read")
    def get(self, request):
        return Response(selectors.bots_catalogue())


class GameLegalMovesApi(ScopedApi):
    permission_classes = (IsAuthenticated,)

    @operation("legalMoves", summary="Your legal moves now (none unless your seat is to act)", answer=schema.LegalMoves,
               auth="required", game=True, codes=["not_a_player", "log_damaged", "rules_version_gone"], scope="read")
    def get(self, request, game_id: int):
        game = selectors.game_for(game_id=game_id, user=request.user, invitation=invitation_of(request))
        return Response(selectors.legal_moves_for(game=game, user=request.user))


class MoveSubmitApi(ScopedApi):
    permission_classes = (IsAuthenticated,)

    class VersionSerializer(serializers.Serializer):
        expected_seq = serializers.IntegerField(min_value=0)

    @operation("moveSubmit", summary="Play a move; the answer holds the game after it and your next moves",
               answer=schema.MoveAnswer, status=201, request=schema.Move,
               parameters=[schema.IDEMPOTENCY_KEY], body=True, auth="required", game=True,
               codes=["stale_seq", "not_a_player", "game_not_active", "deadline_passed", "not_your_turn",
                      "malformed_move", "unknown_field", "illegal_move", "idempotency_key_reused", "log_damaged",
                      "rules_version_gone"],
               rules_statuses=[400, 422], scope="play")
    def post(self, request, game_id: int):
        body, headers = move_played(game_id, request.user, request.data, request.META.get("HTTP_IDEMPOTENCY_KEY"))
        return Response(body, status=status.HTTP_201_CREATED, headers=headers)


def move_played(game_id: int, user: Any, data: Any, key: str | None) -> tuple[dict[str, Any], dict[str, str]]:
    """A move POST's work once its caller may play: the body read, the move played, the answer
    and its headers."""
    # The version is judged before anything else about the move, so a stale client learns
    # that first: only `expected_seq` is read here, the move is the rules' business.
    expected_seq = _expected_seq(data)
    key = key or None
    if key is not None and len(key) > 200:
        raise errors.InvalidInput(msg("the Idempotency-Key header is longer than 200 characters"))
    move = data.get("move")  # absent or not an object: the rules call it malformed
    submitted = services.move_submit(game_id=game_id, user=user, move=move, expected_seq=expected_seq, idempotency_key=key)
    return selectors.move_answer(game=submitted.game, user=user, event=submitted.event), _replay_header(submitted)


def _expected_seq(data: Any) -> int:
    """The body's `expected_seq`. A body as clients send it (`move` and a whole number at least
    0) is read directly; anything else goes through the serializer, whose refusal is the API's
    (`unknown_field`, `invalid_input`), so the shortcut changes no answer, only a move's cost."""
    if type(data) is dict and type(data.get("expected_seq")) is int and data["expected_seq"] >= 0 \
            and data.keys() <= {"move", "expected_seq"}:
        return data["expected_seq"]
    return validated(MoveSubmitApi.VersionSerializer, data, known=("move",))["expected_seq"]


def _replay_header(submitted) -> dict[str, str]:
    return {"Idempotent-Replayed": "true"} if submitted.replayed else {}


class GameEventsApi(ScopedApi):
    permission_classes = (AllowAny,)

    class EventsFilterSerializer(serializers.Serializer):
        after = serializers.IntegerField(required=False, default=0, min_value=0)
        notation = serializers.BooleanField(required=False, default=False, help_text="add each event's `text`")

    @operation("gameEvents", summary="The game's log after event `after`, as you may see it", answer=schema.EventsAnswer,
               parameters=[EventsFilterSerializer], game=True, codes=["invalid_input"], scope="read")
    def get(self, request, game_id: int):
        wanted = validated(self.EventsFilterSerializer, request.query_params)
        game = selectors.game_for(game_id=game_id, user=request.user, invitation=invitation_of(request))
        events = selectors.events_visible(game=game, user=request.user, **wanted)
        return Response({"seq": game.seq, "events": events})


class GameStateApi(ScopedApi):
    permission_classes = (AllowAny,)

    class StateFilterSerializer(serializers.Serializer):
        at = serializers.IntegerField(required=False)

    @operation("gameState", summary="The game as you see it after event `at` (default: now)", answer=schema.StateAnswer,
               parameters=[StateFilterSerializer], game=True,
               codes=["invalid_input", "event_out_of_range", "log_damaged", "rules_version_gone"], scope="read")
    def get(self, request, game_id: int):
        at = validated(self.StateFilterSerializer, request.query_params).get("at")
        game = selectors.game_for(game_id=game_id, user=request.user, invitation=invitation_of(request))
        return Response(selectors.view_at(game=game, user=request.user, at=game.seq if at is None else at))


class GameBoardTextApi(PlainTextApi):
    """The caller's text board, the same the mails show: plain text, lines within 78 columns."""

    permission_classes = (AllowAny,)

    @operation("gameBoardText", summary="Your seat's text board (plain text; what play-by-email mails show)",
               answer=OpenApiTypes.STR, status=(200, "text/plain"), game=True,
               codes=["log_damaged", "rules_version_gone"], scope="read")
    def get(self, request, game_id: int):
        game = selectors.game_for(game_id=game_id, user=request.user, invitation=invitation_of(request))
        return HttpResponse(text_board.board_and_panels(game=game, user=request.user), content_type="text/plain; charset=utf-8")


class HealthApi(APIView):
    """A liveness probe: counted against its caller's address and told so at the edge
    (`project.throttles`), never refused, since a probe that read a 429 would restart a healthy
    process."""

    permission_classes = (AllowAny,)
    authentication_classes = ()
    throttle_classes = ()

    @operation("health", summary="Whether this process reaches the database and the broker", answer=schema.HealthAnswer,
               auth="none", degraded=schema.HealthAnswer, never_refused=True)
    def get(self, request):
        health = selectors.health()
        healthy = health["status"] == "ok"
        return Response(health, status=status.HTTP_200_OK if healthy else status.HTTP_503_SERVICE_UNAVAILABLE)


