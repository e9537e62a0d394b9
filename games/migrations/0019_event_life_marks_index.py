"""A partial index of the few events that mark a game's life (a draw offered, a takeback asked
for, a seat forfeited), so that `games.stores.fast.life_marks` reads those alone rather than
every event of the game (docs/decisions/0033-what-a-real-clients-reads-cost.md). PostgreSQL only: its predicate is
the statement's own, which the planner matches; built concurrently, as a live log is large."""

from django.db import migrations

INDEX = "event_life_marks"
PREDICATE = ("((payload ->> 'type') IN ('draw_offered', 'takeback_requested') "
             "OR COALESCE((payload -> 'forfeit') = 'true'::jsonb, false))")


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {INDEX} "
                              f"ON games_event (game_id, seq) WHERE {PREDICATE}")


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY runs outside a transaction

    dependencies = [
        ('games', '0018_rematch_offer'),
    ]

    operations = [migrations.RunPython(create, drop)]
