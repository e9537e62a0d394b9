from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    name = "analysis"
    verbose_name = "analysis of finished games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from analysis import consumer  # noqa: F401  here, not at import: registers the consumer once models are ready
