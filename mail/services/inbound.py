"""Mail in: what the gateway takes (known recipients, sender and byte limits), each mail stored
before anything else (nothing a player sent is lost), then read once by `inbound_handle`."""

from __future__ import annotations

import datetime as dt
import email
import email.parser
import email.policy
import email.utils
import hashlib
import logging
import re
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q, Sum
from django.utils.crypto import constant_time_compare

from accounts import selectors as account_selectors
from games import dispatch, time_controls
from mail.models import Inbound, InboundOutcome, RawMessage, SeatAddress
from mail.services import rotation
from mail.services.addresses import (
    BOUNCE_ADDRESS,
    COMMAND_ADDRESS,
    PLAY_ADDRESS,
    bounce_mac,
    command_owner,
    proven_address,
    server_address,
)
from mail.services.bounces import bounce_read
from mail.services.preferences import address_verified
from mail.services.replies import DONE_CODES, reply_handle
from mail.services.sending import clean_header

log = logging.getLogger(__name__)


HANDLE_INBOUND = "mail.handle_inbound"
MAX_MESSAGE_BYTES = 10 * 1024 * 1024  # a mail in, whichever way it comes
SENDER_WINDOW = dt.timedelta(minutes=10)


class MailRefused(Exception):
    """A mail the gateway refuses: `reply` is the SMTP answer (4xx: come back later; 5xx: never)."""

    def __init__(self, reply: str) -> None:
        super().__init__(reply)
        self.reply = reply


def recipient_known(address: str) -> bool:
    """Whether the gateway takes mail for this address: a live reply address, a bounce address, the
    server's own address or an account's command address (commands)."""
    if (address or "").lower() == server_address():
        return True
    if COMMAND_ADDRESS.match(address or ""):
        return command_owner(address) is not None or rotation.retired(address) is not None
    if (address or "").lower().startswith("join+"):
        from mail import signup

        return signup.join_recipient_known(address)
    play = PLAY_ADDRESS.match(address or "")
    if play:
        return SeatAddress.objects.filter(token=play[1].lower()).exists() or rotation.retired(address) is not None
    bounce = BOUNCE_ADDRESS.match(address or "")
    return bool(bounce) and constant_time_compare(bounce[2].lower(), bounce_mac(int(bounce[1])))


def carries_token(address: str) -> bool:
    """Whether mail to this address proves something about its sender: a seat's reply address (its
    token was mailed to the account's confirmed address only), an account's command address (the
    same) or an account's bounce address.
    Such mail is limited per account; any other (the server's address, a join address) is mail a
    stranger can send claiming any From, limited apart (`sender_allowed`, `untokened_allowed`)."""
    return proven_address(address)


def confirmed_account(address: str) -> int | None:
    """The account whose confirmed address this is (None: no account, or not confirmed)."""
    if not address:
        return None
    return next((user_id for user_id in account_selectors.accounts_with_email(email=address)
                 if address_verified(user_id, address)), None)


def is_server_address(address: str) -> bool:
    return (address or "").lower() == server_address()


def sender_allowed(sender: str, at: dt.datetime | None = None) -> bool:
    """Whether this envelope sender may send more mail without a reply token now. A flood that
    forges a player's address fills only this: the player's replies carry a token and pass."""
    at = at or time_controls.now()
    recent = _untokened(Inbound.objects.filter(envelope_sender__iexact=sender, received_at__gte=at - SENDER_WINDOW)).count()
    return recent < settings.SCRAPYARD_MAIL_SENDER_LIMIT


def untokened_allowed(at: dt.datetime | None = None) -> bool:
    """Whether more mail without a reply token may come in now, from anyone (a flood from many
    made-up senders stops here, and tokened replies still pass)."""
    at = at or time_controls.now()
    return _untokened(Inbound.objects.filter(received_at__gte=at - SENDER_WINDOW)).count() < settings.SCRAPYARD_MAIL_UNTOKENED_LIMIT


def _untokened(rows):
    return rows.exclude(_PROVEN)


