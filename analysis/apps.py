from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    name = "analysis"
    verbose_name = "analysis of finished games"
    default_auto_field = "django.db.models.BigAutoField"
