"""What the chat's API answers, described to drf-spectacular (never rendered)."""

from rest_framework import serializers


class ChatLine(serializers.Serializer):
    id = serializers.IntegerField(help_text="pass the last one as ?after= for newer lines")
    channel = serializers.ChoiceField(choices=["players", "spectators"])
    username = serializers.CharField()
    text = serializers.CharField()
    at = serializers.DateTimeField()


class ChatPage(serializers.Serializer):
    channel = serializers.ChoiceField(choices=["players", "spectators"], help_text="where you talk")
    lines = ChatLine(many=True)
