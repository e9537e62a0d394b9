from django.urls import path

from accounts import apis
from apikit.routes import with_and_without_slash

urlpatterns = with_and_without_slash([
    path("accounts/", apis.AccountCreateApi.as_view(), name="account-create"),
    path("accounts/token/", apis.TokenObtainApi.as_view(), name="token-obtain"),
    path("accounts/me/", apis.AccountMeApi.as_view(), name="account-me"),
    path("accounts/me/token/", apis.FirstTokenApi.as_view(), name="first-token"),
    path("accounts/me/vacation/", apis.AccountVacationApi.as_view(), name="account-vacation"),
    path("accounts/me/bot/", apis.AccountBotApi.as_view(), name="account-bot"),
    path("tokens/", apis.TokensApi.as_view(), name="tokens"),
    path("tokens/<id:token_id>/", apis.TokenRevokeApi.as_view(), name="token-revoke"),
])
