"""`/api/games/{id}/analysis`: ask for a finished game's analysis (POST) and read it (GET).

A public game's analysis is anyone's to read, and any account's to ask for; a private game's only
its players' (anyone else is told there is no such game). An unfinished game has none (409
`game_not_finished`). The analysis itself runs on a worker (`analysis.services`)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response

from accounts import auth
from analysis import selectors, services
from apikit.schema import error_responses
from apikit.views import ScopedApi


class AnalysedMoveAnswer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="the move's event")
    seat = serializers.IntegerField(help_text="the seat that made it")
    move = serializers.DictField(help_text="the move as logged")
    text = serializers.CharField(help_text="the move in the rules' notation, the same in every language")
    words = serializers.CharField(help_text="the move described in the reader's language (its notation in English, "
                                            "and for an analysis stored before words were kept)")
    before = serializers.FloatField(help_text="the mover's win expectation (0..1) before the move, from its view")
    after = serializers.FloatField(help_text="the mover's win expectation (0..1) after the move, from its view")
    drop = serializers.FloatField(help_text="before - after")
    preferred = serializers.DictField(allow_null=True, help_text="the move the bot preferred there, from the mover's view")
    preferred_text = serializers.CharField(allow_null=True, help_text="the preferred move in the rules' notation")
    preferred_words = serializers.CharField(allow_null=True, help_text="the preferred move described in the reader's language")
    choices = serializers.IntegerField(help_text="how many legal moves the mover had")
    mark = serializers.ChoiceField(choices=["mistake", "inaccuracy"], allow_null=True,
                                   help_text="mistake: a drop of a quarter of the range or more; inaccuracy: an eighth. "
                                             "Never for a forced move, nor for the bot's preferred move")


class AnalysisMarksAnswer(serializers.Serializer):
    mistake = serializers.FloatField(help_text="the smallest drop marked a mistake")
    inaccuracy = serializers.FloatField(help_text="the smallest drop marked an inaccuracy")


class AnalysisAnswer(serializers.Serializer):
    game = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["none", "queued", "running", "done", "failed"],
                                     help_text="none: never asked for (POST asks)")
    range = serializers.ListField(child=serializers.FloatField(), help_text="the evaluations' range: [0, 1]")
    marks = AnalysisMarksAnswer()
    seen_from = serializers.CharField(help_text="what the bot knew of each position: the mover's own view")
    budget = serializers.DictField(help_text="the search per position: iterations and a millisecond cap")
    finished_at = serializers.CharField(allow_null=True)
    problem = serializers.CharField(help_text="why it failed (a failed analysis is queued again by a POST)")
    moves = AnalysedMoveAnswer(many=True, help_text="every move, in order, once done")


class GameAnalysisApi(ScopedApi):
    def get_permissions(self):
        allowed = IsAuthenticated() if self.request.method == "POST" else AllowAny()
        return [allowed, auth.TokenScopes()]

    @extend_schema(operation_id="gameAnalysis", summary="A finished game's analysis: its status and, once done, "
                   "every move's evaluation before and after, the bot's preferred move and a mark [scope: read]",
                   responses={200: AnalysisAnswer,
                              **error_responses("gameAnalysis", ["game_not_finished"], game=True, scope="read")})
    def get(self, request, game_id: int):
        return Response(selectors.analysis_answer(game_id=game_id, user=request.user))

    @extend_schema(operation_id="gameAnalysisRequest", request=None,
                   summary="Ask for a finished game's analysis: 202 while it is queued or running, 200 once "
                           "done (then it is the stored one, not run again) [scope: play]",
                   responses={200: AnalysisAnswer, 202: AnalysisAnswer,
                              **error_responses("gameAnalysisRequest", ["game_not_finished", "too_many_analyses", "analysis_runs_used"], game=True,
                                                auth="required", scope="play")})
    def post(self, request, game_id: int):
        analysis = services.analysis_request(game_id=game_id, user=request.user)
        answer = selectors.answer_of(game_id, analysis)
        return Response(answer, status=200 if answer["status"] == "done" else 202)
