from django.apps import AppConfig


class StreamsConfig(AppConfig):
    name = "streams"
    verbose_name = "live streams of games"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from games import signals
        from streams import account_feed, consumer, sessions

        assert consumer.LIVE_STREAMS  # registered with the consumer framework: the streams' notice
        assert account_feed.FEED_CONSUMER  # and the account feed's items
        signals.invitation_changed.connect(account_feed.invitation_changed, dispatch_uid="streams.invitation_changed")
        user_logged_out.connect(sessions.logged_out, dispatch_uid="streams.sessions.logged_out")
