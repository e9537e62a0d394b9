from django.apps import AppConfig


class MailConfig(AppConfig):
    name = "mail"
    verbose_name = "play by email"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from anymail import signals as anymail_signals

        from games import signals  # here, not at import: the app registry is ready now
        from mail import receivers

        signals.events_recorded.connect(receivers.events_recorded, dispatch_uid="mail.events_recorded")
        anymail_signals.inbound.connect(receivers.anymail_inbound, dispatch_uid="mail.anymail_inbound")
        anymail_signals.tracking.connect(receivers.anymail_tracking, dispatch_uid="mail.anymail_tracking")
