from django.apps import AppConfig


class MailConfig(AppConfig):
    name = "mail"
    verbose_name = "play by email"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from anymail import signals as anymail_signals

        from analysis import signals as analysis_signals
        from mail import analysis_mail, consumer, receivers  # here, not at import: the app registry is ready now

        assert consumer.FORCED_MOVES and consumer.MAIL  # registered with the consumer framework
        analysis_signals.analysis_done.connect(analysis_mail.analysis_done, dispatch_uid="mail.analysis_done")
        anymail_signals.inbound.connect(receivers.anymail_inbound, dispatch_uid="mail.anymail_inbound")
        anymail_signals.tracking.connect(receivers.anymail_tracking, dispatch_uid="mail.anymail_tracking")
