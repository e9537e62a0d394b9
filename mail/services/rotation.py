"""Replacing an account's mail addresses when one leaked: its command address and, with it, every
seat's reply address (`addresses_replace`: the account page, `new address` by proven mail, the
API), or one seat's reply address alone (`address_rotate`).

Why all of them together: a leak is a mail that reached someone else (forwarded, quoted on a
forum). An answer to a command carries the command address, and `games` lists every game's reply
address in its body; a game mail carries its reply address. The player cannot tell which of them
a leaked mail named, so one act closes them all (docs/decisions/0030).

A replaced address is kept (`RetiredAddress`): mail to it is taken, not read (no command runs, no
move is played), and answered once an hour at most per address, only to the account's own
confirmed address, never to the From: the answer names the new address, which no other mail
carries but the owner's. Mail in flight when the player asked for new addresses thus gets a
clear answer, not a bounce to a sender who learns nothing."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts import selectors as account_selectors
from games import errors, selectors, time_controls
from mail import compose
from mail.language import speaking
from mail.models import Inbound, Preference, RetiredAddress, SeatAddress
from mail.services.addresses import (
    COMMAND_ADDRESS,
    PLAY_ADDRESS,
    command_address,
    new_token,
    reply_address,
    unsubscribe_url,
)
from mail.services.outbound import ADDRESSES_REPLACED, ANSWER, PROVEN_ANSWER, outgoing_make
from mail.services.preferences import address_verified, preference_of
from rules.words import msg

ADDRESS_REPLACED = "address_replaced"  # the code of a mail to a replaced address
ADDRESS_NEW = "address_new"  # the code of a `new address` command done
BY_MAIL, ON_THE_WEB, BY_THE_API = "mail", "web", "api"  # where a replacement was asked


def addresses_replace(*, user: Any, via: str) -> dict[str, Any]:
    """A new command address for the account, and a new reply address for each of its seats; the
    old ones are kept as replaced. Returns the new command address and how many seats changed.
    Asked on the web or through the API (`via`), the owner is told by mail (`_replaced_notice`);
    asked by mail, the answer to that mail tells it."""
    with transaction.atomic():
        preference_of(user.pk)
        preference = Preference.objects.select_for_update().get(user_id=user.pk)
        _retire(command_address(user.pk), user.pk)
        preference.command_key = new_token()[:24]
        preference.save(update_fields=["command_key"])
        seats = list(SeatAddress.objects.select_for_update().filter(user_id=user.pk))
        for seat in seats:
            seat_address_replace(seat)
        result = {"command_address": command_address(user.pk), "seats": len(seats)}
        if via != BY_MAIL:
            _replaced_notice(user, via, result)
    return result


def _replaced_notice(user: Any, via: str, result: dict[str, Any]) -> None:
    """One short mail, as for a changed password, to the account's confirmed address: the
    addresses were replaced, when and from where, the new command address, and what to do if it
    was not the owner (someone signed in, or holds an API token). Made in the same unit as the
    replacement, sent after it commits; counted against the owner's own answers (`PROVEN_ANSWER`),
    so a leaked token replacing in a loop cannot flood the mailbox past that limit."""
    account = account_selectors.mail_account(user_id=user.pk)
    if not account or not account["email"] or not address_verified(user.pk, account["email"]):
        return  # no confirmed address: nothing to tell it to (and no confirmation request on our say-so)
    now = time_controls.now()
    with speaking(account):
        mail = _replaced_notice_mail(user.pk, via, result, compose.local_time(now, preference_of(user.pk).time_zone))
    key = f"{user.pk}:{ADDRESSES_REPLACED}:{now:%Y%m%d%H%M%S%f}{PROVEN_ANSWER}"
    outgoing_make(user.pk, account["email"], ADDRESSES_REPLACED, None, None, mail, result["command_address"],
                  key=key, held=False)


def _replaced_notice_mail(user_id: int, via: str, result: dict[str, Any], when: str) -> compose.Mail:
    where = _("on the web (the account page)") if via == ON_THE_WEB else _("through the API")
    lines = [
        compose.wrap(_("Your Scrapyard mail addresses were replaced on %(when)s, %(where)s: mail to the old "
                       "ones is no longer read.") % {"when": when, "where": where}),
        "",
        _("Your new command address:"),
        f"  {result['command_address']}",
        *([compose.wrap(_("Each game's next mail carries its new reply address."))] if result["seats"] else []),
        "",
        compose.wrap(_("If this was not you, someone else can sign in to your account or holds one of its API "
                       "tokens: change your password, take back the tokens and apps you do not know, and "
                       "replace the addresses again, on your account page:")),
        f"  {settings.SCRAPYARD_SITE_URL}/account/",
    ]
    body = [*lines, *compose.footer(None, unsubscribe_url(user_id), result["command_address"])]
    return compose.Mail(_("Scrapyard: your mail addresses were replaced"), "\n".join(body) + "\n", compose.as_html(body))


def address_rotate(*, user: Any, game_id: int) -> str:
    """A new reply address for the caller's seat in the game; mail to the old one is not read
    from now on (it is answered, to the account only, with the new one: `rotation`)."""
    game = selectors.game_for(game_id=game_id, user=user)  # a private game is hidden from a stranger
    seat = selectors.seat_of(game=game, user=user)
    if seat is None:
        raise errors.NotAPlayer(msg("you have no seat in game {game_id}", game_id=game_id))
    reply_address(user.pk, game_id, seat)
    seat_address_replace(SeatAddress.objects.get(user=user, game_id=game_id, seat=seat))
    return reply_address(user.pk, game_id, seat)


def seat_address_replace(seat: SeatAddress) -> str:
    """A new token for the seat's reply address; the old address is kept as replaced."""
    _retire(reply_address(seat.user_id, seat.game_id, seat.seat), seat.user_id, seat.game_id, seat.seat)
    seat.token = new_token()
    seat.save(update_fields=["token"])
    return reply_address(seat.user_id, seat.game_id, seat.seat)


