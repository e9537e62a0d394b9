"""The event store: games, their seats, the append-only event log, and snapshots of the fold.

A game's state is never stored as truth: it is the fold of its events through its rules module,
from `setup`. Snapshots only cache that fold. Events are insert-only, enforced here (save and
delete refuse, the queryset refuses bulk updates and deletes) and, on PostgreSQL, by a trigger.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import models

from rules import record


class GameStatus(models.TextChoices):
    OPEN = "open", "open for players"
    ACTIVE = "active", "being played"
    FINISHED = "finished", "finished"


class Game(models.Model):
    rules = models.CharField(max_length=40)
    rules_version = models.PositiveIntegerField(default=1, help_text="recorded in the created event")
    players = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=GameStatus.choices, default=GameStatus.OPEN)
    seq = models.PositiveIntegerField(default=0, help_text="seq of the last event: the version")
    to_act = models.JSONField(default=list, help_text="seats that must act now (a cache)")
    result = models.JSONField(null=True, blank=True)
    seed = models.CharField(max_length=64, help_text="secret until the game ends")
    seed_sha256 = models.CharField(max_length=64)
    time_control = models.JSONField(default=dict, blank=True, help_text="games.time_controls: {} for none")
    timeout_policy = models.CharField(max_length=10, default="auto", help_text="auto, bot or forfeit")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="games_created"
    )
    private = models.BooleanField(default=False, help_text="unlisted: seen and joined by invitation only")
    timeouts_to_resign = models.PositiveSmallIntegerField(
        default=3, help_text="a seat that times out this many times in a row is resigned for (0: never)"
    )
    invitation_key = models.CharField(max_length=40, blank=True, default="", help_text="a private game's link secret")
    rated = models.BooleanField(default=False, help_text="its result changes its players' ratings (`competition`)")
    lines_waiting = models.BooleanField(
        default=False, db_default=False,
        help_text="a conditional line may wait: a move wakes the line worker (never shown to anyone)",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True, help_text="when the game finished (set once)")

    class Meta:
        ordering = ("-id",)
        # A move rewrites the row (seq, to_act, updated_at). No index names a column a move
        # changes, so PostgreSQL updates the row in place on its page (a HOT update) and touches
        # no index; the table leaves room on each page for it (migration 0015's fillfactor).
        indexes = [
            models.Index(fields=("status", "-id")),
            # the ratings' sweep: rated games finished lately
            models.Index(fields=("finished_at",), condition=models.Q(rated=True, status="finished"),
                         name="game_rated_finished_at"),
        ]

    def __str__(self) -> str:
        return f"{self.rules} #{self.pk} ({self.status})"

    def seat_rows(self) -> Iterable[Seat]:
        """`self.seats.all()`, without making a related manager when the seats were loaded with
        the game (a move's locked read, a prefetch): a move asks for them several times, and each
        manager made cost more than the loop over two seats."""
        return _loaded(self, "seats")

    def deadline_rows(self) -> Iterable[Deadline]:
        """`self.deadlines.all()`, the same way."""
        return _loaded(self, "deadlines")

    @staticmethod
    def hash_seed(seed: str) -> str:
        return record.seed_commitment(seed)


def _loaded(game: Game, name: str) -> Iterable[Any]:
    read = game.__dict__.get("_read_rows")  # the rows a reader's one statement brought (`games.stores`' game_read)
    if read is not None:
        return read[name]
    cache = getattr(game, "_prefetched_objects_cache", None)
    if cache is not None and name in cache:
        return cache[name]
    return getattr(game, name).all()


class InvitationStatus(models.TextChoices):
    PENDING = "pending", "pending"
    DECLINED = "declined", "declined"
    ACCEPTED = "accepted", "accepted: the invitee took a seat"
    CANCELLED = "cancelled", "cancelled by the game's creator"


class Invitation(models.Model):
    """A named account invited to a private game: it may see and join it, or decline."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="invitations")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations")
    status = models.CharField(max_length=10, choices=InvitationStatus.choices, default=InvitationStatus.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=("game", "user"), name="invitation_one_per_user")]


