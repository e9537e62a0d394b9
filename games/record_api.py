"""`GET /api/games/{id}/record`: a finished game's record, to check with `python -m rules.verify`
(`games.records`); and `GET /api/players/{username}/games/`: a player's finished games as NDJSON,
one record a line, streamed. Views of their own, apart from the play routes."""

from __future__ import annotations

import json

from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import renderers, serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from apikit.schema import operation
from apikit.views import ScopedApi
from games import records


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


class NDJSONRenderer(renderers.BaseRenderer):
    """`application/x-ndjson`: what the export streams; an error before it starts is one JSON line."""

    media_type = "application/x-ndjson"
    format = "ndjson"
    charset = None

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return b"" if data is None else json.dumps(data).encode() + b"\n"


EXPORT_PARAMETERS = [
    OpenApiParameter("format", exclude=True),  # DRF's renderer override: the records stream as NDJSON whatever it says
    OpenApiParameter("X-Games-Count", int, location=OpenApiParameter.HEADER, response=[200],
                     description="how many records the body holds"),
    OpenApiParameter("since", str, description="finished at or after: an ISO 8601 date or date-time (UTC if no zone)"),
    OpenApiParameter("until", str, description="finished before: an ISO 8601 date-time, or a date (its whole day)"),
    OpenApiParameter("rules", str, description="only this game (a rules id: GET /api/rules/)"),
    OpenApiParameter("result", str, enum=list(records.RESULTS),
                     description="how the player's seat came out: won, lost, drawn (a shared win of every seat "
                                 "still scoring), none (aborted, cancelled)"),
]


# The whole body, as a generator reads it: NDJSON is no JSON document, and OpenAPI has no word for
# "many items" (streams.schema). A string, then, naming the component each line is; generators
# that know no NDJSON read it as text when told to (docs/api-clients.md: content_type_overrides).
EXPORTED = OpenApiResponse(
    response={"type": "string", "contentMediaType": NDJSONRenderer.media_type,
              "description": "one RecordAnswer (components) a line, each ending with a newline; no lines for no games"},
    description="the records, oldest first, streamed as they are read; X-Games-Count says how many",
)


class PlayerGamesExportApi(ScopedApi):
    """A player's finished games, oldest first, each line a record as `/api/games/{id}/record/`
    gives it (`python -m rules.verify` checks any line saved alone). The caller's own private
    games are in it; others' are not."""

    permission_classes = (AllowAny,)
    renderer_classes = (renderers.JSONRenderer, NDJSONRenderer)  # errors: JSON unless NDJSON is asked for

    @operation("playerGamesExport",
               summary="A player's finished games as NDJSON, one verifiable record a line, streamed "
                       "(a private game only for a caller who sat in it)",
               answer=EXPORTED, media_type=NDJSONRenderer.media_type, parameters=EXPORT_PARAMETERS,
               codes=["player_not_found", "invalid_input"], scope="read")
    def get(self, request, username: str):
        _, game_ids = records.player_games(
            username=username, viewer=request.user, since=request.GET.get("since"), until=request.GET.get("until"),
            rules_id=request.GET.get("rules"), result=request.GET.get("result"),
        )
        lines = (json.dumps(record, default=str).encode() + b"\n" for record in records.records_of(game_ids))
        response = StreamingHttpResponse(lines, content_type=NDJSONRenderer.media_type)
        response["Cache-Control"] = "private, no-store"
        response["X-Games-Count"] = str(len(game_ids))
        return response
