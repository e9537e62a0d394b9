"""Mail's cursors move into the framework's table, as they were: no account is mailed a notice
twice, and none it was owed is lost."""

from django.db import migrations


def copy_mail_cursors(apps, schema_editor):
    Old = apps.get_model("mail", "Cursor")
    New = apps.get_model("consumers", "Cursor")
    batch = []
    for user, game, seq in Old.objects.values_list("user_id", "game_id", "seq").iterator(chunk_size=2000):
        batch.append(New(consumer="mail", recipient=user, game_id=game, seq=seq))
        if len(batch) >= 2000:
            New.objects.bulk_create(batch, ignore_conflicts=True)
            batch = []
    New.objects.bulk_create(batch, ignore_conflicts=True)


def copy_back(apps, schema_editor):
    Old = apps.get_model("mail", "Cursor")
    New = apps.get_model("consumers", "Cursor")
    Old.objects.bulk_create([Old(user_id=row.recipient, game_id=row.game_id, seq=row.seq)
                             for row in New.objects.filter(consumer="mail")], ignore_conflicts=True)


class Migration(migrations.Migration):
    dependencies = [("consumers", "0002_hooks_cursors"), ("mail", "0002_inbound_once_verified_forced")]
    operations = [migrations.RunPython(copy_mail_cursors, copy_back)]