def _retire(address: str, user_id: int, game_id: int | None = None, seat: int | None = None) -> None:
    RetiredAddress.objects.get_or_create(address=_local(address),
                                         defaults={"user_id": user_id, "game_id": game_id, "seat": seat})


def _local(address: str) -> str:
    return (address or "").split("@", 1)[0].strip().lower()[:80]


def retired(address: str) -> RetiredAddress | None:
    """The replaced address this is, if it is one of ours (a command or reply address's shape)."""
    if not (COMMAND_ADDRESS.match(address or "") or PLAY_ADDRESS.match(address or "")):
        return None
    return RetiredAddress.objects.filter(address=_local(address)).first()


def retired_allowed(address: str, at: dt.datetime | None, window: dt.timedelta) -> bool:
    """Whether more mail to this replaced address may come in now: as many as a sender may send
    in the `window` (the gateway's, given by `inbound`), counted per address and apart from the
    account's own limit (a flood to a leaked old address must not lock its owner out of the new
    ones)."""
    at = at or time_controls.now()
    recent = Inbound.objects.filter(recipient=(address or "").lower()[:254], received_at__gte=at - window).count()
    return recent < settings.SCRAPYARD_MAIL_SENDER_LIMIT


def replacement(old: RetiredAddress) -> str:
    """The address that replaced this one now: the account's command address, or the seat's."""
    if old.game_id is None:
        return command_address(old.user_id)
    return reply_address(old.user_id, old.game_id, old.seat)


def retired_handle(inbound: Inbound, old: RetiredAddress) -> tuple[str, str]:
    """Mail to a replaced address: not read; one short answer (an hour at most per address) to
    the account's own address, naming the new one."""
    inbound.user_id, inbound.game_id, inbound.seat = old.user_id, old.game_id, old.seat
    account = account_selectors.mail_account(user_id=old.user_id)
    if account and account["email"]:
        with speaking(account):
            _replaced_answer(inbound, account, old)
    return ADDRESS_REPLACED, f"sent to an address replaced at {old.retired_at:%Y-%m-%d %H:%M} UTC: not read"


def _replaced_answer(inbound: Inbound, account: dict, old: RetiredAddress) -> None:
    user = account["user"]
    new = replacement(old)
    when = compose.local_time(old.retired_at, preference_of(user.pk).time_zone)
    lines = [
        compose.wrap(_("Your mail to %(old)s was not read: that address was replaced on %(when)s, and "
                       "nothing was done.") % {"old": _local(inbound.recipient) + "@…", "when": when}),
        "",
        _("Its new address (only mail to you carries it):") if old.game_id is None
        else _("The new reply address of game %(id)s (only mail to you carries it):") % {"id": old.game_id},
        f"  {new}",
        compose.wrap(_("If you sent that mail, send it again there: a reply to this mail goes there. If you "
                       "did not, someone else knows the old address; it no longer works.")),
    ]
    body = [*lines, *compose.footer(old.game_id, unsubscribe_url(user.pk), new)]
    subject = f"Re: {inbound.subject}" if inbound.subject and not inbound.subject.lower().startswith("re:") else inbound.subject
    mail = compose.Mail((subject or _("your mail"))[:200], "\n".join(body) + "\n", compose.as_html(body))
    hour = time_controls.now().strftime("%Y%m%d%H")
    # Not marked proven: the old address may be known to anyone now, so these answers count
    # against the account's hourly answer limit for strangers' mail, and one an hour per address.
    outgoing_make(user.pk, account["email"], ANSWER, old.game_id, None, mail, new,
                  key=f"{user.pk}:replaced:{old.pk}:{hour}", held=False)


def replaced_note(result: dict[str, Any]) -> list[str]:
    """What the answer to `new address` (and the account page) says was replaced."""
    seats = result["seats"]
    return [
        _("Your command address was replaced. The new one:"),
        f"  {result['command_address']}",
        compose.wrap(ngettext(
            "The reply address of your %(count)s game was replaced too; its next mail carries the new one.",
            "The reply addresses of your %(count)s games were replaced too; each game's next mail carries its new one.",
            seats) % {"count": seats}) if seats else "",
        compose.wrap(_("Mail to an old address is no longer read: it gets a short answer naming the new "
                       "address, sent only to you.")),
    ]

