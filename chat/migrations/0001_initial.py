"""Chat lines and mutes, taken over from `games`: the tables stay where games' migrations made them; only Django's idea of which app owns them moves."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('games', '0015_hot_moves'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='ChatMessage',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('channel', models.CharField(choices=[('players', 'the seated players'), ('spectators', 'everyone else watching')], max_length=12)),
                    ('text', models.CharField(max_length=500)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('game', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='chat', to='games.game')),
                    ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'games_chatmessage',
                    'indexes': [models.Index(fields=['game', 'channel', 'id'], name='chat_game_channel')],
                },
            ),
            migrations.CreateModel(
                name='ChatMute',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('muted', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='chat_mutes', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'games_chatmute',
                    'constraints': [models.UniqueConstraint(fields=('user', 'muted'), name='chat_mute_once')],
                },
            ),
        ]),
    ]
