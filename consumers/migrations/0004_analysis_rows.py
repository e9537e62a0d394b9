"""Analyses queued or running at the upgrade get their row in the framework's outbox, pending and
never sent (`enqueued_at` empty), so the first sweep sends each to the `analysis` queue: none is
lost with the old `analysis.run` messages, which no worker knows any more. A running one is queued
again: its run's lease went with the old fields."""

from django.db import migrations
from django.utils import timezone

OUTSTANDING = ("queued", "running")


def rows_for_outstanding_analyses(apps, schema_editor):
    Analysis = apps.get_model("analysis", "Analysis")
    Game = apps.get_model("games", "Game")
    Message = apps.get_model("consumers", "Message")
    outstanding = list(Analysis.objects.filter(status__in=OUTSTANDING).values_list("game_id", flat=True))
    seqs = dict(Game.objects.filter(pk__in=outstanding).values_list("pk", "seq"))
    now = timezone.now()
    Message.objects.bulk_create([
        Message(consumer="analysis", recipient=0, kind="analysis", game_id=game_id, seq=seqs.get(game_id),
                key=f"analysis:{game_id}", next_attempt_at=now)
        for game_id in outstanding
    ], ignore_conflicts=True)
    Analysis.objects.filter(status="running").update(status="queued")


def no_rows(apps, schema_editor):
    apps.get_model("consumers", "Message").objects.filter(consumer="analysis").delete()


class Migration(migrations.Migration):
    dependencies = [("consumers", "0003_mail_cursors"), ("analysis", "0002_analysis_a_consumer"),
                    ("games", "0019_event_life_marks_index")]
    operations = [migrations.RunPython(rows_for_outstanding_analyses, no_rows)]
