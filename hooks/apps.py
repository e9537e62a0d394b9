from django.apps import AppConfig


class HooksConfig(AppConfig):
    name = "hooks"
    verbose_name = "webhooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from hooks import consumer  # noqa: F401 - here, not at import: registers the consumer once models are ready