_TOKENED = Q(recipient__startswith="play+") | Q(recipient__startswith="bounce+") | Q(recipient__startswith="me+")
# Mail that proved whose it is: by a token in its address, or its From by DKIM or SPF.
_PROVEN = _TOKENED | ~Q(sender_proven="")


def recipient_allowed(address: str, at: dt.datetime | None = None) -> bool:
    """Whether the account this reply address belongs to may get more mail now (the same limit
    as a sender's, counted per account whatever the senders claim)."""
    user_id = _owner(address)
    if user_id is None and rotation.retired(address) is not None:
        return rotation.retired_allowed(address, at, SENDER_WINDOW)
    return True if user_id is None else account_allowed(user_id, at)


def account_allowed(user_id: int, at: dt.datetime | None = None) -> bool:
    """Whether the account may get more mail that proved it is its own now. Only such mail
    counts (a token in its address, or its From proven by DKIM or SPF): mail to the server's
    address from an unproven From is the account's once read as its command, and a flood
    forging its From would otherwise spend this too."""
    at = at or time_controls.now()
    recent = (Inbound.objects.filter(_PROVEN, user_id=user_id, received_at__gte=at - SENDER_WINDOW)
              .exclude(code=rotation.ADDRESS_REPLACED).count())  # mail to a replaced address: its own limit
    return recent < settings.SCRAPYARD_MAIL_SENDER_LIMIT


def _owner(address: str) -> int | None:
    """The account a reply address or a command address belongs to (None for any other)."""
    play = PLAY_ADDRESS.match(address or "")
    if play:
        return SeatAddress.objects.filter(token=play[1].lower()).values_list("user_id", flat=True).first()
    return command_owner(address)


def _header_text(message: Any, name: str) -> str:
    """A header decoded and on one line; one whose decoded text the parser refuses (a display
    name that decodes to CR/LF) is read as it came, undecoded, which still names its address."""
    try:
        return clean_header(message.get(name, ""))
    except (ValueError, TypeError, LookupError):
        found = next((value for key, value in message.raw_items() if key.lower() == name.lower()), "")
        return clean_header(found)


_PART_HEADER = re.compile(rb"^content-type[ \t]*:", re.IGNORECASE | re.MULTILINE)


def parts_check(raw: bytes) -> None:
    """Refuse for good (554) a mail of more than SCRAPYARD_MAIL_MAX_PARTS MIME parts, counted
    without parsing it (a Content-Type header a part). Python's email parser spends about a
    millisecond a part, and recurses into nested ones: 100,000 parts in 3.6 MB took 100 s."""
    if len(_PART_HEADER.findall(raw)) > settings.SCRAPYARD_MAIL_MAX_PARTS:
        raise MailRefused(f"554 5.6.0 The mail has more than {settings.SCRAPYARD_MAIL_MAX_PARTS} MIME parts")


def _headers_read(raw: bytes) -> tuple[str, str, str]:
    """(From address, Subject, fingerprint), from the headers alone (the body is not parsed
    here); a mail whose headers cannot be read at all, or of too many parts, is refused for
    good (5xx): sending it again would fail again."""
    parts_check(raw)
    try:
        message = email.parser.BytesHeaderParser(policy=email.policy.default).parsebytes(raw)
        sender = clean_header(email.utils.parseaddr(_header_text(message, "From"))[1]).replace(" ", "").lower()
        subject = clean_header(_header_text(message, "Subject"))[:300]
        message_id = clean_header(_header_text(message, "Message-ID")).replace(" ", "")
    except Exception as error:  # the email package raises many kinds on broken headers
        log.info("a mail with unreadable headers was refused: %s", type(error).__name__)
        raise MailRefused("554 5.6.0 The mail's headers cannot be read") from None
    if message_id:
        fingerprint = f"id:{message_id[:180]}"
    else:  # no Message-ID: the same sender and the same bytes after the headers are the same mail
        body = raw.split(b"\r\n\r\n", 1)[-1] if b"\r\n\r\n" in raw else raw.split(b"\n\n", 1)[-1]
        fingerprint = "sha256:" + hashlib.sha256(sender.encode() + b"\0" + body).hexdigest()
    return sender, subject, fingerprint


