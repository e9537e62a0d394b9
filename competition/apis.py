"""`/api/seeks/`, `/api/tournaments/`, `/api/leaderboards/` and `/api/players/{username}/`.

Seeking, entering and organising need an account and the `play` scope; every read is open.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response

import rules
from accounts import auth
from apikit.schema import operation
from apikit.views import PlainTextApi, ScopedApi, validated
from competition import pairing, rating_fold, selectors, tournament_service
from competition.models import SeekStatus, TournamentKind, TournamentStatus
from games import schema as games_schema


class RatingRange(serializers.Serializer):
    min = serializers.FloatField(required=False, allow_null=True, default=None)
    max = serializers.FloatField(required=False, allow_null=True, default=None)


class SeekInfo(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    rules = serializers.CharField()
    players = serializers.IntegerField()
    options = serializers.DictField()
    time_control = serializers.DictField()
    rated = serializers.BooleanField()
    rating = serializers.IntegerField(help_text="the seeker's rating in the game's pool")
    rating_range = RatingRange(help_text="the partners' ratings it accepts (null: no bound)")
    status = serializers.ChoiceField(choices=SeekStatus.values)
    game = serializers.IntegerField(allow_null=True, help_text="the game made for it, once paired")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


class ReadOpenWriteSignedIn(ScopedApi):
    def get_permissions(self):
        allowed = IsAuthenticated() if self.request.method in ("POST", "DELETE") else AllowAny()
        return [allowed, auth.TokenScopes()]

    scopes = {"GET": "read", "POST": "play", "DELETE": "play"}


class SeeksApi(ReadOpenWriteSignedIn):
    """Open seeks, and seeking a game."""

    class SeekFilterSerializer(serializers.Serializer):
        mine = serializers.BooleanField(required=False, default=False, help_text="your seeks, whatever their status")

    class SeekCreateInputSerializer(serializers.Serializer):
        rules = serializers.CharField(max_length=40)
        players = serializers.IntegerField()
        options = serializers.DictField(required=False, default=dict)
        time_control = games_schema.RequiredTimeControlField()
        rated = serializers.BooleanField(required=False, default=True)
        rating_range = RatingRange(required=False, default=dict,
                                   help_text="pair only with players rated within it")
        expires_in = serializers.IntegerField(required=False, default=pairing.DEFAULT_EXPIRES_IN,
                                              help_text="seconds before it lapses unpaired (10 to 604800)")

    @operation("seekList", summary="Open seeks, oldest first (or yours, with ?mine=true)", answer=SeekInfo(many=True),
               parameters=[SeekFilterSerializer], codes=["invalid_input"], scope="read")
    def get(self, request):
        mine = validated(self.SeekFilterSerializer, request.query_params)["mine"]
        return Response(selectors.seek_list(user=request.user, mine=mine and request.user.is_authenticated))

    @operation("seekCreate", summary="Seek a game: the server pairs it with compatible seeks and makes the game",
               answer=SeekInfo, status=201, request=SeekCreateInputSerializer, body=True, auth="required",
               codes=["unknown_rules", "invalid_option", "too_many_seeks"], rules_statuses=[400], scope="play")
    def post(self, request):
        data = validated(self.SeekCreateInputSerializer, request.data)
        seek = pairing.seek_create(
            user=request.user, rules_id=data["rules"], players=data["players"], options=data["options"],
            time_control=data["time_control"], rated=data["rated"], rating_min=data["rating_range"].get("min"),
            rating_max=data["rating_range"].get("max"), expires_in=data["expires_in"],
        )
        return Response(selectors.seek_get(user=request.user, seek_id=seek.pk), status=status.HTTP_201_CREATED)


class SeekApi(ReadOpenWriteSignedIn):
    def get_permissions(self):  # a seek is its owner's to read, too
        return [IsAuthenticated(), auth.TokenScopes()]

    @operation("seekGet", summary="One of your seeks (its game, once paired)", answer=SeekInfo, auth="required",
               codes=["not_found", "seek_not_found"], scope="read")
    def get(self, request, seek_id: int):
        return Response(selectors.seek_get(user=request.user, seek_id=seek_id))

    @operation("seekCancel", summary="Cancel your seek (a paired one stays paired)", answer=SeekInfo, auth="required",
               codes=["not_found", "seek_not_found"], scope="play")
    def delete(self, request, seek_id: int):
        pairing.seek_cancel(user=request.user, seek_id=seek_id)
        return Response(selectors.seek_get(user=request.user, seek_id=seek_id))


# --- tournaments ------------------------------------------------------------------------------


class TournamentSummary(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=TournamentKind.values)
    rules = serializers.CharField()
    players = serializers.IntegerField(help_text="seats at each table")
    options = serializers.DictField()
    time_control = serializers.DictField()
    rated = serializers.BooleanField()
    rounds = serializers.IntegerField(allow_null=True, help_text="null until it starts, if not chosen")
    half_point_byes = serializers.IntegerField(help_text="a Swiss: how many rounds each entrant may ask to sit out "
                                                         "for half a point (0 for a round robin)")
    current_round = serializers.IntegerField()
    status = serializers.ChoiceField(choices=TournamentStatus.values)
    starts_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    organiser = serializers.CharField()
    entrants = serializers.IntegerField()


class StandingRow(serializers.Serializer):
    rank = serializers.IntegerField(help_text="shared when every tie-break is equal")
    entrant = serializers.IntegerField()
    name = serializers.CharField()
    points = serializers.FloatField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    byes = serializers.IntegerField()
    forfeits = serializers.IntegerField(help_text="round robin games won because the opponent withdrew")
    buchholz = serializers.FloatField(help_text="the sum of the opponents' points; a bye or forfeit counts as an "
                                                "opponent with the entrant's own points, an unplayed game not at all")
    sonneborn_berger = serializers.FloatField(help_text="the sum of each opponent's points times the result against them")
    rating = serializers.IntegerField(help_text="the rating entered with")
    withdrawn = serializers.BooleanField(help_text="left during the tournament: keeps its points, plays no more rounds")


class TableInfo(serializers.Serializer):
    table = serializers.IntegerField()
    game = serializers.IntegerField(allow_null=True)
    bye = serializers.BooleanField(help_text="one entrant and no game: a pairing bye, a bye the entrant asked for "
                                             "(see `asked_for`), or a forfeit (see `forfeit`)")
    asked_for = serializers.BooleanField(help_text="a bye the entrant asked for (half a point; an imported file's "
                                                   "may be a whole one), not the pairing's")
    forfeit = serializers.BooleanField(help_text="a round robin game a withdrawn entrant will not play: the one "
                                                 "entrant present takes the point")
    seats = serializers.ListField(child=serializers.CharField(), help_text="entrants' names, by seat")
    points = serializers.ListField(child=serializers.FloatField(), allow_null=True, help_text="by seat, once ended")


class RoundInfo(serializers.Serializer):
    round = serializers.IntegerField()
    tables = TableInfo(many=True)


class EntrantInfo(serializers.Serializer):
    id = serializers.IntegerField(help_text="the entrant's id in this tournament (the standings' `entrant`)")
    name = serializers.CharField()
    username = serializers.CharField(allow_null=True)
    is_bot = serializers.BooleanField()
    rating = serializers.IntegerField()
    withdrawn = serializers.BooleanField()
    byes_asked = serializers.ListField(child=serializers.IntegerField(),
                                       help_text="the rounds it asked to sit out for half a point, in order")


class TournamentDetail(TournamentSummary):
    entrant_list = EntrantInfo(many=True)
    round_list = RoundInfo(many=True)
    standings = StandingRow(many=True)


class TournamentsApi(ReadOpenWriteSignedIn):
    class TournamentCreateInputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=100)
        kind = serializers.ChoiceField(choices=TournamentKind.values)
        rules = serializers.CharField(max_length=40)
        players = serializers.IntegerField(required=False, default=2)
        options = serializers.DictField(required=False, default=dict)
        time_control = games_schema.RequiredTimeControlField()
        rated = serializers.BooleanField(required=False, default=True)
        rounds = serializers.IntegerField(required=False, allow_null=True, default=None,
                                          help_text="Swiss: rounds to play (default ⌈log2 entrants⌉)")
        half_point_byes = serializers.IntegerField(required=False, default=1,
                                                   help_text="Swiss: how many rounds each entrant may ask to sit out "
                                                             "for half a point, 0 to 10")
        starts_at = serializers.DateTimeField(help_text="entries close and round 1 begins then")

    @operation("tournamentList", summary="Tournaments, newest first", answer=TournamentSummary(many=True), scope="read")
    def get(self, request):
        return Response(selectors.tournament_list())

    @operation("tournamentCreate", summary="Organise a round robin or a Swiss tournament", answer=TournamentDetail,
               status=201, request=TournamentCreateInputSerializer, body=True, auth="required",
               codes=["unknown_rules", "invalid_option"], rules_statuses=[400], scope="play")
    def post(self, request):
        data = validated(self.TournamentCreateInputSerializer, request.data)
        tournament = tournament_service.tournament_create(
            user=request.user, name=data["name"], kind=data["kind"], rules_id=data["rules"], players=data["players"],
            options=data["options"], time_control=data["time_control"], rated=data["rated"],
            starts_at=data["starts_at"], rounds=data["rounds"], half_point_byes=data["half_point_byes"],
        )
        return Response(selectors.tournament_detail(tournament_id=tournament.pk), status=status.HTTP_201_CREATED)


class TournamentApi(ReadOpenWriteSignedIn):
    @operation("tournamentGet", summary="A tournament: entrants, rounds and tables, standings with tie-breaks",
               answer=TournamentDetail, codes=["not_found", "tournament_not_found"], scope="read")
    def get(self, request, tournament_id: int):
        return Response(selectors.tournament_detail(tournament_id=tournament_id))


class TournamentTrfApi(PlainTextApi):
    """The tournament as a FIDE Tournament Report File (TRF16): plain text, one line per entrant,
    for an arbiter's own pairing tools (bbpPairings, JaVaFo)."""

    permission_classes = (AllowAny,)

    @operation("tournamentTrf", summary="The tournament as a FIDE TRF16 file (plain text; rounds finished so far)",
               answer=OpenApiTypes.STR, status=(200, "text/plain"),
               codes=["not_found", "tournament_not_found", "trf_two_player_only"], scope="read")
    def get(self, request, tournament_id: int):
        text = selectors.tournament_trf(tournament_id=tournament_id)
        response = HttpResponse(text, content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = f'inline; filename="tournament-{tournament_id}.trf"'
        return response


class TournamentJoinApi(ReadOpenWriteSignedIn):
    @operation("tournamentJoin", summary="Enter a tournament before it starts, or a running Swiss until its last "
                                         "round is paired (a late entry: paired from the next round)",
               answer=TournamentDetail, status=201,
               auth="required", codes=["not_found", "tournament_not_found", "tournament_closed", "already_entered"], scope="play")
    def post(self, request, tournament_id: int):
        tournament_service.tournament_join(user=request.user, tournament_id=tournament_id)
        return Response(selectors.tournament_detail(tournament_id=tournament_id), status=status.HTTP_201_CREATED)

    @operation("tournamentLeave", summary="Withdraw: before the start your entry is gone; once running, you play no further round",
               answer=TournamentDetail,
               auth="required", codes=["not_found", "tournament_not_found", "tournament_closed"], scope="play")
    def delete(self, request, tournament_id: int):
        tournament_service.tournament_leave(user=request.user, tournament_id=tournament_id)
        return Response(selectors.tournament_detail(tournament_id=tournament_id))


class TournamentStartApi(ReadOpenWriteSignedIn):
    @operation("tournamentStart", summary="Start now rather than at the set time (the organiser only; "
                                          "invalid_input with too few entrants, nothing changed)",
               answer=TournamentDetail, auth="required",
               codes=["not_found", "tournament_not_found", "tournament_closed", "not_the_organiser", "invalid_input"],
               scope="play")
    def post(self, request, tournament_id: int):
        tournament_service.tournament_start(user=request.user, tournament_id=tournament_id)
        return Response(selectors.tournament_detail(tournament_id=tournament_id))


_BYE_REFUSALS = ["not_found", "tournament_not_found", "tournament_closed", "byes_swiss_only", "not_entered",
                 "round_already_paired"]


class TournamentByesApi(ReadOpenWriteSignedIn):
    class TournamentByeInputSerializer(serializers.Serializer):
        round = serializers.IntegerField(min_value=1, max_value=tournament_service.MAX_ROUNDS,
                                         help_text="the round to sit out, not yet paired")

    @operation("tournamentByeAsk", summary="Ask to sit out a round of a Swiss for half a point (before it is paired; "
                                           "asking again for the same round changes nothing)",
               answer=TournamentDetail, status=201, request=TournamentByeInputSerializer, body=True, auth="required",
               codes=[*_BYE_REFUSALS, "too_many_byes", "invalid_input"], scope="play")
    def post(self, request, tournament_id: int):
        data = validated(self.TournamentByeInputSerializer, request.data)
        tournament_service.tournament_bye_ask(user=request.user, tournament_id=tournament_id, round_number=data["round"])
        return Response(selectors.tournament_detail(tournament_id=tournament_id), status=status.HTTP_201_CREATED)


class TournamentByeApi(ReadOpenWriteSignedIn):
    @operation("tournamentByeTakeBack", summary="Play a round after all: the bye asked for is taken back (before the "
                                                "round is paired)",
               answer=TournamentDetail, auth="required", codes=[*_BYE_REFUSALS, "bye_not_asked"], scope="play")
    def delete(self, request, tournament_id: int, round_number: int):
        tournament_service.tournament_bye_take_back(user=request.user, tournament_id=tournament_id,
                                                    round_number=round_number)
        return Response(selectors.tournament_detail(tournament_id=tournament_id))


class TournamentEntrantApi(ReadOpenWriteSignedIn):
    @operation("tournamentEntrantRemove", summary="Take an entrant out (the organiser only): before the start the "
                                                  "entry is gone; once running it plays no further round",
               answer=TournamentDetail, auth="required",
               codes=["not_found", "tournament_not_found", "tournament_closed", "not_the_organiser",
                      "entrant_not_found"], scope="play")
    def delete(self, request, tournament_id: int, entrant_id: int):
        tournament_service.tournament_entrant_remove(user=request.user, tournament_id=tournament_id,
                                                     entrant_id=entrant_id)
        return Response(selectors.tournament_detail(tournament_id=tournament_id))


class TournamentBotsApi(ReadOpenWriteSignedIn):
    class TournamentBotInputSerializer(serializers.Serializer):
        bot = serializers.CharField(max_length=20)
        level = serializers.IntegerField(required=False, allow_null=True, default=None)

    @operation("tournamentBotAdd", summary="Enter one of the server's bots (the organiser only)",
               answer=TournamentDetail, status=201, request=TournamentBotInputSerializer, body=True, auth="required",
               codes=["not_found", "tournament_not_found", "tournament_closed", "not_the_organiser", "unknown_bot", "invalid_level"],
               scope="play")
    def post(self, request, tournament_id: int):
        data = validated(self.TournamentBotInputSerializer, request.data)
        tournament_service.tournament_bot_add(user=request.user, tournament_id=tournament_id, **data)
        return Response(selectors.tournament_detail(tournament_id=tournament_id), status=status.HTTP_201_CREATED)


# --- leaderboards and profiles ----------------------------------------------------------------


class RatingInfo(serializers.Serializer):
    name = serializers.CharField()
    is_bot = serializers.BooleanField()
    rules = serializers.CharField()
    time_class = serializers.ChoiceField(choices=rating_fold.TIME_CLASSES)
    system = serializers.ChoiceField(choices=["glicko2", "plackett_luce"],
                                     help_text="glicko2 rates two-player games; plackett_luce three and four")
    rating = serializers.IntegerField()
    deviation = serializers.IntegerField(help_text="the rating's uncertainty today: it shrinks with games and grows "
                                                   "with the time since the last one")
    provisional = serializers.BooleanField(help_text="too few recent games to be sure (shown with ?): deviation above "
                                                     "110 (glicko2), sigma above 4.5, 270 shown (plackett_luce)")
    conservative = serializers.IntegerField(help_text="a rating the player is very likely above, what leaderboards "
                                                      "rank by: rating - 2 x deviation (glicko2), the ordinal "
                                                      "(mu - 3 sigma) x 60 (plackett_luce)")
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    last_played_at = serializers.DateTimeField()


class Leaderboard(serializers.Serializer):
    rules = serializers.CharField()
    time_class = serializers.CharField()
    system = serializers.ChoiceField(choices=["glicko2", "plackett_luce"],
                                     help_text="the pool shown: ?system=, or two-player if it has anyone")
    rule = serializers.CharField(help_text="who is listed and by what they are ranked, in words")
    people = RatingInfo(many=True)
    bots = RatingInfo(many=True)


class Pool(serializers.Serializer):
    rules = serializers.CharField()
    time_class = serializers.CharField()
    system = serializers.CharField()


class LeaderboardsApi(ScopedApi):
    permission_classes = (AllowAny,)

    @operation("leaderboardPools", summary="The rating pools that have players", answer=Pool(many=True), scope="read")
    def get(self, request):
        return Response(selectors.leaderboard_pools())


class LeaderboardApi(ScopedApi):
    permission_classes = (AllowAny,)

    class LeaderboardFilterSerializer(serializers.Serializer):
        system = serializers.ChoiceField(choices=["glicko2", "plackett_luce"], required=False)

    @operation("leaderboardGet", summary="A pool's top players, people and bots apart", answer=Leaderboard,
               parameters=[LeaderboardFilterSerializer], codes=["invalid_input", "not_found"], scope="read")
    def get(self, request, rules_id: str, time_class: str):
        system = validated(self.LeaderboardFilterSerializer, request.query_params).get("system")
        if rules_id not in rules.catalog() or time_class not in rating_fold.TIME_CLASSES:
            raise NotFound(_("there is no leaderboard {rules_id}/{time_class}").format(rules_id=rules_id, time_class=time_class))  # as documented, not an empty pool
        return Response(selectors.leaderboard(rules_id=rules_id, time_class=time_class, system=system))


class HistoryPoint(serializers.Serializer):
    game = serializers.IntegerField()
    at = serializers.DateTimeField()
    rating = serializers.IntegerField()
    deviation = serializers.IntegerField()
    outcome = serializers.ChoiceField(choices=["win", "draw", "loss"])


class PoolRating(RatingInfo):
    history = HistoryPoint(many=True, help_text="after each rated game, oldest first (the last 500)")


class CurrentGame(serializers.Serializer):
    id = serializers.IntegerField()
    rules = serializers.CharField()
    players = serializers.IntegerField()
    rated = serializers.BooleanField()
    time_control = serializers.DictField(allow_null=True)


class PlayerProfile(serializers.Serializer):
    username = serializers.CharField()
    is_bot = serializers.BooleanField()
    games = serializers.IntegerField(help_text="rated games, every pool")
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    ratings = PoolRating(many=True)
    current_games = CurrentGame(many=True)


class PlayerApi(ScopedApi):
    permission_classes = (AllowAny,)

    @operation("playerGet", summary="A player's ratings with their history, tally and current games",
               answer=PlayerProfile, codes=["not_found", "player_not_found"], scope="read")
    def get(self, request, username: str):
        return Response(selectors.player_profile(username=username, viewer=request.user))
