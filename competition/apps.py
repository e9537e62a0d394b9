from django.apps import AppConfig


class CompetitionConfig(AppConfig):
    name = "competition"
    verbose_name = "competitive play"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from competition import receivers
        from games import signals  # here, not at import: the app registry is ready now

        signals.game_finished.connect(receivers.game_finished, dispatch_uid="competition.game_finished")
