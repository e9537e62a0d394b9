from django.apps import AppConfig


class ApiKitConfig(AppConfig):
    name = "apikit"
    default_auto_field = "django.db.models.BigAutoField"
