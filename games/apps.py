from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from games import signals, stores  # the app registry is ready only now
        from games.services import conditionals  # ditto: services import models

        # Every committed event, of every game alike, asks whether a queued conditional line
        # answers it (the same work whether or not one waits: nobody learns a line exists).
        signals.events_recorded.connect(conditionals.wake_after_commit, dispatch_uid="games.conditionals")
        stores.current()  # an unknown SCRAPYARD_STORE stops the start, not the first move
