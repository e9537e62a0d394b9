"""A move's writes touch as few indexes as they can (issue 35):

- the game row: no index names a column a move changes (the ratings' sweep reads `finished_at`,
  set once, instead of `updated_at`), and each page keeps a fifth free, so PostgreSQL rewrites the
  row in place (a HOT update) and no index of the table is written;
- events and deadlines: no index of `game_id` alone; the unique (game, seq) and (game, seat)
  indexes find them by game as well.
"""

import django.db.models.deletion
from django.db import migrations, models


def finished_when_last_changed(apps, schema_editor):
    """A game finished before this migration finished when its row last changed."""
    Game = apps.get_model("games", "Game")
    Game.objects.filter(status="finished", finished_at__isnull=True).update(finished_at=models.F("updated_at"))


def room_for_updates_in_place(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE games_game SET (fillfactor = 80)")


def no_room_kept(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE games_game RESET (fillfactor)")


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0014_lines_waiting"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="finished_at",
            field=models.DateTimeField(blank=True, help_text="when the game finished (set once)", null=True),
        ),
        migrations.RunPython(finished_when_last_changed, migrations.RunPython.noop),
        migrations.RemoveIndex(model_name="game", name="game_rated_finished"),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(condition=models.Q(("rated", True), ("status", "finished")), fields=["finished_at"],
                               name="game_rated_finished_at"),
        ),
        migrations.RunPython(room_for_updates_in_place, no_room_kept),
        migrations.AlterField(
            model_name="deadline",
            name="game",
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                    related_name="deadlines", to="games.game"),
        ),
        migrations.AlterField(
            model_name="event",
            name="game",
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT,
                                    related_name="events", to="games.game"),
        ),
        migrations.AlterField(
            model_name="game",
            name="lines_waiting",
            field=models.BooleanField(
                db_default=False, default=False,
                help_text="a conditional line may wait: a move wakes the line worker (never shown to anyone)",
            ),
        ),
    ]
