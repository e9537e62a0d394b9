"""Mail out, sending: how one mail is handed to the mail server, and what its answer means (sent,
worth trying again, refused for good). The lease, the waits between retries and the sweep that
sends what a lost request left behind are the consumer framework's (`mail.consumer`)."""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import logging
import re
import smtplib
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives, get_connection

from consumers import framework
from mail import threads
from mail.models import Inbound, Outgoing, OutgoingStatus
from mail.services.addresses import bounce_address, unsubscribe_url
from mail.services.outbound import ANSWER, BOUNCED, MAIL
from mail.services.preferences import preference_of

log = logging.getLogger(__name__)


LEASE = dt.timedelta(seconds=60)


def outgoing_send(*, outgoing_id: int, at: dt.datetime | None = None) -> str | None:
    """One attempt at one mail, under the framework's lease (only one worker sends it). Returns
    its status after the attempt (None: not due, or another worker has it)."""
    if framework.attempt(framework.get(MAIL), outgoing_id, at=at) is None:
        return None
    return Outgoing.objects.filter(pk=outgoing_id).values_list("status", flat=True).first()


def outgoing_deliver(mail: Outgoing) -> framework.Outcome:
    """Hand the mail to the mail server: sent, retried after a temporary refusal, or not (a
    bounced address drops it; a mail that cannot be written, or a permanent refusal, fails)."""
    if mail.kind != BOUNCED and preference_of(mail.user_id).bounced_at is not None:
        return framework.Outcome(delivered=False, status=OutgoingStatus.DROPPED, note="the address bounced; mail is off")
    try:
        message = _message(mail)
        message.message()  # built here: a header that cannot be written fails now, not on every retry
    except Exception as error:  # noqa: BLE001 - whatever it is, sending again would fail the same way
        log.warning("mail %s cannot be written: %s", mail.pk, type(error).__name__)
        return framework.Outcome(delivered=False, note=f"cannot be written: {type(error).__name__}")
    try:
        get_connection().send_messages([message])
    except (smtplib.SMTPException, OSError) as error:
        return _refused(mail, error)
    return framework.Outcome(delivered=True)


def _message(mail: Outgoing) -> EmailMultiAlternatives:
    headers = {
        "From": settings.DEFAULT_FROM_EMAIL,
        "Message-ID": mail.message_id,
        "List-Unsubscribe": f"<{unsubscribe_url(mail.user_id)}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        "Auto-Submitted": "auto-replied" if mail.kind == ANSWER else "auto-generated",
        "Content-Language": mail.language or settings.LANGUAGE_CODE,  # RFC 3282: the reader's, as written
    }
    headers.update(threads.headers(mail, _answered_message_id(mail)))
    message = EmailMultiAlternatives(
        subject=clean_header(mail.subject), body=mail.text, from_email=bounce_address(mail.user_id), to=[mail.to],
        reply_to=[mail.reply_to] if mail.reply_to else None, headers=headers,
    )
    if mail.html:
        message.attach_alternative(mail.html, "text/html")
    return message


def _answered_message_id(mail: Outgoing) -> str:
    if mail.kind != ANSWER:
        return ""
    named_in_key = re.search(r":inbound(\d+):", mail.key)  # replies.answer_key
    raw = Inbound.objects.filter(pk=int(named_in_key[1])).values_list("message__raw", flat=True).first() if named_in_key else None
    if raw is None:
        return ""
    try:
        named = clean_header(email.message_from_bytes(bytes(raw), policy=email.policy.default).get("Message-ID", ""))
    except Exception:  # an unreadable Message-ID: the answer threads by its subject only
        return ""
    return named if re.fullmatch(r"<[^<>\s]{1,200}>", named) else ""


def _refused(mail: Outgoing, error: Exception) -> framework.Outcome:
    permanent = isinstance(error, smtplib.SMTPResponseException) and 500 <= error.smtp_code < 600
    permanent = permanent or (isinstance(error, smtplib.SMTPRecipientsRefused) and all(
        500 <= code < 600 for code, _ in error.recipients.values()))
    reason = f"{type(error).__name__}: {error}"[:300]
    if permanent:
        log.warning("mail %s to %s refused for good: %s", mail.pk, mail.to, reason)
    return framework.Outcome(delivered=False, retry=not permanent, note=reason)


def due_send(*, at: dt.datetime | None = None, limit: int = 500) -> int:
    """Send every pending mail that is due and nobody is sending (the framework's sweep)."""
    return framework.due_send(framework.get(MAIL), at=at, limit=limit)


CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def clean_header(value: Any) -> str:
    """A header's decoded text on one line: CR, LF and other controls a decoded word may carry
    become spaces, so nothing read from it can break a header we write."""
    return CONTROL.sub(" ", str(value or "")).strip()
