from django.contrib import admin

from games.models import Deadline, Event, Game, Seat, Snapshot


class SeatInline(admin.TabularInline):
    """Who sits where is decided by the log's seat events: shown, never edited here."""

    model = Seat
    extra = 0
    fields = ("index", "user", "bot", "bot_level", "stand_in", "bank_seconds", "joined_at")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(admin.ModelAdmin):
    """The log is append-only: the admin shows it and changes nothing."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "rules", "players", "status", "seq", "created_by", "created_at")
    list_filter = ("rules", "status")
    search_fields = ("id", "created_by__username")
    # Everything the log decides (or that its fold caches) is read-only: an edit here would make
    # the game disagree with its own log. Games are created and changed only through services.
    readonly_fields = (
        "rules", "rules_version", "players", "options", "status", "seq", "to_act", "result", "seed",
        "seed_sha256", "time_control", "timeout_policy", "created_by", "created_at", "updated_at", "private",
        "invitation_key", "timeouts_to_resign",
    )
    inlines = (SeatInline,)

    def has_add_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ("game", "seq", "kind", "seat", "created_at", "hash")
    list_filter = ("kind",)
    search_fields = ("game__id",)
    ordering = ("game", "seq")


@admin.register(Snapshot)
class SnapshotAdmin(ReadOnlyAdmin):
    list_display = ("game", "seq", "created_at")


@admin.register(Deadline)
class DeadlineAdmin(admin.ModelAdmin):
    """Deadlines are written by the services under the game lock: shown, never edited here."""

    list_display = ("game", "seat", "seq", "due_at", "running_since", "enqueued_at")
    ordering = ("due_at",)
    readonly_fields = ("game", "seat", "seq", "due_at", "budget_seconds", "spent_seconds", "running_since",
                       "enqueued_at")