def inbound_store(*, via: str, envelope_sender: str, recipients: list[str], raw: bytes,
                  proven_owner: int | None = None, proven_how: str = "") -> list[int]:
    """Keep the mail (its bytes once, a row per recipient) and have it read after the commit.
    A mail already kept for a recipient (the same Message-ID, or with none the same sender and
    body) is not kept again: a mail server that sends again after losing our 250 changes nothing.
    `proven_owner`: the account whose confirmed address the mail's From was proven to be
    (`proven_how`: dkim or spf, by the gateway): its mail to the server's address is that
    account's, counted against its own limits and read at once, as a reply's.
    Raises `MailRefused` past a daily byte limit, on headers that cannot be read, or for a
    newcomer's mail when the hour's answers to newcomers are spent."""
    sender, subject, fingerprint = _headers_read(raw)
    recipients = list(dict.fromkeys(address.strip().lower() for address in recipients))[:settings.SCRAPYARD_MAIL_MAX_RECIPIENTS]
    owners = dict(SeatAddress.objects.filter(token__in=[m[1].lower() for m in map(PLAY_ADDRESS.match, recipients) if m])
                  .values_list("token", "user_id"))
    owners |= {address: owner for address in recipients if (owner := command_owner(address)) is not None}
    if proven_owner is not None:
        owners |= {address: proven_owner for address in recipients if is_server_address(address)}
    fresh = [address for address in recipients
             if not Inbound.objects.filter(recipient=address[:254], fingerprint=fingerprint).exists()]
    if not fresh:
        return []
    _byte_limits_check(sender, [owner for address in fresh if (owner := _stored_owner(address, owners)) is not None], len(raw))
    if proven_owner is None and any(is_server_address(address) for address in fresh):
        _newcomer_check(sender)
    ids = []
    with transaction.atomic():
        stored = RawMessage.objects.create(sender=sender[:254], size=len(raw), raw=raw)
        for recipient in fresh:
            try:
                with transaction.atomic():
                    row = Inbound.objects.create(
                        via=via, sender=sender[:254], envelope_sender=(envelope_sender or "")[:254], recipient=recipient[:254],
                        subject=subject, message=stored, fingerprint=fingerprint,
                        user_id=_stored_owner(recipient, owners),
                        sender_proven=proven_how if proven_owner is not None and is_server_address(recipient) else "",
                    )
            except IntegrityError:  # the same mail, stored for this recipient a moment ago
                continue
            ids.append(row.pk)
            if carries_token(recipient) or row.sender_proven or _untokened_burst_free():
                transaction.on_commit(lambda pk=row.pk: dispatch.send(HANDLE_INBOUND, (pk,)), robust=True)
            # else: past the minute's burst, a mail without a token waits for the sweep, which
            # reads a few a beat: a flood never queues ahead of a player's reply.
        if not ids:
            stored.delete()
    return ids


def _stored_owner(address: str, owners: dict[str, int]) -> int | None:
    play = PLAY_ADDRESS.match(address)
    return owners.get(play[1].lower()) if play else owners.get(address)


def _byte_limits_check(sender: str, user_ids: list[int], size: int) -> None:
    """Refuse (for now: 452, the sender's server tries again later) a mail that would take the
    bytes stored in a day from this From address, or for one of these accounts, past the limit."""
    since = time_controls.now() - dt.timedelta(days=1)
    limit = settings.SCRAPYARD_MAIL_DAILY_BYTES
    by_sender = RawMessage.objects.filter(sender=sender[:254], received_at__gte=since).aggregate(total=Sum("size"))["total"] or 0
    if by_sender + size > limit:
        raise MailRefused("452 4.3.1 Too much mail from this address today: try again tomorrow")
    for user_id in set(user_ids):
        by_account = (RawMessage.objects.filter(received_at__gte=since, inbound__user_id=user_id).distinct()
                      .aggregate(total=Sum("size"))["total"] or 0)
        if by_account + size > limit:
            raise MailRefused("452 4.2.2 Too much mail for this account today: try again tomorrow")


