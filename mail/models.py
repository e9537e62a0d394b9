"""Play by email: each account's mail choices, the per-seat reply addresses, every mail sent and
every mail received.

A game is named by its id only (`game_id`), never by a foreign key into `games`: this app reads
games through `games.selectors` and writes through `games.services`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from consumers.outbox import OutboxRow


class Cadence(models.TextChoices):
    IMMEDIATE = "immediate", "a mail for each notice"
    DIGEST = "digest", "one mail a day with every notice"
    NONE = "none", "no mail"


class Preference(models.Model):
    """How an account wants its mail: the cadence (with per-game overrides), the time zone its
    deadlines are written in, the local hour of its daily digest, and whether mail bounced."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mail_preference")
    cadence = models.CharField(max_length=10, choices=Cadence.choices, default=Cadence.IMMEDIATE)
    game_cadence = models.JSONField(default=dict, blank=True, help_text='per game: {"<game id>": cadence}')
    time_zone = models.CharField(max_length=64, default="UTC")
    digest_hour = models.PositiveSmallIntegerField(default=8, help_text="local hour the daily digest goes out")
    next_digest_at = models.DateTimeField(null=True, blank=True, help_text="NULL: nothing held for a digest")
    bounced_at = models.DateTimeField(null=True, blank=True, help_text="a hard bounce turned mail off")
    bounce_reason = models.CharField(max_length=300, blank=True, default="")
    verified_email = models.CharField(max_length=254, blank=True, default="",
                                      help_text="the address whose link was followed: mail goes only to it")
    play_forced = models.BooleanField(default=True, help_text="the server plays a seat's only legal move for it")
    command_key = models.CharField(max_length=32, blank=True, default="",
                                   help_text="in the command address's mac: a new one replaces the address (empty: the first)")

    def cadence_for(self, game_id: int | None) -> str:
        if self.bounced_at is not None:
            return Cadence.NONE
        if game_id is not None and str(game_id) in self.game_cadence:
            return self.game_cadence[str(game_id)]
        return self.cadence


class SeatAddress(models.Model):
    """The secret in a seat's reply address, play+<token>@MAIL_DOMAIN. Only that seat's mails
    carry it; rotating it makes the old address unknown."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mail_addresses")
    game_id = models.BigIntegerField()
    seat = models.PositiveSmallIntegerField()
    token = models.CharField(max_length=40, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=("game_id", "seat", "user"), name="mail_address_unique_seat")]


class RetiredAddress(models.Model):
    """An address of the account's that was replaced (its command address, or a seat's reply
    address): mail to it is not read, and gets one short answer, sent only to the account's own
    address, naming the address that replaced it (`mail.services.rotation`)."""

    address = models.CharField(max_length=80, unique=True, help_text="the local part, lower-cased: me+<id>-<mac>, play+<token>")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mail_retired")
    game_id = models.BigIntegerField(null=True, blank=True, help_text="a seat's reply address: its game")
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    retired_at = models.DateTimeField(auto_now_add=True)


class OutgoingStatus(models.TextChoices):
    HELD = "held", "held for the daily digest"
    PENDING = "pending", "to send"
    SENT = "sent", "handed to the mail server"
    DIGESTED = "digested", "sent inside a digest"
    DROPPED = "dropped", "not sent: mail turned off before it went"
    FAILED = "failed", "the mail server refused it for good"


class Outgoing(OutboxRow):
    """One mail to one account, made once per `key` (account, game, seq, kind), and composed when
    made: it shows the game as it was at that seq, however late it goes out. The mail consumer's
    outbox row (`consumers.framework` leases, retries and sweeps it)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mails")
    key = models.CharField(max_length=120, unique=True)
    kind = models.CharField(max_length=32)
    game_id = models.BigIntegerField(null=True, blank=True)
    seq = models.PositiveIntegerField(null=True, blank=True)
    to = models.CharField(max_length=254)
    subject = models.CharField(max_length=200)
    text = models.TextField()
    html = models.TextField(blank=True, default="")
    reply_to = models.CharField(max_length=254, blank=True, default="")
    language = models.CharField(max_length=8, blank=True, default="", help_text="the language it is written in (Content-Language)")
    message_id = models.CharField(max_length=200, unique=True)
    status = models.CharField(max_length=10, choices=OutgoingStatus.choices, default=OutgoingStatus.PENDING)
    error = models.CharField(max_length=300, blank=True, default="")
    digest = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="items")
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=("status", "next_attempt_at"), name="mail_outgoing_due"),
            models.Index(fields=("user", "status"), name="mail_outgoing_user_status"),
        ]


class InboundOutcome(models.TextChoices):
    RECEIVED = "received", "stored, not yet read"
    DONE = "done", "done as asked"
    REFUSED = "refused", "refused, with the reason"


class RawMessage(models.Model):
    """A received mail's bytes, kept once per SMTP transaction (or webhook call) however many
    recipients it named; each recipient's `Inbound` row points here."""

    received_at = models.DateTimeField(auto_now_add=True)
    sender = models.CharField(max_length=254, help_text="the From header's address, lower-cased")
    size = models.PositiveIntegerField()
    raw = models.BinaryField(help_text="the message as received")

    class Meta:
        indexes = [models.Index(fields=("sender", "received_at"), name="mail_raw_sender_time")]


class Inbound(models.Model):
    """Every mail received for a reply address, kept whatever became of it. `fingerprint` is the
    mail's Message-ID (or a digest of its sender and body when it has none): the same mail to the
    same address is kept and read once, however often a mail server sends it again."""

    received_at = models.DateTimeField(auto_now_add=True)
    via = models.CharField(max_length=20, help_text="smtp, or the provider whose webhook brought it")
    sender = models.CharField(max_length=254, help_text="the From header's address")
    envelope_sender = models.CharField(max_length=254, blank=True, default="")
    sender_proven = models.CharField(
        max_length=8, blank=True, default="",
        help_text="how the From was proven for mail without a token (dkim, spf; empty: it was not): such mail "
                  "counts against its account's own limits, not the strangers' (mail.authentication)")
    recipient = models.CharField(max_length=254)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="mail_received")
    game_id = models.BigIntegerField(null=True, blank=True)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    subject = models.CharField(max_length=300, blank=True, default="")
    message = models.ForeignKey(RawMessage, null=True, on_delete=models.CASCADE, related_name="inbound")
    fingerprint = models.CharField(max_length=200, blank=True, default="")
    command = models.CharField(max_length=300, blank=True, default="")
    outcome = models.CharField(max_length=10, choices=InboundOutcome.choices, default=InboundOutcome.RECEIVED)
    code = models.CharField(max_length=40, blank=True, default="")
    detail = models.CharField(max_length=500, blank=True, default="")
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=("sender", "received_at"), name="mail_inbound_sender_time"),
            models.Index(fields=("outcome", "received_at"), name="mail_inbound_outcome"),
            models.Index(fields=("user", "received_at"), name="mail_inbound_user_time"),
        ]
        constraints = [
            models.UniqueConstraint(fields=("recipient", "fingerprint"), condition=~models.Q(fingerprint=""),
                                    name="mail_inbound_once_per_recipient"),
        ]

    @property
    def raw(self) -> bytes:
        return bytes(self.message.raw) if self.message_id else b""
