"""What the accounts' API answers, described to drf-spectacular (never rendered)."""

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
