from django.apps import AppConfig


class ConsumersConfig(AppConfig):
    name = "consumers"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from consumers import receivers
        from games import signals

        signals.events_recorded.connect(receivers.events_recorded, dispatch_uid="consumers.events_recorded")
