"""Mail out, sending: one attempt at one mail under a lease, SMTP errors retried with waits, and
the sweep that sends what a lost request left behind."""

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
from django.db.models import F, Q

from games import dispatch, time_controls
from mail import threads
from mail.models import Inbound, Outgoing, OutgoingStatus
from mail.services.addresses import bounce_address, unsubscribe_url
from mail.services.outbound import ANSWER, BOUNCED, SEND
from mail.services.preferences import preference_of

log = logging.getLogger(__name__)


LEASE = dt.timedelta(seconds=60)


def outgoing_send(*, outgoing_id: int, at: dt.datetime | None = None) -> str | None:
    """One attempt at one mail, under a lease (only one worker sends it). Returns its status."""
    at = at or time_controls.now()
    claimed = Outgoing.objects.filter(pk=outgoing_id, status=OutgoingStatus.PENDING, next_attempt_at__lte=at).filter(
        Q(leased_until__isnull=True) | Q(leased_until__lt=at)
    ).update(leased_until=at + LEASE, attempts=F("attempts") + 1)
    if not claimed:
        return None
    mail = Outgoing.objects.get(pk=outgoing_id)
    if mail.kind != BOUNCED and preference_of(mail.user_id).bounced_at is not None:
        return _finish(mail, OutgoingStatus.DROPPED, "the address bounced; mail is off")
    try:
        message = _message(mail)
        message.message()  # built here: a header that cannot be written fails now, not on every retry
    except Exception as error:  # noqa: BLE001 - whatever it is, sending again would fail the same way
        log.warning("mail %s cannot be written: %s", mail.pk, type(error).__name__)
        return _finish(mail, OutgoingStatus.FAILED, f"cannot be written: {type(error).__name__}")
    try:
        get_connection().send_messages([message])
    except (smtplib.SMTPException, OSError) as error:
        return _retry_or_fail(mail, error, at)
    return _finish(mail, OutgoingStatus.SENT, "", sent_at=time_controls.now())


def _message(mail: Outgoing) -> EmailMultiAlternatives:
    headers = {
        "From": settings.DEFAULT_FROM_EMAIL,
        "Message-ID": mail.message_id,
        "List-Unsubscribe": f"<{unsubscribe_url(mail.user_id)}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        "Auto-Submitted": "auto-replied" if mail.kind == ANSWER else "auto-generated",
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


def _retry_or_fail(mail: Outgoing, error: Exception, at: dt.datetime) -> str:
    waits = settings.SCRAPYARD_MAIL_RETRY_SECONDS
    permanent = isinstance(error, smtplib.SMTPResponseException) and 500 <= error.smtp_code < 600
    permanent = permanent or (isinstance(error, smtplib.SMTPRecipientsRefused) and all(
        500 <= code < 600 for code, _ in error.recipients.values()))
    reason = f"{type(error).__name__}: {error}"[:300]
    if permanent or mail.attempts > len(waits):
        log.warning("mail %s to %s failed for good: %s", mail.pk, mail.to, reason)
        return _finish(mail, OutgoingStatus.FAILED, reason)
    Outgoing.objects.filter(pk=mail.pk).update(
        next_attempt_at=at + dt.timedelta(seconds=waits[mail.attempts - 1]), leased_until=None, error=reason
    )
    return OutgoingStatus.PENDING


def _finish(mail: Outgoing, status: str, reason: str, sent_at: dt.datetime | None = None) -> str:
    Outgoing.objects.filter(pk=mail.pk).update(status=status, error=reason, leased_until=None, sent_at=sent_at)
    return status


def due_send(*, at: dt.datetime | None = None, limit: int = 500) -> int:
    """Send every pending mail that is due and nobody is sending (retries, and mails whose send
    request was lost: those made more than a lease ago)."""
    at = at or time_controls.now()
    due = Outgoing.objects.filter(status=OutgoingStatus.PENDING, next_attempt_at__lte=at).filter(
        Q(leased_until__isnull=True, created_at__lt=at - LEASE, attempts=0)
        | Q(leased_until__isnull=True, attempts__gt=0)
        | Q(leased_until__lt=at)
    )
    ids = list(due.order_by("next_attempt_at").values_list("pk", flat=True)[:limit])
    for outgoing_id in ids:
        dispatch.send(SEND, (outgoing_id,))
    return len(ids)


CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def clean_header(value: Any) -> str:
    """A header's decoded text on one line: CR, LF and other controls a decoded word may carry
    become spaces, so nothing read from it can break a header we write."""
    return CONTROL.sub(" ", str(value or "")).strip()
