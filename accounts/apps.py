from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import oauth, schema  # noqa: F401  (OAuth's revocation hook; the schema's security schemes)
