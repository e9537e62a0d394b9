"""The SMTP gateway (aiosmtpd): takes replies for play+<token>@MAIL_DOMAIN and bounces for
bounce+<account>-<mac>@MAIL_DOMAIN, refuses every other address at RCPT time (550), tells a
sender or an account over its rate to come back later (451: its server retries, nothing is
lost), takes at most a few recipients, answers any trouble of its own with a 451 that names
nothing internal, and stores each accepted mail (its bytes once) before answering 250
(`mail.services.inbound_store`); a worker reads it. The server's own address (the From of every
mail) is taken too: its mail is read as commands (`mail.commands`), as is an account's own
command address (`me+<account>-<mac>@`, the Reply-To of every answer to a command).

Two paths, so a flood cannot delay a player: mail that proves who it is for (a reply address,
a bounce address, an account's command address: each token went only to the account's
confirmed mailbox) takes its database calls on a pool of its own; every other mail (the
server's address, a join address, whatever From it claims) on another, and from one connecting
address at most SCRAPYARD_MAIL_PEER_LIMIT such mails in ten minutes (451 beyond: a forger picks
any From, not its IP address). The only state held is that count of recent strangers' mail per
peer, in this process: run as many gateways as you like behind the MX records.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections

from mail import services

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 10 * 1024 * 1024


# Proven mail's calls and strangers' calls on pools of their own: a stranger's call never waits
# in front of a player's (docs/decisions/0019). Each pool thread keeps its own database connection.
PROVEN = ThreadPoolExecutor(max_workers=4, thread_name_prefix="smtp-proven")
STRANGERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="smtp-strangers")
PEER_WINDOW = 600.0  # seconds: strangers' mail counted per connecting address


def _fresh(function, pool: ThreadPoolExecutor = STRANGERS):
    """A database call on one of the gateway's pools, on a connection that is still good."""

    def call(*args, **kwargs):
        close_old_connections()
        return function(*args, **kwargs)

    return sync_to_async(call, thread_sensitive=False, executor=pool)


def close_connections() -> None:
    """Close every pool thread's database connection (a test database is then free to drop):
    as many tasks as a pool has threads, each held until all have started, so one runs on each."""
    from django.db import connections

    for pool in (PROVEN, STRANGERS):
        size = pool._max_workers
        barrier = threading.Barrier(size)

        def close(barrier=barrier):
            barrier.wait(timeout=10)
            connections.close_all()

        for done in [pool.submit(close) for _ in range(size)]:
            done.result()


class PeerCount:
    """Strangers' mails accepted per connecting address in the last PEER_WINDOW seconds."""

    def __init__(self) -> None:
        self.seen: dict[str, collections.deque] = {}
        self.lock = threading.Lock()

    def take(self, peer: str, limit: int, now: float | None = None) -> bool:
        """Count one more from `peer` if it is under `limit`; whether it was."""
        now = time.monotonic() if now is None else now
        with self.lock:
            if len(self.seen) > 100_000:  # a spread of addresses: forget the quiet ones
                self.seen = {key: times for key, times in self.seen.items() if times and times[-1] > now - PEER_WINDOW}
            times = self.seen.setdefault(peer, collections.deque())
            while times and times[0] <= now - PEER_WINDOW:
                times.popleft()
            if len(times) >= limit:
                return False
            times.append(now)
            return True



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
    def __init__(self) -> None:
        self.peers = PeerCount()

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
        if services.carries_token(address):  # read from the address alone: no database call
            if not await _fresh(services.recipient_known, PROVEN)(address):
                return "550 5.1.1 No such mailbox here"
            if not await _fresh(services.recipient_allowed, PROVEN)(address):
                return "451 4.7.1 Too many mails for this account: try again later"
        elif not await _fresh(services.recipient_known)(address):
            return "550 5.1.1 No such mailbox here"
        elif not self.peers.take(_peer(session), settings.SCRAPYARD_MAIL_PEER_LIMIT):
            return "451 4.7.1 Too many mails from your address: try again later"
        elif not await _fresh(services.sender_allowed)(envelope.mail_from or ""):
            return "451 4.7.1 Too many mails from this sender: try again later"
        elif not await _fresh(services.untokened_allowed)():
            return "451 4.7.1 Too much mail here now: try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    @_guarded
    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        proven = all(services.carries_token(address) for address in envelope.rcpt_tos)
        try:
            await _fresh(services.inbound_store, PROVEN if proven else STRANGERS)(
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


def _peer(session: Session) -> str:
    peer = session.peer
    return str(peer[0]) if isinstance(peer, (tuple, list)) and peer else str(peer or "")


class SharedPortController(Controller):
    """aiosmtpd's controller on a port another gateway may listen on too (SO_REUSEPORT): the
    deployment runs two (deploy/supervisord.conf's `smtp` and `smtp-b`), so one killed leaves the
    other answering while it starts again (docs/decisions/0023)."""

    def _create_server(self):
        return self.loop.create_server(self._factory_invoker, host=self.hostname, port=self.port,
                                       ssl=self.ssl_context, reuse_port=True)

    def _trigger_server(self):
        # The start-up probe may be handed to the other gateway: probe until this one has answered.
        for _ in range(TRIGGER_TRIES):
            super()._trigger_server()
            if self._factory_invoked.is_set():
                return


TRIGGER_TRIES = 64  # each probe reaches either gateway; 64 misses in a row are beyond belief


def controller(host: str, port: int) -> Controller:
    return SharedPortController(Gateway(), hostname=host, port=port, data_size_limit=MAX_MESSAGE_BYTES,
                                ready_timeout=READY_SECONDS)
