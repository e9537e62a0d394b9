from django.apps import AppConfig


class StreamsConfig(AppConfig):
    name = "streams"
    verbose_name = "live streams of games"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from streams import consumer, sessions

        assert consumer.LIVE_STREAMS  # registered with the consumer framework: the streams' notice
        user_logged_out.connect(sessions.logged_out, dispatch_uid="streams.sessions.logged_out")
