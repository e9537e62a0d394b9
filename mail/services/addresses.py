"""The addresses and links mails carry: a seat's reply address, the account's bounce address
(VERP), the unsubscribe and verification links (and following them), the server's own address."""

from __future__ import annotations

import base64
import email.utils
import re
import secrets
from typing import Any

from django.conf import settings
from django.core import signing
from django.utils.crypto import constant_time_compare, salted_hmac

from accounts import selectors as account_selectors
from games import errors, selectors
from mail.models import Cadence, Preference, SeatAddress
from mail.services.preferences import address_confirmed, preference_of
from rules.words import msg

PLAY_ADDRESS = re.compile(r"^play\+([a-z0-9]{8,40})@", re.IGNORECASE)
BOUNCE_ADDRESS = re.compile(r"^bounce\+(\d+)-([a-z0-9]{16})@", re.IGNORECASE)
# An account's own command address: commands as to the server's address, but proven (its mac went
# only to the account's confirmed mailbox, as the Reply-To of answers to its commands), so they
# are read on the players' path and never share a limit with mail that merely claims its From.
COMMAND_ADDRESS = re.compile(r"^me\+(\d+)-([a-z0-9]{16})@", re.IGNORECASE)
UNSUBSCRIBE_SALT = "mail.unsubscribe"
VERIFY_SALT = "mail.verify"


def reply_address(user_id: int, game_id: int, seat: int) -> str:
    """The seat's reply address; its token is made the first time it is needed."""
    SeatAddress.objects.get_or_create(user_id=user_id, game_id=game_id, seat=seat, defaults={"token": _new_token()})
    token = SeatAddress.objects.get(user_id=user_id, game_id=game_id, seat=seat).token
    return f"play+{token}@{settings.SCRAPYARD_MAIL_DOMAIN}"


def address_of(*, user: Any, game_id: int) -> str:
    """The caller's seat's reply address in the game."""
    game = selectors.game_for(game_id=game_id, user=user)  # a private game is hidden from a stranger
    seat = selectors.seat_of(game=game, user=user)
    if seat is None:
        raise errors.NotAPlayer(msg("you have no seat in game {game_id}", game_id=game_id))
    return reply_address(user.pk, game_id, seat)


def new_token() -> str:
    return _new_token()


def _new_token() -> str:
    # Lower-case letters and digits: some mail servers lower-case the local part.
    return base64.b32encode(secrets.token_bytes(15)).decode().lower()


def bounce_address(user_id: int) -> str:
    """The envelope sender of the account's mails (VERP): a bounce names the account it is for."""
    return f"bounce+{user_id}-{bounce_mac(user_id)}@{settings.SCRAPYARD_MAIL_DOMAIN}"


def proven_address(address: str) -> bool:
    """Whether mail to this address proves its account: a seat's reply address, an account's
    command address or bounce address (each went only to the account's confirmed mailbox)."""
    address = address or ""
    return bool(PLAY_ADDRESS.match(address) or BOUNCE_ADDRESS.match(address) or COMMAND_ADDRESS.match(address))


def command_address(user_id: int) -> str:
    """The account's own address for commands (the Reply-To of every answer to one)."""
    return f"me+{user_id}-{command_mac(user_id)}@{settings.SCRAPYARD_MAIL_DOMAIN}"


def command_mac(user_id: int) -> str:
    """The mac in the account's command address: of its id, and of its command key once the
    address was replaced (`rotation.addresses_replace`), so the old address no longer matches."""
    key = Preference.objects.filter(user_id=user_id).values_list("command_key", flat=True).first() or ""
    return salted_hmac("mail.commands", f"{user_id}:{key}" if key else str(user_id)).hexdigest()[:16]


def command_owner(address: str) -> int | None:
    """The account a command address belongs to, or None for any other address or a wrong mac."""
    found = COMMAND_ADDRESS.match(address or "")
    if found and constant_time_compare(found[2].lower(), command_mac(int(found[1]))):
        return int(found[1])
    return None


def bounce_mac(user_id: int) -> str:
    return salted_hmac("mail.bounce", str(user_id)).hexdigest()[:16]


def unsubscribe_url(user_id: int) -> str:
    # The same short link every time (no timestamp): a mail's List-Unsubscribe header and its
    # body, made moments apart, name one link, a link in an old mail keeps working, and it fits
    # a 78-column line.
    return f"{settings.SCRAPYARD_SITE_URL}/mail/u/{user_id}-{_short_mac(UNSUBSCRIBE_SALT, str(user_id))}/"


def _short_mac(salt: str, value: str) -> str:
    return salted_hmac(salt, value).hexdigest()[:16]


def unsubscribe(*, token: str) -> int:
    """Turn the account's mail off (the link in every mail; RFC 8058's one-click POST)."""
    short = re.fullmatch(r"(\d{1,12})-([0-9a-f]{16})", token or "")
    if short and constant_time_compare(short[2], _short_mac(UNSUBSCRIBE_SALT, short[1])):
        user_id = int(short[1])
        preference_of(user_id)
        Preference.objects.filter(user_id=user_id).update(cadence=Cadence.NONE)
        return user_id
    try:  # a link of the longer kind mails carried before
        user_id = int(signing.Signer(salt=UNSUBSCRIBE_SALT).unsign(token))
    except (signing.BadSignature, ValueError, TypeError):
        try:  # a link made before links stopped carrying a timestamp
            user_id = int(signing.loads(token, salt=UNSUBSCRIBE_SALT))
        except (signing.BadSignature, ValueError, TypeError):
            raise errors.InvalidInput(msg("this unsubscribe link is not valid")) from None
    preference_of(user_id)
    Preference.objects.filter(user_id=user_id).update(cadence=Cadence.NONE)
    return user_id


def verify_url(user_id: int, address: str) -> str:
    """The link that says the address is the account's: it names the address by a MAC only, so it
    stops working when the account's address changes."""
    return f"{settings.SCRAPYARD_SITE_URL}/mail/v/{user_id}-{_short_mac(VERIFY_SALT, f'{user_id}:{address.lower()}')}/"


def address_verify(*, token: str) -> int:
    """Follow a verification link: the account's present address is its owner's from now on."""
    found = re.fullmatch(r"(\d{1,12})-([0-9a-f]{16})", token or "")
    account = account_selectors.mail_account(user_id=int(found[1])) if found else None
    address = (account or {}).get("email") or ""
    if not address or not constant_time_compare(found[2], _short_mac(VERIFY_SALT, f"{found[1]}:{address.lower()}")):
        raise errors.InvalidInput(msg("this link is not valid (it may be for an address the account no longer has)"))
    preference_of(int(found[1]))
    Preference.objects.filter(user_id=int(found[1])).update(verified_email=address)
    address_confirmed(int(found[1]))  # what was held for it goes out now
    return int(found[1])


def server_address() -> str:
    """The address mails come from; mail to it is read as commands (`mail.commands`)."""
    return email.utils.parseaddr(settings.DEFAULT_FROM_EMAIL)[1].lower()
