"""The accounts' API: sign-up, the first token and scoped ones, account settings, vacation and
bot accounts. Each view validates its input, calls one service or selector, and renders."""

from __future__ import annotations

from django.conf import settings
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import auth, errors, schema, selectors, services
from apikit.schema import operation
from apikit.views import ScopedApi, validated
from project import throttles
from rules.words import msg


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


class AccountMeApi(ScopedApi):
    """The caller's account: its email and which notices it wants by email."""

    permission_classes = (IsAuthenticated,)
    scopes = {"GET": "account", "PATCH": "account"}

    class AccountUpdateInputSerializer(serializers.Serializer):
        email = serializers.CharField(max_length=254, required=False, allow_blank=True)
        notify = serializers.DictField(child=serializers.BooleanField(), required=False)
        language = serializers.ChoiceField(choices=["", *(code for code, _ in settings.LANGUAGES)], required=False,
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


def _personal(request) -> None:
    """Personal tokens are the player's own business, never an app's (errors.PersonalCredentialsOnly)."""
    if auth.is_oauth(request.auth):
        raise errors.PersonalCredentialsOnly(msg("an app's OAuth token may not manage personal tokens; sign in yourself"))


class TokensApi(ScopedApi):
    """Scoped personal tokens: list them, or make one (its key is shown in that answer only)."""

    permission_classes = (IsAuthenticated,)
    scopes = {"GET": "account", "POST": "account"}

    class TokenCreateInputSerializer(serializers.Serializer):
        scopes = serializers.ListField(child=serializers.ChoiceField(choices=auth.SCOPES), min_length=1)
        name = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
        expires_at = serializers.DateTimeField(required=False, allow_null=True, default=None)

    @operation("tokenList", summary="Your scoped tokens that still work (never their keys)",
               answer=schema.TokenInfo(many=True), auth="required", scope="account", codes=["personal_credentials_only"])
    def get(self, request):
        _personal(request)
        return Response(selectors.token_list(user=request.user))

    @operation("tokenCreate", summary="Make a scoped token; its key is in this answer and nowhere else",
               answer=schema.TokenInfo, status=201, request=TokenCreateInputSerializer, body=True, auth="required",
               scope="account", codes=["too_many_tokens", "personal_credentials_only"])
    def post(self, request):
        _personal(request)
        data = validated(self.TokenCreateInputSerializer, request.data)
        token, key = services.token_create(user=request.user, by=request.auth, **data)
        return Response(selectors.token_info(token, key), status=status.HTTP_201_CREATED)


class TokenRevokeApi(ScopedApi):
    permission_classes = (IsAuthenticated,)
    scopes = {"DELETE": "account"}

    @operation("tokenRevoke", summary="Revoke a scoped token: it stops working at once", answer=None, status=204,
               auth="required", scope="account", codes=["token_not_found", "not_found", "personal_credentials_only"])
    def delete(self, request, token_id: int):
        _personal(request)
        services.token_revoke(user=request.user, token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class FirstTokenApi(ScopedApi):
    """The account's first token (the one `POST /api/accounts/` and `/api/accounts/token/` give):
    rotate it (a new key, the old one stops at once) or revoke it."""

    permission_classes = (IsAuthenticated,)
    scopes = {"POST": "account", "DELETE": "account"}

    @operation("firstTokenRotate", summary="Give the account's first token a new key; the old key stops working at once",
               answer=schema.TokenAnswer, auth="required", scope="account", codes=["personal_credentials_only"])
    def post(self, request):
        _personal(request)
        return Response({"token": services.first_token_rotate(user=request.user).key})

    @operation("firstTokenRevoke", summary="Revoke the account's first token: it stops working at once "
               "(POST /api/accounts/token/ makes a new one)", answer=None, status=204, auth="required", scope="account",
               codes=["personal_credentials_only"])
    def delete(self, request):
        _personal(request)
        services.first_token_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


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
