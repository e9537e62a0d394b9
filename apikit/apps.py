from django.apps import AppConfig


class ApiKitConfig(AppConfig):
    name = "apikit"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apikit.routes import register_row_id
        from project.cache import spare_closing_caches

        spare_closing_caches()
        register_row_id()  # before any URLconf is read
