from django.apps import AppConfig


class HooksConfig(AppConfig):
    name = "hooks"
    verbose_name = "webhooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import signals
        from hooks import consumer  # here, not at import: registers the consumer once models are ready

        signals.invitation_changed.connect(consumer.invitation_changed, dispatch_uid="hooks.invitation_changed")
