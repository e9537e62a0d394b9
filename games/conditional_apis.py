"""The API of conditional moves (`games.services.conditionals`): a player's own queued lines in
a game: list, queue, cancel. Only the owner ever sees a line; another caller's list is their
own (empty) one and another's line id is "not found", exactly as an id that never existed."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from apikit.schema import operation
from apikit.views import ScopedApi, invitation_of, validated
from games import services, store, words
from games.models import ConditionalLine
from games.services.conditionals import MAX_MOVES
from rules.errors import RulesError


class ConditionalMove(serializers.Serializer):
    seat = serializers.IntegerField(help_text="who plays it: the opponent's seat for a condition, yours for a reply")
    move = serializers.DictField(help_text="the move, in the game's canonical form")
    text = serializers.CharField(allow_null=True, help_text="the move in the game's notation")
    words = serializers.CharField(allow_null=True, help_text="the move described in the reader's language")


class ConditionalLineAnswer(serializers.Serializer):
    id = serializers.UUIDField(help_text="cancel with DELETE /api/games/{id}/conditionals/{line}/")
    seat = serializers.IntegerField(help_text="your seat")
    after_seq = serializers.IntegerField(help_text="the line starts after this event of the game")
    moves = ConditionalMove(many=True, help_text="what is still to come, in order: theirs, then yours, ...")
    created_at = serializers.DateTimeField()


class ConditionalList(serializers.Serializer):
    lines = ConditionalLineAnswer(many=True)


class ConditionalInput(serializers.Serializer):
    moves = serializers.ListField(
        child=serializers.JSONField(), min_length=2, max_length=MAX_MOVES,
        help_text="the line: the opponent's move first, then yours, alternating as the turns go, ending "
                  "with yours; each a move object (as in legal-moves) or its notation text",
    )


CREATE_CODES = ["invalid_input", "not_a_player", "game_not_active", "conditional_two_players_only",
                "conditional_through_chance", "conditional_on_your_turn", "conditional_invalid",
                "too_many_conditionals", "conditional_duplicate", "rules_version_gone"]


class ConditionalsApi(ScopedApi):
    """Your conditional lines in a game ("if they play X, I play Y")."""

    permission_classes = (IsAuthenticated,)

    @operation("gameConditionals", summary="Your queued conditional lines in the game (only yours: nobody else's)",
               answer=ConditionalList, auth="required", game=True, codes=["not_a_player"], scope="read")
    def get(self, request, game_id: int):
        lines = services.conditionals_of(game_id=game_id, user=request.user, invitation=invitation_of(request))
        return Response({"lines": line_answers(lines)})

    @operation("gameConditionalCreate",
               summary="Queue a conditional line while the opponent is to move: played as your own move if "
                       "they play as the line says (two-player games, through no chance or secret)",
               answer=ConditionalLineAnswer, status=201, request=ConditionalInput, body=True, auth="required",
               game=True, codes=CREATE_CODES, scope="play")
    def post(self, request, game_id: int):
        moves = validated(ConditionalInput, request.data)["moves"]
        line = services.conditional_create(game_id=game_id, user=request.user, moves=moves,
                                           invitation=invitation_of(request))
        return Response(line_answer(line), status=status.HTTP_201_CREATED)


class ConditionalPreviewInput(serializers.Serializer):
    moves = serializers.ListField(child=serializers.JSONField(), max_length=MAX_MOVES - 1,
                                  help_text="the line so far (may be empty)")


class ConditionalPreview(serializers.Serializer):
    line = ConditionalMove(many=True, help_text="the line so far, canonical (its text is null)")
    to_act = serializers.IntegerField(allow_null=True, help_text="who would act next on the line; null if nobody")
    moves = serializers.ListField(child=serializers.DictField(), help_text="that seat's legal moves there")
    notation = serializers.ListField(child=serializers.CharField(), help_text="the same moves in notation")
    words = serializers.ListField(child=serializers.CharField(), help_text="the same moves described in the reader's language")
    view = serializers.DictField(help_text="the position there, as your seat would see it")
    board = serializers.CharField(help_text="the position there, as text")


class ConditionalPreviewApi(ScopedApi):
    """"What if": where a line would lead, to pick the next move of a line on a board."""

    permission_classes = (IsAuthenticated,)
    scopes = {"POST": "read"}

    @operation("gameConditionalPreview", summary="What if: the position after a line and the legal moves there",
               answer=ConditionalPreview, request=ConditionalPreviewInput, body=True, auth="required", game=True,
               codes=CREATE_CODES, scope="read")
    def post(self, request, game_id: int):
        moves = validated(ConditionalPreviewInput, request.data)["moves"]
        answer = services.conditional_preview(game_id=game_id, user=request.user, moves=moves,
                                              invitation=invitation_of(request))
        answer["line"] = [{**step, "text": None} for step in answer["line"]]
        return Response(answer)


class ConditionalCancelApi(ScopedApi):
    permission_classes = (IsAuthenticated,)
    scopes = {"DELETE": "play"}

    @operation("gameConditionalCancel", summary="Cancel one of your conditional lines", answer=None, status=204,
               auth="required", game=True, codes=["conditional_not_found"], scope="play")
    def delete(self, request, game_id: int, line_id):
        services.conditional_cancel(game_id=game_id, user=request.user, line_id=line_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


def line_answers(lines: list[ConditionalLine]) -> list[dict[str, Any]]:
    """A seat's lines, all of one game: the game is read once, and the position each line starts
    from folded once for all the lines starting there (each line read its game anew and folded
    the log to its start: thirty lines, thirty folds)."""
    if not lines:
        return []
    game = lines[0].game
    starts: dict[int, Any] = {}
    answers = []
    for line in lines:
        line.game = game
        if line.anchor_seq not in starts:
            starts[line.anchor_seq] = store.state_at(game, line.anchor_seq)
        answers.append(line_answer(line, starts[line.anchor_seq]))
    return answers


def line_answer(line: ConditionalLine, start: Any = None) -> dict[str, Any]:
    """`start`: the state the line starts from, when the caller has it."""
    return {"id": str(line.pk), "seat": line.seat, "after_seq": line.anchor_seq, "moves": _described(line, start),
            "created_at": line.created_at}


def _described(line: ConditionalLine, start: Any = None) -> list[dict[str, Any]]:
    """Each move with its notation, read along the line from where it starts."""
    game_rules = store.rules_of(line.game)
    state: Any = store.state_at(line.game, line.anchor_seq) if start is None else start
    described = []
    for step in line.moves:
        text = None
        if state is not None:
            try:
                text = game_rules.describe_move(state, step["seat"], step["move"])
                state = game_rules.apply(state, step["seat"], step["move"])
            except RulesError:
                state = None  # no longer legal: the next look at the line drops it
        described.append({**step, "text": text, "words": None if text is None else words.translated(text)})
    return described
