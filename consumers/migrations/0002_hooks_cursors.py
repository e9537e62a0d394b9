"""The webhooks' cursors move into the framework's table, as they were: no endpoint is told a
notice twice, and none it was owed is lost."""

from django.db import migrations


def copy_hooks_cursors(apps, schema_editor):
    Old = apps.get_model("hooks", "Cursor")
    New = apps.get_model("consumers", "Cursor")
    rows = Old.objects.values_list("endpoint_id", "game_id", "seq").iterator(chunk_size=2000)
    batch = []
    for endpoint, game, seq in rows:
        batch.append(New(consumer="hooks", recipient=endpoint, game_id=game, seq=seq))
        if len(batch) >= 2000:
            New.objects.bulk_create(batch, ignore_conflicts=True)
            batch = []
    New.objects.bulk_create(batch, ignore_conflicts=True)


def copy_back(apps, schema_editor):
    Old = apps.get_model("hooks", "Cursor")
    New = apps.get_model("consumers", "Cursor")
    Old.objects.bulk_create([Old(endpoint_id=row.recipient, game_id=row.game_id, seq=row.seq)
                             for row in New.objects.filter(consumer="hooks")], ignore_conflicts=True)


class Migration(migrations.Migration):
    dependencies = [("consumers", "0001_initial"), ("hooks", "0001_initial")]
    operations = [migrations.RunPython(copy_hooks_cursors, copy_back)]
