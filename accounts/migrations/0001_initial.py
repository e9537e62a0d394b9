"""Accounts and scoped tokens, taken over from `games`: the tables stay where games' migrations made them; only Django's idea of which app owns them moves."""

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
                name='Account',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('vacation_days_per_year', models.PositiveSmallIntegerField(default=30)),
                    ('vacation_year', models.PositiveSmallIntegerField(default=0, help_text='the year vacation_used counts')),
                    ('vacation_used_seconds', models.FloatField(default=0)),
                    ('vacation_since', models.DateTimeField(blank=True, help_text='NULL when not on vacation', null=True)),
                    ('is_bot', models.BooleanField(default=False, help_text="a program's account: people seat it like a bot; it plays through the API")),
                    ('notify', models.JSONField(blank=True, default=dict, help_text='which notices the account wants by email (NOTICES; missing: on)')),
                    ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='account', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'games_account',
                },
            ),
            migrations.CreateModel(
                name='ApiToken',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('name', models.CharField(blank=True, max_length=100)),
                    ('key_digest', models.CharField(max_length=64, unique=True)),
                    ('prefix', models.CharField(max_length=12)),
                    ('scopes', models.JSONField(default=list)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('expires_at', models.DateTimeField(blank=True, help_text='NULL: never expires', null=True)),
                    ('revoked_at', models.DateTimeField(blank=True, help_text='NULL: not revoked', null=True)),
                    ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='api_tokens', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'games_apitoken',
                    'indexes': [models.Index(fields=['user', 'revoked_at'], name='apitoken_live_of_user')],
                },
            ),
        ]),
    ]
