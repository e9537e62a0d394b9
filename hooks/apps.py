from django.apps import AppConfig


class HooksConfig(AppConfig):
    name = "hooks"
    verbose_name = "webhooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import signals  # here, not at import: the app registry is ready now
        from hooks import receivers

        signals.events_recorded.connect(receivers.events_recorded, dispatch_uid="hooks.events_recorded")
