"""Accounts, tokens and chat leave `games` for their own apps: the tables stay where games' migrations made them; only Django's idea of which app owns them moves."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0001_initial'),
        ('chat', '0001_initial'),
        ('games', '0015_hot_moves'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.RemoveField(
                model_name='apitoken',
                name='user',
            ),
            migrations.RemoveField(
                model_name='chatmessage',
                name='game',
            ),
            migrations.RemoveField(
                model_name='chatmessage',
                name='user',
            ),
            migrations.RemoveField(
                model_name='chatmute',
                name='muted',
            ),
            migrations.RemoveField(
                model_name='chatmute',
                name='user',
            ),
            migrations.DeleteModel(
                name='Account',
            ),
            migrations.DeleteModel(
                name='ApiToken',
            ),
            migrations.DeleteModel(
                name='ChatMessage',
            ),
            migrations.DeleteModel(
                name='ChatMute',
            ),
        ]),
    ]
