"""Sign-up by mail, for players who never open a browser.

A mail to the server's address from an address no account has confirmed (`register NAME`, or
`help`, or anything) gets one answer a day at most: how to join, and a confirmation to complete
by replying to it. The answer's Reply-To is a join address, `join+<name>.<day>[.<language>].<mac>@MAIL_DOMAIN`,
whose MAC binds the name, the day, the language the answer was written in (absent: English) and
the address the answer went to: only whoever reads that address's mail can reply to it, so the
reply proves the address (no link, no browser). The reply makes the account, its address
confirmed, with no password (a link in the welcome mail, or the `password` command, sets one for
the web if its owner wishes). The welcome and the account's language are the reply's, where it
says one (`Accept-Language`, `Content-Language`), else the answer's: most mail programs say none,
and whoever was answered in Dutch is welcomed in Dutch.

A forged From gets the answer sent to the real owner of the address, who never answers: nothing
else happens. The answers are limited per address (one a day) and in all
(SCRAPYARD_MAIL_SIGNUP_ANSWERS_PER_HOUR), so the server is no way to flood a stranger's mailbox.
A newcomer's mail that would find the hour's answers spent is refused for now at the gateway
(`answers_spent_for`, a 451): its server tries again later, where a mail taken and never answered
would leave the newcomer waiting for nothing.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.utils import translation
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts import selectors as account_selectors
from accounts import services as account_services
from apikit import errors as apikit_errors
from games import selectors, time_controls, words
from mail import compose, reply_text
from mail.language import language_of_mail, language_said
from mail.models import Inbound, InboundOutcome, Preference
from mail.services.addresses import command_address, server_address
from mail.services.preferences import address_confirmed
from mail.services.replies import body_text
from rules.words import msg

log = logging.getLogger(__name__)

# name, day, the language the answer was written in (none: the default), mac
JOIN_ADDRESS = re.compile(r"^join\+([a-z0-9_-]{1,30})\.(\d{5})(?:\.([a-z]{2,3}(?:-[a-z0-9]{1,8})?))?\.([0-9a-f]{16})@",
                          re.IGNORECASE)
NAME = re.compile(r"^[a-z0-9_-]{2,30}$")
REGISTER = re.compile(r"^register\s+(\S+)\s*$", re.IGNORECASE)
VALID_DAYS = 3  # a confirmation is good for this many days
ANSWERED, NOT_ANSWERED = "signup_answered", "signup_not_answered"


def _day(at: dt.datetime | None = None) -> int:
    return ((at or time_controls.now()) - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)).days


def _mac(address: str, name: str, day: int, language: str = "") -> str:
    bound = f"{address.lower()}:{name.lower()}:{day}" + (f":{language.lower()}" if language else "")
    return salted_hmac("mail.signup", bound).hexdigest()[:16]


def join_address(address: str, name: str, day: int | None = None, language: str = "") -> str:
    """The Reply-To of a sign-up answer written in `language` (kept in the address, under the MAC,
    unless it is the default: a join address made before languages were kept reads as English)."""
    day = _day() if day is None else day
    language = "" if language.lower() in ("", settings.LANGUAGE_CODE) else language.lower()
    kept = f".{language}" if language else ""
    return f"join+{name.lower()}.{day:05d}{kept}.{_mac(address, name, day, language)}@{settings.SCRAPYARD_MAIL_DOMAIN}"


def _language_kept(code: str) -> str:
    return code.lower() if code and code.lower() in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


def join_recipient_known(address: str) -> bool:
    """Whether the gateway takes mail for this join address: well formed and still fresh (whose
    address it was made for is checked when it is read: the From is not known at RCPT time)."""
    found = JOIN_ADDRESS.match(address or "")
    return bool(found) and 0 <= _day() - int(found[2]) <= VALID_DAYS


def name_from(address: str) -> str:
    """A name for the account from the address's local part, when the sender chose none."""
    local = re.sub(r"[^a-z0-9_-]", "", address.split("@")[0].lower())[:30]
    return local if len(local) >= 2 else f"player{secrets.randbelow(10**6)}"


