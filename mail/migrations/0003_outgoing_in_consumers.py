"""Mail joins the consumer framework: its cursors now live in `consumers` (copied by
consumers 0003 first), and each mail's count of attempts becomes the framework's count of
retries (failed attempts waiting for their retry: a pending mail's attempts; one fewer for a
mail done, or being attempted now). Every stored mail is kept as it was; a pending one is
sent by the framework's sweep."""

from django.db import migrations, models
from django.db.models import F


def attempts_to_retries(apps, schema_editor):
    Outgoing = apps.get_model("mail", "Outgoing")
    waiting = models.Q(status="pending", leased_until__isnull=True)
    Outgoing.objects.filter(retries__gt=0).exclude(waiting).update(retries=F("retries") - 1)


def retries_to_attempts(apps, schema_editor):
    Outgoing = apps.get_model("mail", "Outgoing")
    waiting = models.Q(status="pending", leased_until__isnull=True)
    Outgoing.objects.exclude(waiting).update(retries=F("retries") + 1)


class Migration(migrations.Migration):
    dependencies = [
        ("mail", "0002_inbound_once_verified_forced"),
        ("consumers", "0003_mail_cursors"),
    ]

    operations = [
        migrations.RenameField(model_name="outgoing", old_name="attempts", new_name="retries"),
        migrations.RunPython(attempts_to_retries, retries_to_attempts),
        migrations.AlterField(
            model_name="outgoing",
            name="retries",
            field=models.PositiveSmallIntegerField(default=0, help_text="failed attempts since it was made or replayed"),
        ),
        migrations.AddField(
            model_name="outgoing",
            name="enqueued_at",
            field=models.DateTimeField(blank=True, help_text="last time it was sent to the queue", null=True),
        ),
        migrations.AlterField(
            model_name="outgoing",
            name="leased_until",
            field=models.DateTimeField(blank=True, help_text="a worker is attempting it until then", null=True),
        ),
        migrations.DeleteModel(name="Cursor"),
    ]
