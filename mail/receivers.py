"""What mail does when a provider's webhook (django-anymail) brings a reply or a bounce. A game's
news reaches mail through the consumer framework (`mail.consumer`)."""

from __future__ import annotations

from mail import services


def anymail_inbound(sender, event, esp_name: str, **kwargs) -> None:
    """A reply through a provider's inbound webhook: stored and read like one through the gateway.
    A mail for an unknown address is stored too (and refused when read): HTTP has no 550."""
    message = event.message
    recipients = [message.envelope_recipient] if message.envelope_recipient else [a.addr_spec for a in message.to]
    services.inbound_store(
        via=esp_name.lower(), envelope_sender=message.envelope_sender or "", recipients=recipients, raw=message.as_bytes()
    )


def anymail_tracking(sender, event, esp_name: str, **kwargs) -> None:
    """A provider's delivery report: a hard bounce (or a complaint) turns the address's mail off."""
    if event.event_type in ("bounced", "rejected", "complained") and event.recipient:
        services.bounce_by_address(address=event.recipient, reason=f"{esp_name}: {event.event_type} {event.description or ''}".strip())