def unknown_sender(inbound: Inbound, message: Any, command: str) -> tuple[str, str]:
    """A mail to the server's address from an address no account has confirmed."""
    address = inbound.sender
    if not address or "@" not in address or address.lower() == server_address():
        return "unknown_sender", "no usable From address: no answer sent"
    if _answered_today(address):
        return NOT_ANSWERED, "this address got its answer today: no more until tomorrow"
    if _answered_this_hour() >= settings.SCRAPYARD_MAIL_SIGNUP_ANSWERS_PER_HOUR:
        # Only when two gateways took newcomers' mail at the same moment (`answers_spent_for`).
        return NOT_ANSWERED, "the hourly limit of sign-up answers is reached"
    chosen = REGISTER.match(command or "")
    name = chosen[1].lower() if chosen else name_from(address)
    if not NAME.match(name):
        name = name_from(address)
    taken = get_user_model().objects.filter(username__iexact=name).exists()
    with translation.override(language_of_mail(message)):  # no account to ask: the mail's own headers
        lines = _invitation_lines(address, name, taken, bool(chosen))
        if (command or "").lower().split()[:1] in (["help"], ["?"]):
            lines += ["", *compose.full_help_lines(selectors.rules_catalogue())]
        mail = compose.Mail(_("Scrapyard: join by replying to this mail"), "\n".join(lines) + "\n", compose.as_html(lines))
    reply_to = join_address(address, name, language=mail.language)
    transaction.on_commit(lambda: _send(address, mail, reply_to, _answered_id(message)), robust=True)
    return ANSWERED, f"join instructions sent for the name {name!r}"


def answers_spent_for(address: str) -> bool:
    """Whether a mail from `address` (no account's confirmed address: the caller asks) to the
    server's address, taken now, would find the hour's sign-up answers spent when it is read.
    The mails taken and not read yet count as answers owed, one per sender (a player's unproven
    command among them too, to be safe): a flood of made-up senders is read a few a beat, long
    after it was taken, and a newcomer taken behind it would never be answered. An address answered today, or already waiting, costs nothing more (it
    gets one answer a day at most): its mail is never refused here."""
    if not address or "@" not in address or address.lower() == server_address() or _answered_today(address):
        return False
    waiting = (Inbound.objects.filter(recipient=server_address(), outcome=InboundOutcome.RECEIVED, sender_proven="")
               .values("sender").distinct())
    if waiting.filter(sender=address.lower()).exists():
        return False
    return _answered_this_hour() + waiting.count() >= settings.SCRAPYARD_MAIL_SIGNUP_ANSWERS_PER_HOUR


def _answered_today(address: str) -> bool:
    since = time_controls.now() - dt.timedelta(days=1)
    return Inbound.objects.filter(sender__iexact=address, code=ANSWERED, received_at__gte=since).exists()


def _answered_this_hour() -> int:
    return Inbound.objects.filter(code=ANSWERED, received_at__gte=time_controls.now() - dt.timedelta(hours=1)).count()


def _invitation_lines(address: str, name: str, taken: bool, chosen: bool) -> list[str]:
    server = server_address()
    lines = [compose.wrap(_("Someone (we hope you) wrote to Scrapyard, the play-by-email game server, from {address}.")
                          .format(address=address)), ""]
    if taken:
        lines += [compose.wrap(_("The name {name} is taken. To choose another, reply to this mail with the "
                                 "first line: register <name> (letters, digits, - and _).").format(name=name)), ""]
    else:
        other = _("Another name?") if chosen else _("Not {name}?").format(name=name)
        lines += [compose.wrap(_("To join as {name}, reply to this mail (any text will do). Your reply confirms that "
                                 "{address} is yours: nothing else is needed, no link and no web page.")
                               .format(name=name, address=address)),
                  "", compose.wrap(other + " " + _("Reply with the first line: register <name> (letters, digits, - and _).")), ""]
    lines += [compose.wrap(ngettext("Then mail help to {server} for the games, the commands and how a turn is played by "
                                    "mail. This confirmation is good for {days} day.",
                                    "Then mail help to {server} for the games, the commands and how a turn is played by "
                                    "mail. This confirmation is good for {days} days.", VALID_DAYS)
                           .format(server=server, days=VALID_DAYS)), "",
              compose.wrap(_("Not you? Ignore this mail: nothing happens unless it is answered, and you get at most "
                             "one like it a day."))]
    return lines


