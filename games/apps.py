from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from games import stores  # the app registry is ready only now
        from games.services import bot_turns, conditionals  # ditto: services import models

        # Bot turns and conditional lines are consumers of the log (`consumers.framework`),
        # registered once here: the framework's receiver of `events_recorded` tells them.
        assert bot_turns.BOT_TURNS and conditionals.CONDITIONAL_LINES
        stores.current()  # an unknown SCRAPYARD_STORE stops the start, not the first move
