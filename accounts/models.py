"""What the server keeps about an account beyond Django's user, and its scoped API tokens.

Both tables were made by `games`' migrations and keep their names: the rows never moved, only
the code that owns them."""

from django.conf import settings
from django.db import models


class Account(models.Model):
    """What the server keeps about an account beyond Django's user: vacation time, and whether a
    program plays it (`accounts.services`)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account")
    vacation_days_per_year = models.PositiveSmallIntegerField(default=30)
    vacation_year = models.PositiveSmallIntegerField(default=0, help_text="the year vacation_used counts")
    vacation_used_seconds = models.FloatField(default=0)
    vacation_since = models.DateTimeField(null=True, blank=True, help_text="NULL when not on vacation")
    is_bot = models.BooleanField(
        default=False, help_text="a program's account: people seat it like a bot; it plays through the API"
    )
    notify = models.JSONField(
        default=dict, blank=True, help_text="which notices the account wants by email (NOTICES; missing: on)"
    )
    # The account's language for pages and mail ("": the browser's, else English; project.i18n).
    language = models.CharField(max_length=8, blank=True, default="", choices=settings.LANGUAGES)

    class Meta:
        db_table = "games_account"  # made by games' migrations before this app had its own

    NOTICES = ("game_started", "your_turn", "deadline_warning", "game_over")

    def __str__(self) -> str:
        return f"account of {self.user_id}"

    def wants(self, notice: str) -> bool:
        return bool(self.notify.get(notice, True))


class ApiToken(models.Model):
    """A scoped personal token (`accounts.auth`). Its key is shown once, when it is made; the server
    keeps only the key's SHA-256 and its first characters, so the owner can tell tokens apart."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, blank=True)
    key_digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=12)
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="NULL: never expires")
    revoked_at = models.DateTimeField(null=True, blank=True, help_text="NULL: not revoked")

    class Meta:
        db_table = "games_apitoken"  # made by games' migrations before this app had its own
        indexes = [models.Index(fields=["user", "revoked_at"], name="apitoken_live_of_user")]

    def __str__(self) -> str:
        return f"token {self.prefix} of {self.user_id}"
