"""Who follows the account feed now (`streams.account_feed`): the one table of the streams app."""

from __future__ import annotations

from django.db import models


class FeedListener(models.Model):
    """An account with an account stream open (or closed less than `LIVE_SECONDS` ago): its games'
    news is made into feed rows until `until`, which each of its streams moves on as it runs. An
    account with none pays nothing per move."""

    account_id = models.BigIntegerField(primary_key=True)
    until = models.DateTimeField(db_index=True)