def _newcomer_check(sender: str) -> None:
    """Refuse for now (451: the sender's server tries again later) mail to the server's address
    from an address no account has confirmed, when the hour's answers to newcomers are spent
    (`mail.signup.answers_spent_for`): taken, it would never be answered, and never sent again."""
    if confirmed_account(sender) is not None:  # a player's command, not a newcomer's: no answer spent
        return
    from mail import signup

    if signup.answers_spent_for(sender):
        raise MailRefused("451 4.7.1 Too many newcomers have written this hour: try again later")


def inbound_handle(*, inbound_id: int) -> str:
    """Read one stored mail and do what it asks; returns the outcome's code. Safe to run twice:
    a handled mail is left alone, and a move carries the mail's idempotency key."""
    with transaction.atomic():
        inbound = Inbound.objects.select_for_update().get(pk=inbound_id)
        if inbound.outcome != InboundOutcome.RECEIVED:
            return inbound.code
        message = email.message_from_bytes(inbound.raw, policy=email.policy.default)
        replaced = _replaced(inbound.recipient)
        if replaced is not None:  # a replaced address (perhaps since the mail came): not read
            code, detail = rotation.retired_handle(inbound, replaced)
        elif BOUNCE_ADDRESS.match(inbound.recipient):
            code, detail = bounce_read(inbound, message)
        elif inbound.recipient.lower().startswith("join+"):
            from mail import signup  # sign-up by mail: a reply to the answer an unknown address got

            code, detail = signup.join_reply(inbound, message)
        elif inbound.recipient.lower() == server_address() or COMMAND_ADDRESS.match(inbound.recipient):
            from mail import commands  # the commands read games through this module's helpers

            code, detail = commands.handle(inbound, message, proven=command_owner(inbound.recipient))
        else:
            code, detail = reply_handle(inbound, message)
        inbound.code, inbound.detail = code, detail[:500]
        inbound.outcome = InboundOutcome.DONE if code in DONE_CODES else InboundOutcome.REFUSED
        inbound.processed_at = time_controls.now()
        inbound.save()
    return code


def _replaced(address: str) -> Any:
    """The replaced command address this mail went to, if it did: asked only when the address is
    not live (its mac no longer matches), so a live address costs no query more."""
    if COMMAND_ADDRESS.match(address or ""):
        return rotation.retired(address) if command_owner(address) is None else None
    return None  # a reply address: `reply_handle` asks, once it found no seat has the token


def _untokened_burst_free(at: dt.datetime | None = None) -> bool:
    at = at or time_controls.now()
    recent = _untokened(Inbound.objects.filter(received_at__gte=at - dt.timedelta(minutes=1))).count()
    return recent <= settings.SCRAPYARD_MAIL_UNTOKENED_BURST


def inbound_unread_handle(*, at: dt.datetime | None = None) -> int:
    """Read again every stored reply still unread a while after it came (its request was lost),
    and a few of the mails without a token that waited past the burst: these after the others."""
    at = at or time_controls.now()
    unread = Inbound.objects.filter(outcome=InboundOutcome.RECEIVED).order_by("pk")
    tokened = list(unread.filter(received_at__lt=at - dt.timedelta(seconds=30))
                   .filter(_PROVEN).values_list("pk", flat=True)[:200])
    waiting = list(_untokened(unread).values_list("pk", flat=True)[:settings.SCRAPYARD_MAIL_UNTOKENED_PER_BEAT])
    for inbound_id in [*tokened, *waiting]:
        dispatch.send(HANDLE_INBOUND, (inbound_id,))
    return len(tokened) + len(waiting)


def inbound_list(*, user: Any, limit: int = 50) -> list[dict[str, Any]]:
    rows = Inbound.objects.filter(user=user).order_by("-received_at")[:limit]
    return [
        {
            "id": row.pk, "received_at": row.received_at, "via": row.via, "sender": row.sender, "game": row.game_id,
            "subject": row.subject, "command": row.command, "outcome": row.outcome, "code": row.code, "detail": row.detail,
        }
        for row in rows
    ]
