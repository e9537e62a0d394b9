from django.db import migrations, models


def flag_games_with_lines(apps, schema_editor):
    """Games whose lines were queued before the flag existed: their next move wakes the worker."""
    Game = apps.get_model("games", "Game")
    ConditionalLine = apps.get_model("games", "ConditionalLine")
    Game.objects.filter(pk__in=ConditionalLine.objects.values("game_id")).update(lines_waiting=True)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0013_conditional_lines"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="lines_waiting",
            field=models.BooleanField(
                default=False,
                help_text="a conditional line may wait: a move wakes the line worker (never shown to anyone)",
            ),
        ),
        migrations.RunPython(flag_games_with_lines, migrations.RunPython.noop),
    ]
