"""The REST API. Each view validates an input serializer, calls one service or selector, and
renders the result; errors become {code, detail} in `games.http_errors.exception_handler`."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings as django_settings
from django.http import HttpResponse, QueryDict
from django.utils.cache import patch_cache_control
from drf_spectacular.types import OpenApiTypes
from rest_framework import serializers, status
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from games import auth, errors, schema, selectors, services, text_board
from games.schema import operation
from project import fastjson, throttles
from project.etags import keyed_etag


class ScopedApi(APIView):
    """Every view of the API: its own permissions, then the scope its method needs (`scopes`, by
    method; `games.auth`). Every GET reads; playing and seating play; the account is its own."""

    scopes: dict[str, str] = {"GET": "read", "POST": "play"}

    # DRF makes its parsers, authenticators, permissions and negotiator anew for every request;
    # none of them keeps anything between requests, so each view class makes them once (a move
    # is the most frequent request there is: docs/decisions/0006). Renderers and throttles keep
    # a request's state on themselves and are made per request, as DRF does.
    def get_parsers(self):
        return _made_once(type(self), "parsers", super().get_parsers)

    def get_authenticators(self):
        return _made_once(type(self), "authenticators", super().get_authenticators)

    def get_permissions(self):
        return _made_once(type(self), "permissions", lambda: [*super(ScopedApi, self).get_permissions(), auth.TokenScopes()])

    def get_content_negotiator(self):
        return _made_once(type(self), "negotiator", super().get_content_negotiator)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if request.method in ("GET", "HEAD") and response.status_code == 200 and not response.has_header("Cache-Control"):
            # Per caller (a seat's view), and stale the moment the game moves: a cache may keep
            # it for this caller only and must ask again each time (ETag: a 304 when unchanged).
            patch_cache_control(response, private=True, no_cache=True)
            if getattr(response, "data", None) is not None:  # a DRF answer; others get the middleware's
                response["ETag"] = _etag_of(response.data)
        return response


_MADE: dict[tuple[type, str], Any] = {}


def _made_once(view: type, what: str, make: Any) -> Any:
    """What `make()` gives for this view class, made at its first request. Two threads racing at
    the first request each make one, and either is kept: both are the same."""
    key = (view, what)
    made = _MADE.get(key)
    if made is None:
        made = _MADE[key] = make()
    return made


def _etag_of(data: Any) -> str:
    """A digest of the answer (what this caller may see), leaving out the clocks' `seconds_left`,
    which changes every moment while nothing happens: `due_at` beside it says the same, and a
    client polling an unchanged game gets its 304 (ConditionalGetMiddleware answers it). Keyed
    with the server's secret (`project.http.keyed_etag`), so nobody can test a guess of the body
    (an account's email, say) against it offline."""
    return keyed_etag(fastjson.dumps(_without_countdown(data), sort_keys=True))


def _without_countdown(data: Any) -> Any:
    if isinstance(data, dict):
        return {key: _without_countdown(value) for key, value in data.items() if key != "seconds_left"}
    if isinstance(data, list):
        return [_without_countdown(value) for value in data]
    return data


class AccountCreateApi(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()
    throttle_classes = (throttles.LoginAddressRate,)

    class AccountInputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=128, trim_whitespace=False)
        email = serializers.EmailField(required=False, allow_blank=True)

    @operation("accountCreate", summary="Create an account; answers its token", answer=schema.AccountAnswer,
               status=201, request=AccountInputSerializer, codes=["username_taken"], body=True, auth="none")
    def post(self, request):
        data = validated(self.AccountInputSerializer, request.data)
        user, token = services.account_create(**data)
        return Response({"username": user.username, "token": token.key}, status=status.HTTP_201_CREATED)


class TokenObtainApi(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()
    throttle_classes = (throttles.LoginAddressRate, throttles.LoginUsernameRate)

    class TokenInputSerializer(serializers.Serializer):
        username = serializers.CharField()
        password = serializers.CharField(trim_whitespace=False)

    @operation("tokenObtain", summary="The token of an account, by username and password", answer=schema.TokenAnswer,
               request=TokenInputSerializer, codes=["invalid_credentials"], body=True, auth="none")
    def post(self, request):
        token = services.token_obtain(**validated(self.TokenInputSerializer, request.data))
        return Response({"token": token.key})


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


def invitation_of(request) -> str:
    """A private game's invitation key, from its link (`?invitation=`) or a join's body."""
    found = request.query_params.get("invitation") or (request.data.get("invitation") if isinstance(request.data, dict) else "")
    return found if isinstance(found, str) else ""


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

    @operation("gameGet", summary="A game as your seat (or a spectator) sees it", answer=schema.GameDetail,
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


class GameChatApi(ScopedApi):
    """A game's chat: players and spectators apart while it runs (`games.services.chat`)."""

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
        game = selectors.game_for(game_id=game_id, user=request.user, invitation=invitation_of(request))
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
    permission_classes = (IsAuthenticated,)

    class MuteInputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        muted = serializers.BooleanField(required=False, default=True, help_text="false lifts the mute")

    @operation("chatMute", summary="Mute (or unmute) another account's chat lines for you", answer=None, status=204,
               request=MuteInputSerializer, body=True, auth="required", codes=["invalid_input"], scope="account")
    def post(self, request):
        data = validated(self.MuteInputSerializer, request.data)
        services.chat_mute(user=request.user, username=data["username"], muted=data["muted"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class GameSeatReturnApi(ScopedApi):
    """The owner of a seat a stand-in bot plays after a timeout takes it back."""

    permission_classes = (IsAuthenticated,)

    @operation("gameSeatReturn", summary="Take back your seat from the stand-in bot", answer=schema.GameDetail,
               auth="required", game=True, codes=["not_a_player", "log_damaged", "rules_version_gone"], scope="play")
    def post(self, request, game_id: int):
        services.seat_return(game_id=game_id, user=request.user)
        game = selectors.game_for(game_id=game_id, user=request.user, invitation=invitation_of(request))
        return Response(selectors.game_detail(game=game, user=request.user))


class AccountVacationApi(ScopedApi):
    """GET: the caller's vacation days and whether they are on vacation; POST {"on": bool}."""

    permission_classes = (IsAuthenticated,)
    scopes = {"GET": "account", "POST": "account"}

    class VacationInputSerializer(serializers.Serializer):
        on = serializers.BooleanField()

    @operation("vacationGet", summary="Your vacation days this year, and whether you are on vacation",
               answer=schema.VacationAnswer, auth="required", scope="account")
    def get(self, request):
        return Response(selectors.vacation_info(selectors.vacation_of(user=request.user)))

    @operation("vacationSet", summary="Start or end your vacation (correspondence and bank clocks stop)",
               answer=schema.VacationAnswer, request=VacationInputSerializer, body=True, auth="required",
               codes=["no_vacation_left"], scope="account")
    def post(self, request):
        data = validated(self.VacationInputSerializer, request.data)
        account = services.vacation_set(user=request.user, on=data["on"])
        return Response(selectors.vacation_info(account))


class AccountMeApi(ScopedApi):
    """The caller's account: its email and which notices it wants by email."""

    permission_classes = (IsAuthenticated,)
    scopes = {"GET": "account", "PATCH": "account"}

    class AccountUpdateInputSerializer(serializers.Serializer):
        email = serializers.CharField(max_length=254, required=False, allow_blank=True)
        notify = serializers.DictField(child=serializers.BooleanField(), required=False)
        language = serializers.ChoiceField(choices=["", *(code for code, _ in django_settings.LANGUAGES)], required=False,
                                           help_text='pages and mail in this language; "": the browser\'s')

    @operation("accountGet", summary="Your account: email and notice settings", answer=schema.AccountSettings,
               auth="required", scope="account")
    def get(self, request):
        return Response(selectors.account_settings(services.account_of(request.user)))

    @operation("accountUpdate", summary="Change your email or which notices you want by email",
               answer=schema.AccountSettings, request=AccountUpdateInputSerializer, body=True, auth="required",
               scope="account", codes=["invalid_input"])
    def patch(self, request):
        changes = validated(self.AccountUpdateInputSerializer, request.data)
        return Response(selectors.account_settings(services.account_update(user=request.user, **changes)))


class AccountBotApi(ScopedApi):
    """The caller's account becomes a bot's (lichess's bot accounts): seated like the server's
    bots, it learns of its turns from the API and plays with ordinary move requests."""

    permission_classes = (IsAuthenticated,)
    scopes = {"POST": "bot"}

    @operation("accountBot", summary="Make your account a bot account (only before it has played)",
               answer=schema.AccountInfo, auth="required", scope="bot", codes=["account_has_played"])
    def post(self, request):
        return Response(selectors.account_info(services.bot_account_mark(user=request.user)))


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
    and its headers. The view above and the token callers' shortcut (`games.move_shortcut`)
    both come here, so both answer alike."""
    # The version is judged before anything else about the move, so a stale client learns
    # that first: only `expected_seq` is read here, the move is the rules' business.
    expected_seq = _expected_seq(data)
    key = key or None
    if key is not None and len(key) > 200:
        raise errors.InvalidInput("the Idempotency-Key header is longer than 200 characters")
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


class PlainTextRenderer(BaseRenderer):
    """Lets content negotiation pick text/plain: any Accept that admits it (text/plain, text/*,
    */*) gets the text; one that does not (application/json alone) gets 406."""

    media_type = "text/plain"
    format = "txt"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data.encode(self.charset) if isinstance(data, str) else json.dumps(data).encode()


class PlainTextApi(ScopedApi):
    """A view whose answer is plain text; its errors keep the API's JSON shape."""

    renderer_classes = (PlainTextRenderer,)

    def finalize_response(self, request, response, *args, **kwargs):
        if response.status_code >= 400:  # an error keeps the API's JSON shape whatever was asked
            request.accepted_renderer, request.accepted_media_type = JSONRenderer(), JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)


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
    permission_classes = (AllowAny,)
    authentication_classes = ()

    @operation("health", summary="Whether this process reaches the database and the broker", answer=schema.HealthAnswer,
               auth="none", degraded=schema.HealthAnswer)
    def get(self, request):
        health = selectors.health()
        healthy = health["status"] == "ok"
        return Response(health, status=status.HTTP_200_OK if healthy else status.HTTP_503_SERVICE_UNAVAILABLE)


class TokensApi(ScopedApi):
    """Scoped personal tokens: list them, or make one (its key is shown in that answer only)."""

    permission_classes = (IsAuthenticated,)
    scopes = {"GET": "account", "POST": "account"}

    class TokenCreateInputSerializer(serializers.Serializer):
        scopes = serializers.ListField(child=serializers.ChoiceField(choices=auth.SCOPES), min_length=1)
        name = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
        expires_at = serializers.DateTimeField(required=False, allow_null=True, default=None)

    @operation("tokenList", summary="Your scoped tokens that still work (never their keys)",
               answer=schema.TokenInfo(many=True), auth="required", scope="account")
    def get(self, request):
        return Response(selectors.token_list(user=request.user))

    @operation("tokenCreate", summary="Make a scoped token; its key is in this answer and nowhere else",
               answer=schema.TokenInfo, status=201, request=TokenCreateInputSerializer, body=True, auth="required",
               scope="account", codes=["too_many_tokens"])
    def post(self, request):
        data = validated(self.TokenCreateInputSerializer, request.data)
        token, key = services.token_create(user=request.user, by=request.auth, **data)
        return Response(selectors.token_info(token, key), status=status.HTTP_201_CREATED)


class TokenRevokeApi(ScopedApi):
    permission_classes = (IsAuthenticated,)
    scopes = {"DELETE": "account"}

    @operation("tokenRevoke", summary="Revoke a scoped token: it stops working at once", answer=None, status=204,
               auth="required", scope="account", codes=["token_not_found", "not_found"])
    def delete(self, request, token_id: int):
        services.token_revoke(user=request.user, token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class FirstTokenApi(ScopedApi):
    """The account's first token (the one `POST /api/accounts/` and `/api/accounts/token/` give):
    rotate it (a new key, the old one stops at once) or revoke it."""

    permission_classes = (IsAuthenticated,)
    scopes = {"POST": "account", "DELETE": "account"}

    @operation("firstTokenRotate", summary="Give the account's first token a new key; the old key stops working at once",
               answer=schema.TokenAnswer, auth="required", scope="account")
    def post(self, request):
        return Response({"token": services.first_token_rotate(user=request.user).key})

    @operation("firstTokenRevoke", summary="Revoke the account's first token: it stops working at once "
               "(POST /api/accounts/token/ makes a new one)", answer=None, status=204, auth="required", scope="account")
    def delete(self, request):
        services.first_token_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


def validated(serializer_class, data, *, known: tuple[str, ...] = ()) -> dict:
    """`data` checked by the serializer. A JSON body (not a query string) may hold no field the
    serializer does not name (nor `known`, fields read elsewhere): a misspelt `"privat": true`
    is refused with `unknown_field`, not ignored."""
    serializer = serializer_class(data=data)
    if isinstance(data, dict) and not isinstance(data, QueryDict):
        unknown = _unknown_field(serializer, data, known)
        if unknown is not None:
            raise errors.UnknownField(f"there is no field {unknown!r} here", field=unknown)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _unknown_in_item(child: Any, item: dict, prefix: str) -> str | None:
    if isinstance(child, serializers.Serializer):
        return _unknown_field(child, item, prefix=prefix)
    allowed = getattr(child, "allowed_keys", None)  # a DictField of a known shape (schema.BotSeatField)
    return next((f"{prefix}{key}" for key in item if key not in allowed), None) if allowed is not None else None


def _unknown_field(serializer: serializers.Serializer, data: dict, known: tuple[str, ...] = (), prefix: str = "") -> str | None:
    """The first field of `data` (walking nested objects and lists of objects) that the
    serializer does not name, as a path such as `bots[0].levle`; None when there is none."""
    for key, value in data.items():
        field = serializer.fields.get(key)
        if field is None or field.read_only:
            if key in known:
                continue
            return f"{prefix}{key}"
        if isinstance(field, serializers.Serializer) and isinstance(value, dict):
            found = _unknown_field(field, value, prefix=f"{prefix}{key}.")
        elif isinstance(field, (serializers.ListSerializer, serializers.ListField)) and isinstance(value, list):
            found = next((f for n, item in enumerate(value) if isinstance(item, dict)
                          and (f := _unknown_in_item(field.child, item, f"{prefix}{key}[{n}].")) is not None), None)
        else:
            found = None
        if found is not None:
            return found
    return None
