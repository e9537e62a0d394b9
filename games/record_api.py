"""`GET /api/games/{id}/record`: a finished game's record, to check with `python -m rules.verify`
(`games.records`). A view of its own, apart from the play routes."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from games import records
from games.apis import ScopedApi
from games.schema import operation


class RecordEventAnswer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.CharField(help_text="created, move, timeout or system")
    seat = serializers.IntegerField(allow_null=True)
    payload = serializers.DictField(help_text="the whole event as the rules fold it, secrets included")
    public_payload = serializers.DictField(help_text="what the other seats saw while the game ran")
    created_at = serializers.CharField(help_text="ISO 8601, exactly as hashed")
    prev_hash = serializers.CharField(help_text="the previous event's hash (64 zeros for the first)")
    private_digest = serializers.CharField(help_text="SHA-256 of the seed-derived salt and the payload ('' on old events)")
    hash = serializers.CharField(help_text="SHA-256 of prev_hash and the event's public content (rules.record)")


class RecordRulesAnswer(serializers.Serializer):
    id = serializers.CharField()
    version = serializers.IntegerField(help_text="the rules version the log was recorded under")


class RecordSeatAnswer(serializers.Serializer):
    seat = serializers.IntegerField()
    username = serializers.CharField(allow_null=True)
    bot = serializers.DictField(allow_null=True)


class RecordAnswer(serializers.Serializer):
    format = serializers.CharField(help_text="scrapyard-game-record")
    format_version = serializers.IntegerField()
    game = serializers.IntegerField()
    rules = RecordRulesAnswer()
    players = serializers.IntegerField()
    options = serializers.DictField()
    seats = RecordSeatAnswer(many=True)
    seed_sha256 = serializers.CharField(help_text="the seed's commitment, published at creation")
    seed = serializers.CharField()
    result = serializers.DictField()
    events = RecordEventAnswer(many=True)


class GameRecordApi(ScopedApi):
    permission_classes = (AllowAny,)

    @operation("gameRecord",
               summary="A finished game's record, to verify without the server: python -m rules.verify record.json "
                       "(a private game's only for its players)",
               answer=RecordAnswer, game=True, codes=["game_not_finished"], scope="read")
    def get(self, request, game_id: int):
        return Response(records.game_record(game_id=game_id, user=request.user))
