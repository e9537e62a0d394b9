"""What the accounts' API answers, described to drf-spectacular (never rendered)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from rest_framework import serializers


class TokenAnswer(serializers.Serializer):
    token = serializers.CharField(help_text="send as `Authorization: Token <token>`")


class TokenInfo(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=["read", "play", "bot", "webhooks", "account"]))
    prefix = serializers.CharField(help_text="the key's first characters, to tell tokens apart")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    token = serializers.CharField(required=False, help_text="the key: in the answer that made it, and never again")


class AccountInfo(serializers.Serializer):
    username = serializers.CharField()
    bot = serializers.BooleanField(help_text="a bot account: a program plays it")


class AccountSettings(AccountInfo):
    email = serializers.CharField(allow_blank=True)
    notify = serializers.DictField(
        child=serializers.BooleanField(),
        help_text="by email: game_started, your_turn, deadline_warning, game_over (true: wanted)",
    )
    language = serializers.CharField(allow_blank=True, help_text='"en", "nl", or "": the browser\'s language')


class AccountAnswer(TokenAnswer):
    username = serializers.CharField()


class VacationAnswer(serializers.Serializer):
    on_vacation = serializers.BooleanField()
    since = serializers.DateTimeField(allow_null=True)
    year = serializers.IntegerField()
    days_per_year = serializers.IntegerField()
    days_used = serializers.FloatField()
    days_left = serializers.FloatField()
    ends_at = serializers.DateTimeField(allow_null=True)


# --- the security schemes (accounts.auth) -------------------------------------------------------


class TokensAndOAuth(OpenApiAuthenticationExtension):
    """The schema's account of `accounts.auth.ScopedTokenAuthentication`: one key read three ways.
    `tokenAuth` is `Authorization: Token <key>`, `bearerAuth` the same keys as `Bearer <key>`, and
    `oauth2` the authorization code flow (PKCE, S256) whose access tokens are sent as Bearer.
    Each operation lists all three, `oauth2` with the scope the operation needs."""

    target_class = "accounts.auth.ScopedTokenAuthentication"
    name = ("tokenAuth", "bearerAuth", "oauth2")
    priority = 1

    def get_security_definition(self, auto_schema):
        from accounts.oauth import SCOPE_WORDS

        token = build_bearer_security_scheme_object(header_name="Authorization", token_prefix="Token")
        token["description"] = (
            "`Authorization: Token <key>`: an account's first token (`POST /api/accounts/token/`) may do "
            "everything; a personal token (`POST /api/tokens/`) what its scopes name"
        )
        bearer = {
            "type": "http", "scheme": "bearer",
            "description": "the same keys as tokenAuth, or an OAuth access token (oauth2), as `Authorization: Bearer <key>`",
        }
        oauth2 = {
            "type": "oauth2",
            "description": "for third-party apps: authorization code with PKCE (S256 only); see docs/oauth.md",
            "flows": {"authorizationCode": {
                "authorizationUrl": "/oauth/authorize/", "tokenUrl": "/oauth/token/", "refreshUrl": "/oauth/token/",
                "scopes": dict(SCOPE_WORDS),
            }},
        }
        return [token, bearer, oauth2]

    def get_security_requirement(self, auto_schema):
        scope = getattr(auto_schema.view, "scopes", {}).get(auto_schema.method)
        return [{"tokenAuth": []}, {"bearerAuth": []}, {"oauth2": [scope] if scope else []}]
