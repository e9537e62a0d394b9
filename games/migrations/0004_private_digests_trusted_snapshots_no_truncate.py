"""The rules version of each game, salted private digests in the hash chain, snapshots that prove themselves, and no TRUNCATE.

- `Event.private_digest`: events from now on commit to their payload only through a salted
  digest (`games.log`); older events keep their hashes, which `Event.content` still checks.
- `Snapshot.event_hash` and `state_digest`: existing snapshots are vouched for here, at upgrade,
  from the log as it stands; from then on any edit shows.
- On PostgreSQL a statement trigger refuses TRUNCATE of the events, as the row trigger refuses
  UPDATE and DELETE. A test database's flush (and an operator who really means it) may set
  `scrapyard.allow_truncate` to `on` for its transaction.
"""

import hashlib
import json

from django.db import migrations, models

CREATE = """
CREATE OR REPLACE FUNCTION games_event_no_truncate() RETURNS trigger AS $$
BEGIN
    IF coalesce(current_setting('scrapyard.allow_truncate', true), '') = 'on' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'games_event is append-only: TRUNCATE refused'
        USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER games_event_no_truncate
    BEFORE TRUNCATE ON games_event
    FOR EACH STATEMENT EXECUTE FUNCTION games_event_no_truncate();
"""

DROP = """
DROP TRIGGER IF EXISTS games_event_no_truncate ON games_event;
DROP FUNCTION IF EXISTS games_event_no_truncate();
"""


def _on_postgres(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


def _vouch_for_snapshots(apps, schema_editor):
    Snapshot, Event = apps.get_model("games", "Snapshot"), apps.get_model("games", "Event")
    for snapshot in Snapshot.objects.all().iterator():
        event_hash = Event.objects.filter(game_id=snapshot.game_id, seq=snapshot.seq).values_list("hash", flat=True)
        canonical = json.dumps(snapshot.state, sort_keys=True, separators=(",", ":"))
        snapshot.event_hash = event_hash.first() or ""
        snapshot.state_digest = hashlib.sha256(canonical.encode()).hexdigest()
        snapshot.save(update_fields=["event_hash", "state_digest"])


class Migration(migrations.Migration):
    dependencies = [("games", "0003_clocks")]

    operations = [
        migrations.AddField(
            model_name="event", name="private_digest", field=models.CharField(blank=True, default="", max_length=64)
        ),
        migrations.AddField(
            model_name="snapshot", name="event_hash", field=models.CharField(blank=True, default="", max_length=64)
        ),
        migrations.AddField(
            model_name="snapshot", name="state_digest", field=models.CharField(blank=True, default="", max_length=64)
        ),
        migrations.AddField(
            model_name="game",
            name="rules_version",
            field=models.PositiveIntegerField(default=1, help_text="recorded in the created event"),
        ),
        migrations.AlterField(model_name="game", name="options", field=models.JSONField(blank=True, default=dict)),
        migrations.AlterField(
            model_name="game",
            name="time_control",
            field=models.JSONField(blank=True, default=dict, help_text="games.clocks: {} for none"),
        ),
        migrations.RunPython(_vouch_for_snapshots, migrations.RunPython.noop),
        migrations.RunPython(_on_postgres(CREATE), _on_postgres(DROP)),
    ]
