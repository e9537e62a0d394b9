"""What mail does when a provider's webhook (django-anymail) brings a reply or a bounce. A game's
news reaches mail through the consumer framework (`mail.consumer`)."""

from __future__ import annotations

import logging

from django.conf import settings

from mail import services

log = logging.getLogger(__name__)


def anymail_inbound(sender, event, esp_name: str, **kwargs) -> None:
    """A reply through a provider's inbound webhook: stored and read like one through the gateway.
    A mail for an unknown address is stored too (and refused when read): HTTP has no 550. With
    SCRAPYARD_MAIL_TRUSTED_AUTHSERV_ID set, mail to the server's address whose From the provider's
    Authentication-Results proves is its account's (`mail.authentication.trusted_verdict`)."""
    message = event.message
    recipients = [message.envelope_recipient] if message.envelope_recipient else [a.addr_spec for a in message.to]
    raw = message.as_bytes()
    owner, how = None, ""
    if len(raw) > services.MAX_MESSAGE_BYTES:
        log.info("a mail of %d bytes from the %s webhook was refused for good", len(raw), esp_name)
        return
    trusted = settings.SCRAPYARD_MAIL_TRUSTED_AUTHSERV_ID
    if trusted and any(services.is_server_address(address) for address in recipients):
        from mail import authentication  # DNS and DKIM libraries: loaded by the processes that check

        verdict = authentication.trusted_verdict(raw, trusted)  # the provider checked SPF and DKIM
        owner = services.confirmed_account(verdict.address) if verdict.address else None
        how = verdict.how if owner is not None else ""
    try:
        services.parts_check(raw)  # before the verdict parses anything
        services.inbound_store(
            via=esp_name.lower(), envelope_sender=message.envelope_sender or "", recipients=recipients, raw=raw,
            proven_owner=owner, proven_how=how,
        )
    except services.MailRefused as refused:
        if not refused.reply.startswith("5"):
            raise  # for now: the provider calls again later, as an SMTP server would
        log.info("a mail from the %s webhook was refused for good: %s", esp_name, refused.reply)


def anymail_tracking(sender, event, esp_name: str, **kwargs) -> None:
    """A provider's delivery report: a hard bounce (or a complaint) turns the address's mail off."""
    if event.event_type in ("bounced", "rejected", "complained") and event.recipient:
        services.bounce_by_address(address=event.recipient, reason=f"{esp_name}: {event.event_type} {event.description or ''}".strip())
