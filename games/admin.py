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
class GameAdmin(ReadOnlyAdmin):
    """Shown, never changed here: every change to a game goes through its one writer (the version,
    the log, the projections). A save here wrote the whole row, read a moment before, over a move
    that landed meanwhile (its seq and to_act), with no event to say so."""

    list_display = ("id", "rules", "players", "status", "seq", "created_by", "created_at")
    list_filter = ("rules", "status")
    search_fields = ("id", "created_by__username")
    inlines = (SeatInline,)


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
