"""Competitive play: ratings, seeks, tournaments.

A game is named by its id only (`game_id`), never by a foreign key into `games`: this app reads
games through `games.selectors` and makes them through `games.services`, like every door.

A player in a rating pool is a `player` key: `u<id>` for an account (a person, or a program
playing through the API), `bot:<name>:<level>` for a built-in bot. Bots are rated in the same
pool as people and marked `is_bot`, so leaderboards can list them apart.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Rating(models.Model):
    """A player's current standing in one pool: (rules, time class, system). A projection of
    `RatingChange`, itself a fold of the finished rated games (`competition.rating_fold`)."""

    player = models.CharField(max_length=60)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                             related_name="ratings")
    name = models.CharField(max_length=160, help_text="the username, or the bot's name and level")
    is_bot = models.BooleanField(default=False)
    rules = models.CharField(max_length=40)
    time_class = models.CharField(max_length=16, help_text="step, correspondence or bank")
    system = models.CharField(max_length=16, help_text="glicko2 (two players) or plackett_luce (three or more)")
    mu = models.FloatField()
    sigma = models.FloatField()
    volatility = models.FloatField()
    rating = models.FloatField(help_text="on the display scale")
    deviation = models.FloatField(help_text="on the display scale")
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    last_played_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("rules", "time_class", "system", "player"), name="rating_one_per_pool"),
        ]
        indexes = [models.Index(fields=("rules", "time_class", "system", "is_bot", "-rating"), name="rating_board")]


class RatingChange(models.Model):
    """One player's rating change from one game: the rating event. `position` orders a pool's
    games as they were folded (by the game's finish, then its id)."""

    game_id = models.BigIntegerField()
    finished_at = models.DateTimeField()
    rules = models.CharField(max_length=40)
    time_class = models.CharField(max_length=16)
    system = models.CharField(max_length=16)
    player = models.CharField(max_length=60)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveSmallIntegerField()
    rank = models.PositiveSmallIntegerField(help_text="1 the best; tied seats share a rank")
    outcome = models.CharField(max_length=5, help_text="win, draw or loss")
    rating_before = models.FloatField()
    deviation_before = models.FloatField()
    rating_after = models.FloatField()
    deviation_after = models.FloatField()
    mu = models.FloatField()
    sigma = models.FloatField()
    volatility = models.FloatField()

    class Meta:
        ordering = ("finished_at", "game_id", "seat")
        constraints = [models.UniqueConstraint(fields=("game_id", "seat"), name="rating_change_once")]
        indexes = [
            models.Index(fields=("player", "rules", "time_class", "system", "finished_at"), name="rating_history"),
            models.Index(fields=("rules", "time_class", "system", "finished_at"), name="rating_pool_order"),
        ]


class RatedGame(models.Model):
    """A finished game the ratings have seen, rated or passed over (casual, aborted): the fold's
    cursor, so a game is never counted twice."""

    game_id = models.BigIntegerField(unique=True)
    finished_at = models.DateTimeField(db_index=True)
    counted = models.BooleanField(help_text="false: seen and passed over (why in `reason`)")
    reason = models.CharField(max_length=40, blank=True, default="")


class RatingLedger(models.Model):
    """One row, locked while ratings are folded: folds run one at a time, in the games' order,
    whichever worker runs them."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)


class SeekStatus(models.TextChoices):
    OPEN = "open", "waiting for a partner"
    PAIRED = "paired", "paired: its game is made"
    CANCELLED = "cancelled", "cancelled by its owner"
    EXPIRED = "expired", "expired unpaired"


class Seek(models.Model):
    """An account looking for a game: paired with compatible seeks by the workers
    (`competition.pairing`). `bucket` is a digest of what must match exactly."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seeks")
    rules = models.CharField(max_length=40)
    players = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict)
    time_control = models.JSONField(default=dict)
    rated = models.BooleanField(default=True)
    rating_min = models.FloatField(null=True, blank=True)
    rating_max = models.FloatField(null=True, blank=True)
    rating = models.FloatField(help_text="the seeker's rating in the pool when it seeks")
    bucket = models.CharField(max_length=64)
    status = models.CharField(max_length=10, choices=SeekStatus.choices, default=SeekStatus.OPEN)
    game_id = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    paired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("created_at", "id")
        indexes = [models.Index(fields=("status", "bucket", "created_at"), name="seek_open_bucket")]


class TournamentKind(models.TextChoices):
    ROUND_ROBIN = "round_robin", "round robin"
    SWISS = "swiss", "Swiss"


class TournamentStatus(models.TextChoices):
    REGISTERING = "registering", "taking entries"
    RUNNING = "running", "being played"
    FINISHED = "finished", "finished"
    CANCELLED = "cancelled", "cancelled (too few entrants at its start)"


class Tournament(models.Model):
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=12, choices=TournamentKind.choices)
    rules = models.CharField(max_length=40)
    players = models.PositiveSmallIntegerField(help_text="seats at each table")
    options = models.JSONField(default=dict)
    time_control = models.JSONField(default=dict)
    rated = models.BooleanField(default=True)
    rounds = models.PositiveSmallIntegerField(help_text="planned rounds (a round robin: fixed by its entrants)")
    half_point_byes = models.PositiveSmallIntegerField(
        default=1, help_text="a Swiss: how many rounds each entrant may ask to sit out for half a point")
    starts_at = models.DateTimeField()
    status = models.CharField(max_length=12, choices=TournamentStatus.choices, default=TournamentStatus.REGISTERING)
    current_round = models.PositiveSmallIntegerField(default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournaments_created")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-id",)
        indexes = [models.Index(fields=("status", "starts_at"), name="tournament_due")]


class Entrant(models.Model):
    """A tournament's entrant: an account, or a built-in bot its creator entered."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    bot = models.CharField(max_length=20, blank=True, default="")
    bot_level = models.PositiveSmallIntegerField(null=True, blank=True)
    name = models.CharField(max_length=160)
    seed_rating = models.FloatField(default=1500, help_text="the rating it entered with: ties in pairing")
    withdrawn = models.BooleanField(default=False)
    byes_asked = models.JSONField(default=list, blank=True,
                                  help_text="the rounds it asked to sit out for half a point, in order")
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("id",)
        constraints = [
            models.UniqueConstraint(fields=("tournament", "user"), name="entrant_once",
                                    condition=models.Q(user__isnull=False)),
        ]


class Table(models.Model):
    """One game of a round (or a bye: no game, one entrant). `entrants` lists Entrant ids by
    seat; `points` the tournament points each took, filled in when the game ends."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    round = models.PositiveSmallIntegerField()
    number = models.PositiveSmallIntegerField()
    entrants = models.JSONField()
    game_id = models.BigIntegerField(null=True, blank=True, unique=True)
    points = models.JSONField(null=True, blank=True)
    scores = models.JSONField(null=True, blank=True, help_text="the game's scores by seat, as the rules gave them")
    places = models.JSONField(null=True, blank=True,
                              help_text="the outcome's ranking by seat, 1 the best (results between two)")
    reason = models.CharField(max_length=40, blank=True, default="",
                              help_text="how the game ended; `bye`, or `forfeit` for a withdrawn opponent's game")
    finished = models.BooleanField(default=False)

    class Meta:
        ordering = ("round", "number")
        constraints = [models.UniqueConstraint(fields=("tournament", "round", "number"), name="table_once")]