class Seat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="seats"
    )
    bot = models.CharField(max_length=20, blank=True, default="")
    bot_level = models.PositiveSmallIntegerField(null=True, blank=True)
    stand_in = models.CharField(
        max_length=20, blank=True, default="", help_text="bot playing for a timed-out owner until they return"
    )
    bank_seconds = models.FloatField(null=True, blank=True, help_text="a bank clock's time left")
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("game", "index")
        constraints = [
            models.UniqueConstraint(fields=("game", "index"), name="seat_unique_index"),
            models.UniqueConstraint(
                fields=("game", "user"), name="seat_one_per_user", condition=models.Q(user__isnull=False)
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.index} of game {self.game_id}"


class EventKind(models.TextChoices):
    CREATED = "created", "game created"
    MOVE = "move", "move"
    TIMEOUT = "timeout", "timeout"
    SYSTEM = "system", "system"


class ImmutableEventError(Exception):
    """An attempt to change or delete an event."""


class EventQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise ImmutableEventError("events are append-only: never updated")

    def delete(self):
        raise ImmutableEventError("events are append-only: never deleted")


class Event(models.Model):
    """One immutable entry of a game's log (written only by `games.log.append`).

    `payload` is the whole event as the rules fold it (a move, with any secret choice);
    `public_payload` is what other seats may see while the game runs (the rules' `public_move`).
    `hash` chains the event to the previous one: SHA-256 over the previous hash and this event's
    public content, so any change to the past breaks every later hash. The public content
    commits to `payload` only through `private_digest`, a salted digest (see `games.log`): the
    chain can be checked by anyone while the game runs without giving a searchable hash of a
    secret, and the private part is checked once the seed, and so every salt, is published.
    Events written before that scheme have an empty `private_digest` and hash the payload itself.
    """

    # Found through (game, seq)'s unique index: an index of its own would be one more to write a move.
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=EventKind.choices)
    seat = models.SmallIntegerField(null=True, blank=True)
    payload = models.JSONField()
    public_payload = models.JSONField()
    created_at = models.DateTimeField()
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)
    private_digest = models.CharField(max_length=64, blank=True, default="")

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ("game", "seq")
        constraints = [models.UniqueConstraint(fields=("game", "seq"), name="event_unique_seq")]

    def __str__(self) -> str:
        return f"event {self.seq} of game {self.game_id} ({self.kind})"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise ImmutableEventError("events are append-only: never updated")
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableEventError("events are append-only: never deleted")

    def content(self) -> dict:
        """What the hash covers: public fields only, the payload through its salted digest
        (`rules.record`, which the game record's verifier shares). Events written before salted
        digests hash the payload itself, so that their chains still verify; such a hash is
        searchable for a secret with few candidates."""
        return record.event_content(
            game=self.game_id, seq=self.seq, kind=self.kind, seat=self.seat, payload=self.payload,
            public_payload=self.public_payload, private_digest=self.private_digest,
            created_at=self.created_at.isoformat(),
        )

    def compute_hash(self) -> str:
        return record.event_hash(self.prev_hash, self.content())


GENESIS_HASH = record.GENESIS_HASH


class Snapshot(models.Model):
    """The folded state after event `seq`: a cache, rebuilt from events whenever missing.

    It is trusted only while it proves itself: `event_hash` is the hash of the event it folds up
    to and `state_digest` the SHA-256 of its state's canonical JSON (`games.store`)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="snapshots")
    seq = models.PositiveIntegerField()
    state = models.JSONField()
    event_hash = models.CharField(max_length=64, blank=True, default="")
    state_digest = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("game", "-seq")
        constraints = [models.UniqueConstraint(fields=("game", "seq"), name="snapshot_unique_seq")]


class IdempotencyKey(models.Model):
    """A move submitted with an `Idempotency-Key`: a retry with the same key and body gets the
    same event back (events never change, so the same answer) and stores nothing new."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    key = models.CharField(max_length=200)
    request_digest = models.CharField(max_length=64)
    event = models.ForeignKey(Event, on_delete=models.PROTECT)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=("user", "key"), name="idempotency_unique_key")]


class Deadline(models.Model):
    """When a seat that must act runs out of time; see `games.deadlines` for the whole design.

    One row per (game, seat) in `to_act`, written in the transaction of the event that made the
    seat due, kept at the game's current `seq`, deleted when the seat no longer must act.
    `due_at` is NULL while the clock is stopped (its owner on vacation).
    """

    # Found through (game, seat)'s unique index, as events are through (game, seq)'s.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="deadlines", db_index=False)
    seat = models.PositiveSmallIntegerField()
    seq = models.PositiveIntegerField(help_text="the game's seq this deadline applies at")
    due_at = models.DateTimeField(null=True, blank=True)
    budget_seconds = models.FloatField(help_text="counted seconds the seat had when it became due")
    spent_seconds = models.FloatField(default=0, help_text="counted seconds used before running_since")
    running_since = models.DateTimeField(null=True, blank=True, help_text="NULL while stopped")
    enqueued_at = models.DateTimeField(null=True, blank=True, help_text="last time the sweeper sent it")

    class Meta:
        ordering = ("due_at",)
        indexes = [models.Index(fields=("due_at",))]
        constraints = [models.UniqueConstraint(fields=("game", "seat"), name="deadline_unique_seat")]

    def __str__(self) -> str:
        return f"deadline of seat {self.seat} in game {self.game_id} at {self.due_at}"


class ConditionalLine(models.Model):
    """A line a player queued while waiting: "if they play X, I play Y", chained. `moves` is the
    part still to come, each {"seat", "move"} (canonical moves, the opponent's and the owner's in
    the order they would be played); `anchor_seq` is the game's seq the line starts after. Seen
    only by its owner until the server plays it (`games.services.conditionals`). The id is
    random, so ids tell nobody how many lines exist."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seat = models.SmallIntegerField()
    moves = models.JSONField()
    anchor_seq = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=("game", "seat", "created_at"), name="conditional_game_seat")]


class RematchOffer(models.Model):
    """A rematch offered after a finished game (`games.rematch`): the seat that offered it and,
    once accepted, the game it made. A row and not an event of the game: the finished game's log
    is closed (docs/decisions/0022-rematch-offer-a-row.md). One a game; its row lock makes two
    accepts at once one game, in any process."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="+")
    offered_by = models.SmallIntegerField()
    made = models.ForeignKey(Game, on_delete=models.SET_NULL, null=True, related_name="+")
    offered_at = models.DateTimeField(auto_now_add=True)
