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

Mail to the server's own address whose From is proven (`mail.authentication`: a DKIM signature
of the From's domain, or SPF passing for an envelope sender of that domain) and is an account's
confirmed address is that account's: it counts against the account's own limit, not the
strangers', and takes the players' path. SPF is checked at RCPT when the envelope sender is an
account's confirmed address (the limit is then the account's from the start); DKIM needs the
body, so a mail refused nothing but the strangers' sender or overall limit, from an account's
address, is taken up to DATA and kept only if its signature proves it (else 451, as before). A
forger of a player's From fills the strangers' pool alone: the player's own mail passes.
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

from mail import authentication, services

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = services.MAX_MESSAGE_BYTES


# Proven mail's calls and strangers' calls on pools of their own: a stranger's call never waits
# in front of a player's (docs/decisions/0019). Each pool thread keeps its own database connection.
PROVEN = ThreadPoolExecutor(max_workers=4, thread_name_prefix="smtp-proven")
STRANGERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="smtp-strangers")
# Proving a From (DNS lookups, a signature's hash): apart from both, so neither waits on the other.
CHECKS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="smtp-checks")
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

    for pool in (PROVEN, STRANGERS, CHECKS):
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
        elif services.is_server_address(address) and await self._spf_owner(session, envelope) is not None:
            if not await _fresh(services.account_allowed, PROVEN)(_checks(envelope)["spf_owner"]):
                return "451 4.7.1 Too many mails for this account: try again later"
        elif not self.peers.take(_peer(session), settings.SCRAPYARD_MAIL_PEER_LIMIT):
            return "451 4.7.1 Too many mails from your address: try again later"
        else:
            refused = await self._strangers_refusal(envelope)
            if refused and not (services.is_server_address(address) and await self._from_an_account(envelope)):
                return refused
            # An account's address, over the strangers' limits: kept only if DATA proves its From.
            _checks(envelope)["refused"] = refused or _checks(envelope).get("refused")
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def _strangers_refusal(self, envelope: Envelope) -> str | None:
        """The strangers' limits past the connecting address's: per envelope sender, and overall."""
        if not await _fresh(services.sender_allowed)(envelope.mail_from or ""):
            return "451 4.7.1 Too many mails from this sender: try again later"
        if not await _fresh(services.untokened_allowed)():
            return "451 4.7.1 Too much mail here now: try again later"
        return None

    async def _from_an_account(self, envelope: Envelope) -> bool:
        checks = _checks(envelope)
        if "sender_account" not in checks:
            checks["sender_account"] = await _fresh(services.confirmed_account, CHECKS)(envelope.mail_from or "")
        return checks["sender_account"] is not None

    async def _spf_owner(self, session: Session, envelope: Envelope) -> int | None:
        """The account whose confirmed address the envelope sender is, if SPF passes for it from
        the connecting address (checked once per envelope; no DNS for a sender no account has)."""
        checks = _checks(envelope)
        if "spf_owner" not in checks:
            checks["spf_owner"] = None
            if await self._from_an_account(envelope):
                checks["spf"] = await _fresh(authentication.spf_result, CHECKS)(
                    _peer(session), envelope.mail_from or "", session.host_name or "")
                if checks["spf"] == "pass":
                    checks["spf_owner"] = checks["sender_account"]
        return checks["spf_owner"]

    async def _proven_owner(self, session: Session, envelope: Envelope, raw: bytes) -> tuple[int | None, str]:
        """The account the mail's From was proven to be (DKIM, or SPF for an aligned envelope
        sender) and how; (None, "") when it was not, or is no account's confirmed address."""
        checks = _checks(envelope)
        verdict = await _fresh(authentication.verdict, CHECKS)(
            raw, ip=_peer(session), envelope_sender=envelope.mail_from or "", helo=session.host_name or "",
            spf_known=checks.get("spf"))
        if not verdict.address:
            return None, ""
        owner = await _fresh(services.confirmed_account, CHECKS)(verdict.address)
        return owner, verdict.how if owner is not None else ""

    @_guarded
    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or envelope.content
        try:
            services.parts_check(raw)  # before anything parses it
        except services.MailRefused as refused:
            return refused.reply
        owner, how = None, ""
        if any(services.is_server_address(address) for address in envelope.rcpt_tos):
            checks = _checks(envelope)
            owner, how = await self._proven_owner(session, envelope, raw)
            if owner is None and checks.get("refused"):
                return checks["refused"]  # the strangers' limits, which only a proven From passes
            if owner is not None and owner != checks.get("spf_owner") and not await _fresh(services.account_allowed, PROVEN)(owner):
                return "451 4.7.1 Too many mails for this account: try again later"
            if owner is None and checks.get("spf_owner") is not None:
                # SPF passed for the envelope, but the From is another address: a stranger's mail.
                if not self.peers.take(_peer(session), settings.SCRAPYARD_MAIL_PEER_LIMIT):
                    return "451 4.7.1 Too many mails from your address: try again later"
                refused = await self._strangers_refusal(envelope)
                if refused:
                    return refused
        proven = owner is not None or all(services.carries_token(address) for address in envelope.rcpt_tos)
        try:
            await _fresh(services.inbound_store, PROVEN if proven else STRANGERS)(
                via="smtp", envelope_sender=envelope.mail_from or "", recipients=list(envelope.rcpt_tos),
                raw=raw, proven_owner=owner, proven_how=how,
            )
        except services.MailRefused as refused:
            return refused.reply
        return "250 2.0.0 Stored"


# How long the gateway may take to listen and answer itself at start: a busy machine (the
# gateway restarted after a crash, under load) took more than 10 s, and a start that gave up
# began again from Django's setup, never catching up.
READY_SECONDS = 60


def _checks(envelope: Envelope) -> dict:
    """What the gateway learned of this envelope's sender (SPF, the account, a deferred refusal)."""
    if not hasattr(envelope, "scrapyard_checks"):
        envelope.scrapyard_checks = {}
    return envelope.scrapyard_checks


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