def join_reply(inbound: Inbound, message: Any) -> tuple[str, str]:
    """A reply to a sign-up answer: the account is made, its address confirmed."""
    found = JOIN_ADDRESS.match(inbound.recipient)
    address, name, day, invited = inbound.sender, found[1].lower(), int(found[2]), (found[3] or "").lower()
    if not 0 <= _day() - day <= VALID_DAYS or not constant_time_compare(found[4].lower(), _mac(address, name, day, invited)):
        # Not the address the answer went to (a forged From replying blind), or too old: no mail to anyone.
        return "join_refused", "the join address was not made for this From, or is too old"
    language = language_said(message) or _language_kept(invited)  # the reply's, else the invitation's
    # Read as every reply is: above or below the quote, its introduction and signature left out.
    chosen = REGISTER.match(reply_text.read(body_text(message)).first)
    if chosen:
        name = chosen[1].lower()
    if not NAME.match(name):
        return _again(inbound, message, address, name, language,
                      msg("{name!r} cannot be a name here (2 to 30 letters, digits, - and _).", name=name))
    existing = [user_id for user_id in account_selectors.accounts_with_email(email=address)]
    user_model = get_user_model()
    if existing:  # an account gave this address on the web but never confirmed it: the reply does
        user = user_model.objects.get(pk=existing[0])
        Preference.objects.get_or_create(user=user)
        Preference.objects.filter(user=user).update(verified_email=address)
        address_confirmed(user.pk)  # what was held for it goes out now
        inbound.user_id = user.pk
        _welcome(message, user, address, language, made=False)
        return "address_confirmed", f"the address of {user.username} is confirmed"
    if user_model.objects.filter(username__iexact=name).exists():
        return _again(inbound, message, address, name, language, msg("The name {name} was taken meanwhile.", name=name))
    try:
        user, _token = account_services.account_create(username=name, password=secrets.token_urlsafe(32), email=address)
    except apikit_errors.ServiceError as error:
        return _again(inbound, message, address, name, language, msg("The account was not made: {why}", why=error.detail))
    user.set_unusable_password()  # no password until its owner sets one on the web
    user.save(update_fields=["password"])
    Preference.objects.get_or_create(user=user)
    Preference.objects.filter(user=user).update(verified_email=address)
    inbound.user_id = user.pk
    if language != settings.LANGUAGE_CODE:  # answered in its own language: its mail and pages stay in it
        account_services.account_update(user=user, language=language)
    _welcome(message, user, address, language, made=True)
    return "registered", f"account {name} made for {address}"


def _again(inbound: Inbound, message: Any, address: str, name: str, language: str, why: str) -> tuple[str, str]:
    with translation.override(language):
        lines = [compose.wrap(words.translated(why)), "",
                 compose.wrap(_("Reply to this mail with the first line: register <name> to choose another (letters, "
                                "digits, - and _)."))]
        mail = compose.Mail(_("Scrapyard: choose another name"), "\n".join(lines) + "\n", compose.as_html(lines))
    fresh = name_from(address) + str(secrets.randbelow(1000))
    reply_to = join_address(address, fresh, language=mail.language)
    transaction.on_commit(lambda: _send(address, mail, reply_to, _answered_id(message)), robust=True)
    return "join_name_refused", why


def password_url(user: Any) -> str:
    """A link that sets the account's password on the web (Django's reset token: it works once,
    for PASSWORD_RESET_TIMEOUT)."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return f"{settings.SCRAPYARD_SITE_URL}/mail/password/{uid}/{default_token_generator.make_token(user)}/"


def _welcome(message: Any, user: Any, address: str, language: str, *, made: bool) -> None:
    with translation.override(language):
        mail = _welcome_mail(user, address, made=made)
    # Its Reply-To is the account's own command address: the first command a new player sends is
    # then proven theirs, not limited with mail anyone could send claiming their address.
    transaction.on_commit(lambda: _send(address, mail, command_address(user.pk), _answered_id(message)), robust=True)


def _welcome_mail(user: Any, address: str, *, made: bool) -> compose.Mail:
    server, values = server_address(), {"name": user.username, "address": address}
    lines = [
        compose.wrap(_("Welcome to Scrapyard, {name}: your account is made and {address} is confirmed.").format(**values)
                     if made else _("{name}, {address} is confirmed: mail about your games goes to it.").format(**values)),
        "",
        compose.wrap(_("Everything works by mail. Reply to this mail with a command, or mail it to your own command "
                       "address {me}: help (the games and every command), games open (games waiting for players), "
                       "new <game>, join <number>, seek <game>.").format(me=command_address(user.pk))),
        "",
        _("If you ever want to play on the web too, set a password here:"),
        f"  {password_url(user)}",
        compose.wrap(_("(the link works for a few days; mail password to {server} for a new one)").format(server=server)),
    ]
    return compose.Mail(_("Scrapyard: welcome"), "\n".join(lines) + "\n", compose.as_html(lines))


def _answered_id(message: Any) -> str:
    try:
        named = str(message.get("Message-ID", "")).strip()
    except Exception:  # an unreadable header: the answer threads by its subject only
        return ""
    return named if re.fullmatch(r"<[^<>\s]{1,200}>", named) else ""


def _send(to: str, mail: compose.Mail, reply_to: str, answered: str) -> None:
    """Sent at once, outside the outbox: there is no account yet to hold it for. A failure is
    logged; the sender may write again (the day's answer counts only what was made)."""
    headers = {"Auto-Submitted": "auto-replied", "Content-Language": mail.language}
    if answered:
        headers.update({"In-Reply-To": answered, "References": answered})
    message = EmailMultiAlternatives(subject=mail.subject, body=mail.text, from_email=settings.DEFAULT_FROM_EMAIL,
                                     to=[to], reply_to=[reply_to], headers=headers)
    message.attach_alternative(mail.html, "text/html")
    try:
        message.send()
    except Exception as error:  # noqa: BLE001 - an SMTP or network failure: logged, never raised into the commit
        log.warning("sign-up mail to %s not sent: %s", to, type(error).__name__)
