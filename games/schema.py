"""What the games API answers, described to drf-spectacular: the views return the selectors'
dicts; these serializers only describe them and never render anything (`apikit.schema.operation`
adds each operation's errors)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema_field
from rest_framework import serializers

# --- request fields the views check themselves, described exactly --------------------------

BOT_SEAT_FIELDS = ("seat", "bot", "level")


@extend_schema_field({
    "type": "object",
    "properties": {
        "seat": {"type": "integer", "minimum": 1, "description": "the seat the bot takes (not the creator's)"},
        "bot": {"type": "string", "description": "a bot's name (GET /api/bots/)"},
        "level": {"type": "integer", "description": "its level (default: the bot's own)"},
    },
    "required": ["seat", "bot"],
    "additionalProperties": False,
})
class BotSeatField(serializers.DictField):
    """One bot seat of a new game; games.services checks its values (unknown_bot, invalid_level)."""

    allowed_keys = BOT_SEAT_FIELDS


CLOCKS = ('a clock: {"type": "step", "seconds": 90}, {"type": "correspondence", "days": 3}, '
          '{"type": "bank", "initial_hours": 240, "increment_hours": 36, "cap_hours": 240}, '
          'or {"type": "none"} (private games only: no clock)')
CLOCK_SHAPE = {"type": "object", "required": ["type"],
               "properties": {"type": {"type": "string", "enum": ["step", "correspondence", "bank", "none"]}}}


@extend_schema_field({**CLOCK_SHAPE, "nullable": True,
                      "description": f"{CLOCKS}; null or absent: correspondence, 14 days a move"})
class TimeControlField(serializers.JSONField):
    """A time control as games.time_controls reads it; null is the same as leaving it out."""


@extend_schema_field({**CLOCK_SHAPE, "description": f"{CLOCKS}; required"})
class RequiredTimeControlField(serializers.JSONField):
    """A time control that must be given (a seek's, a tournament's games'): typed in the schema as
    a game's is, so a generated client gets a model, not `Any`."""


# --- what the operations answer ---------------------------------------------------------------

ANY_OBJECT = serializers.DictField(help_text="shaped by the game's rules (GET /api/rules/)")


class OptionDescription(serializers.Serializer):
    name = serializers.CharField(help_text="the option's id, the key in a game's `options`")
    label = serializers.CharField(help_text="the option's name for people, in the reader's language (Accept-Language)")
    type = serializers.ChoiceField(choices=["bool", "int", "choice", "json"])
    default = serializers.JSONField()
    description = serializers.CharField(help_text="in the reader's language")
    choices = serializers.ListField(child=serializers.JSONField(), required=False, help_text="the values a client sends")
    choice_labels = serializers.ListField(child=serializers.CharField(), required=False,
                                          help_text="each choice's name for people, in order, in the reader's language")
    minimum = serializers.IntegerField(required=False)
    maximum = serializers.IntegerField(required=False)


class RulesDescription(serializers.Serializer):
    id = serializers.CharField()
    title = serializers.CharField()
    version = serializers.IntegerField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    chance = serializers.BooleanField(help_text="the seed decides something after setup")
    hidden_information = serializers.BooleanField(help_text="a seat may know what another does not")
    simultaneous = serializers.BooleanField(help_text="several seats may have to act at once")
    options = OptionDescription(many=True)


class RulesDetail(RulesDescription):
    move_schema = serializers.DictField(help_text="the JSON Schema of the game's moves: one object shape per move type")
    doc = serializers.CharField(allow_null=True, help_text="the game's page for players and client authors (Markdown)")


class BotDescription(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField()
    levels = serializers.ListField(child=serializers.IntegerField())
    default_level = serializers.IntegerField()
    level_descriptions = serializers.DictField(child=serializers.CharField())


class BotOfSeat(serializers.Serializer):
    name = serializers.CharField()
    level = serializers.IntegerField()


class EventPlayer(serializers.Serializer):
    username = serializers.CharField(allow_null=True)
    bot = BotOfSeat(allow_null=True)


class SeatSummary(serializers.Serializer):
    seat = serializers.IntegerField()
    username = serializers.CharField(allow_null=True)
    bot = BotOfSeat(allow_null=True)


class Deadline(serializers.Serializer):
    seat = serializers.IntegerField()
    due_at = serializers.DateTimeField(allow_null=True)
    stopped = serializers.BooleanField()
    seconds_left = serializers.FloatField()
    weekends_paused = serializers.BooleanField()


class StandIn(serializers.Serializer):
    seat = serializers.IntegerField()
    bot = serializers.CharField()


class GameSummary(serializers.Serializer):
    id = serializers.IntegerField()
    rules = serializers.CharField()
    status = serializers.ChoiceField(choices=["open", "active", "finished"])
    players = serializers.IntegerField()
    options = serializers.DictField()
    rated = serializers.BooleanField(help_text="whether the result changes the players' ratings")
    seats = SeatSummary(many=True)
    seq = serializers.IntegerField(help_text="the number of the game's latest event")
    to_act = serializers.ListField(child=serializers.IntegerField())
    time_control = serializers.DictField(allow_null=True)
    timeout_policy = serializers.CharField()
    deadline = serializers.DateTimeField(allow_null=True)
    deadlines = Deadline(many=True)
    stand_ins = StandIn(many=True)
    result = serializers.DictField(allow_null=True)
    seed_sha256 = serializers.CharField()
    created_at = serializers.DateTimeField()


class InvitationInfo(serializers.Serializer):
    game = serializers.IntegerField()
    rules = serializers.CharField()
    status = serializers.CharField(help_text="the game's status")
    by = serializers.CharField(help_text="who made the game")
    created_at = serializers.DateTimeField()


class DrawOffer(serializers.Serializer):
    by = serializers.IntegerField(help_text="the seat that offers")
    seq = serializers.IntegerField(help_text="the event of the offer")
    accepted = serializers.ListField(child=serializers.IntegerField(), help_text="the seats that accepted so far")


class TakebackRequest(serializers.Serializer):
    by = serializers.IntegerField(help_text="the seat that asks")
    seq = serializers.IntegerField(help_text="the event of the request")
    undo = serializers.IntegerField(help_text="the event of the move to take back")
    accepted = serializers.ListField(child=serializers.IntegerField(), help_text="the seats that accepted so far")


class PanelItem(serializers.Serializer):
    label = serializers.CharField()
    value = serializers.JSONField(help_text="a number or a short text")


class Panel(serializers.Serializer):
    seat = serializers.IntegerField()
    name = serializers.CharField(help_text="the game's name for the seat (White, rubbles, Red ship)")
    colour = serializers.CharField(help_text="a CSS colour name the seat's pieces are drawn in")
    score = serializers.FloatField(allow_null=True, help_text="None where the game keeps no running score")
    score_parts = PanelItem(many=True)
    resources = PanelItem(many=True)
    notes = serializers.ListField(child=serializers.CharField())
    out = serializers.BooleanField(help_text="the seat has left the game")


class Presentation(serializers.Serializer):
    panels = Panel(many=True, help_text="a panel per seat, in seat order, as your seat may see it")
    prompt = serializers.CharField(allow_null=True, help_text="one line: what your seat must do now (None: nothing)")
    touched = serializers.ListField(
        child=serializers.CharField(), help_text="the cells the last event changed, named as moves name them (\"3,4\") or by the game's own names"
    )
    ending = serializers.CharField(
        allow_null=True, help_text="once the rules have ended the game, how they decided it, in words (a tie-break named); "
                                   "None before, and where a player or the server ended it: the result's reason says why"
    )


class YourMoves(serializers.Serializer):
    """The caller's legal moves where its seat is to act, as GET legal-moves lists them: in a
    game's answer and in a move's (the same entry its view comes from)."""

    your_turn = serializers.BooleanField(help_text="whether you have moves now (then `moves` lists them)")
    moves = serializers.ListField(child=serializers.DictField(),
                                  help_text="your legal moves now, where your seat is to act (after your move: a "
                                            "simultaneous step, a turn of several actions); none otherwise")
    notation = serializers.ListField(child=serializers.CharField(), help_text="each move's human notation, in order")
    words = serializers.ListField(child=serializers.CharField(), help_text="each move described in the reader's language, in order")


class GameDetail(GameSummary, YourMoves):
    presentation = Presentation(help_text="what a page shows: the same for every game (rules.presentation)")
    your_seat = serializers.IntegerField(allow_null=True)
    private = serializers.BooleanField(help_text="unlisted: seen and joined by invitation only")
    timeouts_to_resign = serializers.IntegerField(help_text="timeouts in a row that resign a seat (0: never)")
    invitation_key = serializers.CharField(allow_null=True, help_text="to its creator only: the key of the invitation link, /games/{id}/?invitation=<key>")
    you_created = serializers.BooleanField(help_text="whether you made this game (you may cancel it before it starts)")
    draw_offer = DrawOffer(allow_null=True, help_text="the draw on offer, if any (it lapses when its seat moves)")
    takeback_request = TakebackRequest(allow_null=True, help_text="the takeback asked for, if any")
    playing = serializers.ListField(child=serializers.IntegerField(), help_text="the seats still in the game (not resigned or forfeited)")
    view = serializers.DictField(help_text="the game as your seat (or a spectator) may see it")
    seed = serializers.CharField(allow_null=True, help_text="published once the game is finished")


class GamePage(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = GameSummary(many=True)


class LegalMoves(serializers.Serializer):
    seq = serializers.IntegerField()
    seat = serializers.IntegerField()
    moves = serializers.ListField(child=serializers.DictField())
    notation = serializers.ListField(
        child=serializers.CharField(), help_text="each move's human notation, in the same order (unique per move)"
    )
    words = serializers.ListField(
        child=serializers.CharField(), help_text="each move described in the reader's language (Accept-Language), in "
                                                 "the same order: to show a person; in English the notation itself"
    )


class EventAnswer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["created", "move", "timeout", "system"])
    seat = serializers.IntegerField(allow_null=True)
    payload = serializers.DictField(allow_null=True, help_text="your own move in full; others' as they may see it")
    created_at = serializers.DateTimeField()
    hash = serializers.CharField()
    prev_hash = serializers.CharField()
    private_digest = serializers.CharField(allow_blank=True, allow_null=True)
    text = serializers.CharField(required=False, help_text="with ?notation=true: the event in words, in the reader's "
                                                           "language (Accept-Language)")
    notation = serializers.CharField(required=False, allow_null=True,
                                     help_text="with ?notation=true: a move's notation, as a reply types it (null for "
                                               "an event that is no move, or a move you may not see)")
    by = EventPlayer(required=False, allow_null=True,
                     help_text="with ?notation=true: who held the event's seat when it happened, as the log names "
                               "them (null for an event of no seat); a system event's `text` names them already")


class GameAfterMove(YourMoves):
    seq = serializers.IntegerField(help_text="the game's version now: the expected_seq of your next move")
    status = serializers.ChoiceField(choices=["open", "active", "finished"])
    to_act = serializers.ListField(child=serializers.IntegerField())
    deadlines = Deadline(many=True)
    result = serializers.DictField(allow_null=True)
    your_seat = serializers.IntegerField()
    view = serializers.DictField(help_text="the game as your seat may see it")


class MoveAnswer(EventAnswer):
    game = GameAfterMove(help_text="the game after the move as your seat sees it (its view) and "
                                   "your legal moves: a client needs no other request to play on (on an "
                                   "Idempotency-Key retry, the game as it is now, its clocks as the move left them)")


class EventsAnswer(serializers.Serializer):
    seq = serializers.IntegerField()
    events = EventAnswer(many=True)


class StateAnswer(serializers.Serializer):
    seq = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True)
    view = serializers.DictField()


class HealthAnswer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["ok", "degraded"])
    database = serializers.CharField()
    broker = serializers.CharField()


class Move(serializers.Serializer):
    expected_seq = serializers.IntegerField(min_value=0, help_text="the game's seq your move answers")
    move = serializers.DictField(help_text='a legal move as GET legal-moves lists it, {"type": ...}')


IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="a retry with the same key returns the first answer and stores nothing new (at most 200 characters)",
)
PAGE = [
    OpenApiParameter("limit", int, OpenApiParameter.QUERY, required=False, description="games a page (50; at most 200)"),
    OpenApiParameter("offset", int, OpenApiParameter.QUERY, required=False, description="games to skip"),
]
