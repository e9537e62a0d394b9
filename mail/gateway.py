"""The SMTP gateway (aiosmtpd): takes replies for play+<token>@MAIL_DOMAIN and bounces for
bounce+<account>-<mac>@MAIL_DOMAIN, refuses every other address at RCPT time (550), tells a
sender or an account over its rate to come back later (451: its server retries, nothing is
lost), takes at most a few recipients, answers any trouble of its own with a 451 that names
nothing internal, and stores each accepted mail (its bytes once) before answering 250
(`mail.services.inbound_store`); a worker reads it. The server's own address (the From of every
mail) is taken too: its mail is read as commands (`mail.commands`).

It holds no state of its own: run as many as you like behind the MX records.
"""

from __future__ import annotations

import logging

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections

from mail import services

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 10 * 1024 * 1024


def _fresh(function):
    """A database call from the gateway's thread pool, on a connection that is still good."""

    def call(*args, **kwargs):
        close_old_connections()
        return function(*args, **kwargs)

    return sync_to_async(call, thread_sensitive=True)


TRY_LATER = "451 4.3.0 Temporary trouble here: try again later"


def _guarded(handler):
    """Any failure inside a step (the database away, above all) is a transient 451 that names
    nothing internal: the sender's server keeps the mail and tries again."""

    async def step(self, *args, **kwargs):
        try:
            return await handler(self, *args, **kwargs)
        except Exception:
            log.exception("the gateway could not take a step; told the sender to retry")
            return TRY_LATER

    step.__name__ = handler.__name__
    return step


class Gateway:
    @_guarded
    async def handle_MAIL(self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list) -> str:
        # No limit here: an envelope sender costs nothing to forge, and a flood claiming a
        # player's address must not shut out that player's replies (limited at RCPT, by kind).
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    @_guarded
    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list) -> str:
        if address.lower() in (known.lower() for known in envelope.rcpt_tos):
            return "250 OK"  # named twice: stored once
        if len(envelope.rcpt_tos) >= settings.SCRAPYARD_MAIL_MAX_RECIPIENTS:
            return "452 4.5.3 Too many recipients"
        if not await _fresh(services.recipient_known)(address):
            return "550 5.1.1 No such mailbox here"
        if await _fresh(services.carries_token)(address):
            if not await _fresh(services.recipient_allowed)(address):
                return "451 4.7.1 Too many mails for this account: try again later"
        elif not await _fresh(services.sender_allowed)(envelope.mail_from or ""):
            return "451 4.7.1 Too many mails from this sender: try again later"
        elif not await _fresh(services.untokened_allowed)():
            return "451 4.7.1 Too much mail here now: try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    @_guarded
    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        try:
            await _fresh(services.inbound_store)(
                via="smtp", envelope_sender=envelope.mail_from or "", recipients=list(envelope.rcpt_tos),
                raw=envelope.original_content or envelope.content,
            )
        except services.MailRefused as refused:
            return refused.reply
        return "250 2.0.0 Stored"


# How long the gateway may take to listen and answer itself at start: a busy machine (the
# gateway restarted after a crash, under load) took more than 10 s, and a start that gave up
# began again from Django's setup, never catching up.
READY_SECONDS = 60


def controller(host: str, port: int) -> Controller:
    return Controller(Gateway(), hostname=host, port=port, data_size_limit=MAX_MESSAGE_BYTES,
                      ready_timeout=READY_SECONDS)
