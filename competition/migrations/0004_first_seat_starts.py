"""Tournaments of two still to be played let seat 0 start where the game draws who starts (the
`first_player` option, new): made before it, their games would go on drawing, and the pairing's
seats, given out as colours, would decide nothing. Finished tournaments keep what they played."""

from django.db import migrations

import rules
from rules.options import FIRST_PLAYER, SEAT_0


def first_seat_starts(apps, schema_editor):
    Tournament = apps.get_model("competition", "Tournament")
    drawing = [game.id for game in rules.catalog().values() if FIRST_PLAYER in {option.name for option in game.options}]
    for tournament in Tournament.objects.filter(players=2, status__in=("registering", "running"), rules__in=drawing):
        tournament.options = {**tournament.options, FIRST_PLAYER: SEAT_0}
        tournament.save(update_fields=["options"])


class Migration(migrations.Migration):
    dependencies = [("competition", "0003_half_point_byes")]

    operations = [migrations.RunPython(first_seat_starts, migrations.RunPython.noop)]
