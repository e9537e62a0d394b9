"""The REST API. Each view validates an input serializer, calls one service or selector, and
renders the result; errors become {code, detail} in `games.http_errors.exception_handler`."""

from __future__ import annotations

from rest_framework import serializers, status
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from games import errors, selectors, services
from project import throttles


class AccountCreateApi(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()
    throttle_classes = (throttles.LoginAddressRate,)

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=128, trim_whitespace=False)
        email = serializers.EmailField(required=False, allow_blank=True, default="")

    def post(self, request):
        data = _validated(self.InputSerializer, request.data)
        user, token = services.account_create(**data)
        return Response({"username": user.username, "token": token.key}, status=status.HTTP_201_CREATED)


class TokenObtainApi(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()
    throttle_classes = (throttles.LoginAddressRate, throttles.LoginUsernameRate)

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField()
        password = serializers.CharField(trim_whitespace=False)

    def post(self, request):
        token = services.token_obtain(**_validated(self.InputSerializer, request.data))
        return Response({"token": token.key})


class RulesListApi(APIView):
    permission_classes = (AllowAny,)

    def get(self, request):
        return Response(selectors.rules_catalogue())


class GamePagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200


class GameListCreateApi(APIView):
    class FilterSerializer(serializers.Serializer):
        status = serializers.CharField(required=False, allow_blank=True)
        mine = serializers.BooleanField(required=False, default=False)

    class InputSerializer(serializers.Serializer):
        rules = serializers.CharField(max_length=40)
        players = serializers.IntegerField()
        options = serializers.DictField(required=False, default=dict)
        bots = serializers.ListField(child=serializers.DictField(), required=False, default=list)
        time_control = serializers.JSONField(required=False, default=dict)  # games.time_controls checks it
        timeout_policy = serializers.CharField(required=False, default="auto")
        creator_plays = serializers.BooleanField(required=False, default=True)

    def get_permissions(self):
        return [IsAuthenticated()] if self.request.method == "POST" else [AllowAny()]

    def get(self, request):
        filters = _validated(self.FilterSerializer, request.query_params)
        games = selectors.game_list(user=request.user, status=filters.get("status"), mine=filters["mine"])
        paginator = GamePagination()
        page = paginator.paginate_queryset(games, request, view=self)
        return paginator.get_paginated_response([selectors.game_summary(game=game) for game in page])

    def post(self, request):
        data = _validated(self.InputSerializer, request.data)
        game = services.game_create(
            creator=request.user,
            rules_id=data["rules"],
            players=data["players"],
            options=data["options"],
            bot_seats=data["bots"],
            time_control=data["time_control"],
            timeout_policy=data["timeout_policy"],
            creator_plays=data["creator_plays"],
        )
        return Response(selectors.game_detail(game=game, user=request.user), status=status.HTTP_201_CREATED)


class GameDetailApi(APIView):
    permission_classes = (AllowAny,)

    def get(self, request, game_id: int):
        game = selectors.game_get(game_id=game_id)
        return Response(selectors.game_detail(game=game, user=request.user))


class GameJoinApi(APIView):
    permission_classes = (IsAuthenticated,)

    def post(self, request, game_id: int):
        services.game_join(game_id=game_id, user=request.user)
        game = selectors.game_get(game_id=game_id)
        return Response(selectors.game_detail(game=game, user=request.user), status=status.HTTP_201_CREATED)


class GameBotAddApi(APIView):
    permission_classes = (IsAuthenticated,)

    class InputSerializer(serializers.Serializer):
        bot = serializers.CharField(max_length=20)
        level = serializers.IntegerField(required=False)

    def post(self, request, game_id: int):
        data = _validated(self.InputSerializer, request.data)
        services.bot_seat_add(game_id=game_id, user=request.user, bot=data["bot"], level=data.get("level"))
        game = selectors.game_get(game_id=game_id)
        return Response(selectors.game_detail(game=game, user=request.user), status=status.HTTP_201_CREATED)


class GameSeatReturnApi(APIView):
    """The owner of a seat a stand-in bot plays after a timeout takes it back."""

    permission_classes = (IsAuthenticated,)

    def post(self, request, game_id: int):
        services.seat_return(game_id=game_id, user=request.user)
        game = selectors.game_get(game_id=game_id)
        return Response(selectors.game_detail(game=game, user=request.user))


class AccountVacationApi(APIView):
    """GET: the caller's vacation days and whether they are on vacation; POST {"on": bool}."""

    permission_classes = (IsAuthenticated,)

    class InputSerializer(serializers.Serializer):
        on = serializers.BooleanField()

    def get(self, request):
        return Response(selectors.vacation_info(selectors.vacation_of(user=request.user)))

    def post(self, request):
        data = _validated(self.InputSerializer, request.data)
        account = services.vacation_set(user=request.user, on=data["on"])
        return Response(selectors.vacation_info(account))


class BotListApi(APIView):
    permission_classes = (AllowAny,)

    def get(self, request):
        return Response(selectors.bots_catalogue())


class GameLegalMovesApi(APIView):
    permission_classes = (IsAuthenticated,)

    def get(self, request, game_id: int):
        game = selectors.game_get(game_id=game_id)
        return Response(selectors.legal_moves_for(game=game, user=request.user))


class MoveSubmitApi(APIView):
    permission_classes = (IsAuthenticated,)

    class VersionSerializer(serializers.Serializer):
        expected_seq = serializers.IntegerField(min_value=0)

    def post(self, request, game_id: int):
        # The version is judged before anything else about the move, so a stale client learns
        # that first: only `expected_seq` is read here, the move is the rules' business.
        expected_seq = _validated(self.VersionSerializer, request.data)["expected_seq"]
        key = request.headers.get("Idempotency-Key") or None
        if key is not None and len(key) > 200:
            raise errors.InvalidInput("the Idempotency-Key header is longer than 200 characters")
        submitted = services.move_submit(
            game_id=game_id,
            user=request.user,
            move=request.data.get("move"),  # absent or not an object: the rules call it malformed
            expected_seq=expected_seq,
            idempotency_key=key,
        )
        body = selectors.event_visible(submitted.event, submitted.event.seat)
        return Response(body, status=status.HTTP_201_CREATED, headers=_replay_header(submitted))


def _replay_header(submitted) -> dict[str, str]:
    return {"Idempotent-Replayed": "true"} if submitted.replayed else {}


class GameEventsApi(APIView):
    permission_classes = (AllowAny,)

    class FilterSerializer(serializers.Serializer):
        after = serializers.IntegerField(required=False, default=0, min_value=0)

    def get(self, request, game_id: int):
        after = _validated(self.FilterSerializer, request.query_params)["after"]
        game = selectors.game_get(game_id=game_id)
        events = selectors.events_visible(game=game, user=request.user, after=after)
        return Response({"seq": game.seq, "events": events})


class GameStateApi(APIView):
    permission_classes = (AllowAny,)

    class FilterSerializer(serializers.Serializer):
        at = serializers.IntegerField(required=False)

    def get(self, request, game_id: int):
        at = _validated(self.FilterSerializer, request.query_params).get("at")
        game = selectors.game_get(game_id=game_id)
        return Response(selectors.view_at(game=game, user=request.user, at=game.seq if at is None else at))


class HealthApi(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()

    def get(self, request):
        health = selectors.health()
        healthy = health["status"] == "ok"
        return Response(health, status=status.HTTP_200_OK if healthy else status.HTTP_503_SERVICE_UNAVAILABLE)



def _validated(serializer_class, data) -> dict:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
