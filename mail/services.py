"""Play by email: notices out, replies in.

Out. After each commit `games` says which game has news (`mail.receivers`); `fan_out` then makes,
for every seated account with an address, the mails it is owed (game started, your turn, game
over), under a per-(account, game) cursor lock, once per (account, game, seq, kind): the key is
unique. Each mail is composed when made, from the same per-seat selectors as the API, and sent
after the commit by a worker that leases it first; SMTP errors are retried with waits, and beat's
sweep sends whatever a lost message left behind, the daily digests and the deadline warnings.

In. A reply reaches `inbound_store` from the SMTP gateway or a provider's webhook; it is stored
before anything else (nothing a player sent is lost) and then read by `inbound_handle`: the
address's token names the seat, the From must be the account's own address too, and the first
line that is not a quote is the command. Every reply gets an answer mail.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import email
import email.policy
import email.utils
import logging
import re
import secrets
import smtplib
import zoneinfo
from typing import Any

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db import IntegrityError, transaction
from django.db.models import F, Q, Sum
from django.utils.crypto import constant_time_compare, salted_hmac

from games import dispatch, errors, selectors, services, time_controls
from mail import compose, conditionals
from mail.models import (
    Cadence,
    Cursor,
    Inbound,
    InboundOutcome,
    Outgoing,
    OutgoingStatus,
    Preference,
    RawMessage,
    SeatAddress,
)
from rules.errors import NotYourTurn, RulesError

log = logging.getLogger(__name__)

SEND = "mail.send"
FAN_OUT = "mail.fan_out"
HANDLE_INBOUND = "mail.handle_inbound"
FORCED = "mail.forced_moves"
LEASE = dt.timedelta(seconds=60)
LOOK_BACK = dt.timedelta(minutes=10)  # how far back the sweep looks for news a lost fan-out missed
SENDER_WINDOW = dt.timedelta(minutes=10)
FORCED_LOOK_BACK = dt.timedelta(minutes=1)
UNSUBSCRIBE_SALT = "mail.unsubscribe"
GAME_STARTED, YOUR_TURN, DEADLINE_WARNING, GAME_OVER = "game_started", "your_turn", "deadline_warning", "game_over"
ANSWER, DIGEST, BOUNCED, PROPOSAL = "answer", "digest", "bounced", "proposal"
VERIFY = "verify"
VERIFY_SALT = "mail.verify"
ANSWER_WINDOW = dt.timedelta(hours=1)
PLAY_ADDRESS = re.compile(r"^play\+([a-z0-9]{8,40})@", re.IGNORECASE)
BOUNCE_ADDRESS = re.compile(r"^bounce\+(\d+)-([a-z0-9]{16})@", re.IGNORECASE)


# --- preferences and addresses ------------------------------------------------------------------


def preference_of(user_id: int) -> Preference:
    preference, _ = Preference.objects.get_or_create(user_id=user_id)
    return preference


def settings_update(*, user: Any, cadence: str | None = None, games: dict[str, str] | None = None,
                    time_zone: str | None = None, digest_hour: int | None = None, mail_on: bool | None = None,
                    play_forced: bool | None = None) -> Preference:
    """Change how the account wants its mail; a setting left out keeps its value. `games` maps a
    game id to its own cadence ("default" drops the override)."""
    choices = set(Cadence.values)
    with transaction.atomic():
        preference_of(user.pk)
        preference = Preference.objects.select_for_update().get(user=user)
        if cadence is not None:
            if cadence not in choices:
                raise errors.InvalidInput(f"cadence must be one of {', '.join(sorted(choices))}, not {cadence!r}", fields={"cadence": ["unknown cadence"]})
            preference.cadence = cadence
        for game_id, choice in (games or {}).items():
            if not str(game_id).isdigit() or choice not in choices | {"default"}:
                raise errors.InvalidInput(f"games maps a game id to {', '.join(sorted(choices))} or default", fields={"games": ["bad entry"]})
            if choice == "default":
                preference.game_cadence.pop(str(game_id), None)
            else:
                preference.game_cadence[str(game_id)] = choice
        if time_zone is not None:
            try:
                zoneinfo.ZoneInfo(time_zone)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                raise errors.InvalidInput(f"{time_zone!r} is not a time zone (like Europe/Paris)", fields={"time_zone": ["unknown time zone"]}) from None
            preference.time_zone = time_zone
        if digest_hour is not None:
            if not isinstance(digest_hour, int) or not 0 <= digest_hour <= 23:
                raise errors.InvalidInput("digest_hour is an hour from 0 to 23", fields={"digest_hour": ["0 to 23"]})
            preference.digest_hour = digest_hour
        if play_forced is not None:
            preference.play_forced = bool(play_forced)
        if mail_on:  # after a bounce, the owner says the address works again
            preference.bounced_at, preference.bounce_reason = None, ""
        preference.save()
    return preference


def reply_address(user_id: int, game_id: int, seat: int) -> str:
    """The seat's reply address; its token is made the first time it is needed."""
    SeatAddress.objects.get_or_create(user_id=user_id, game_id=game_id, seat=seat, defaults={"token": _new_token()})
    token = SeatAddress.objects.get(user_id=user_id, game_id=game_id, seat=seat).token
    return f"play+{token}@{settings.SCRAPYARD_MAIL_DOMAIN}"


def address_of(*, user: Any, game_id: int) -> str:
    """The caller's seat's reply address in the game."""
    game = selectors.game_get(game_id=game_id)
    seat = selectors.seat_of(game=game, user=user)
    if seat is None:
        raise errors.NotAPlayer(f"you have no seat in game {game_id}")
    return reply_address(user.pk, game_id, seat)


def address_rotate(*, user: Any, game_id: int) -> str:
    """A new reply address for the caller's seat in the game; the old one is unknown from now on."""
    game = selectors.game_get(game_id=game_id)
    seat = selectors.seat_of(game=game, user=user)
    if seat is None:
        raise errors.NotAPlayer(f"you have no seat in game {game_id}")
    SeatAddress.objects.update_or_create(user=user, game_id=game_id, seat=seat, defaults={"token": _new_token()})
    return reply_address(user.pk, game_id, seat)


def _new_token() -> str:
    # Lower-case letters and digits: some mail servers lower-case the local part.
    return base64.b32encode(secrets.token_bytes(15)).decode().lower()


def bounce_address(user_id: int) -> str:
    """The envelope sender of the account's mails (VERP): a bounce names the account it is for."""
    return f"bounce+{user_id}-{_bounce_mac(user_id)}@{settings.SCRAPYARD_MAIL_DOMAIN}"


def _bounce_mac(user_id: int) -> str:
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
            raise errors.InvalidInput("this unsubscribe link is not valid") from None
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
    account = selectors.mail_account(user_id=int(found[1])) if found else None
    address = (account or {}).get("email") or ""
    if not address or not constant_time_compare(found[2], _short_mac(VERIFY_SALT, f"{found[1]}:{address.lower()}")):
        raise errors.InvalidInput("this link is not valid (it may be for an address the account no longer has)")
    preference_of(int(found[1]))
    Preference.objects.filter(user_id=int(found[1])).update(verified_email=address)
    return int(found[1])


def address_verified(user_id: int, address: str) -> bool:
    if not settings.SCRAPYARD_MAIL_VERIFY:
        return True
    return bool(address) and preference_of(user_id).verified_email.lower() == address.lower()


def _verification_request(user_id: int, address: str) -> int:
    """Ask the address to confirm itself: one mail a day per (account, address), no more."""
    account = selectors.mail_account(user_id=user_id)
    if not account or not address:
        return 0
    mail = compose.verify_address({"to": address, "username": account["username"], "link": verify_url(user_id, address)})
    day = time_controls.now().date().isoformat()
    key = f"{user_id}:{VERIFY}:{hashlib.sha256(address.lower().encode()).hexdigest()[:16]}:{day}"
    return _outgoing_make(user_id, address, VERIFY, None, None, mail, key=key, held=False)


def _answers_allowed(user_id: int, to: str) -> bool:
    """Answers and verification mails are made on a stranger's say-so (a mail in, a sign-up):
    at most SCRAPYARD_MAIL_ANSWER_LIMIT an hour per account and per address, whoever asks."""
    since = time_controls.now() - ANSWER_WINDOW
    made = Outgoing.objects.filter(kind__in=(ANSWER, VERIFY), created_at__gte=since)
    limit = settings.SCRAPYARD_MAIL_ANSWER_LIMIT
    return made.filter(user_id=user_id).count() < limit and made.filter(to__iexact=to).count() < limit


# --- out: notices of news --------------------------------------------------------------------


def fan_out(*, game_id: int) -> int:
    """The mails owed to each seated account for the game's events since its cursor."""
    return sum(_fan_out_to(user_id, game_id, seat) for user_id, seat in selectors.account_seats(game_id=game_id).items())


def _fan_out_to(user_id: int, game_id: int, seat: int) -> int:
    with transaction.atomic():
        Cursor.objects.bulk_create([Cursor(user_id=user_id, game_id=game_id)], ignore_conflicts=True)
        cursor = Cursor.objects.select_for_update().get(user_id=user_id, game_id=game_id)
        brief = selectors.account_game_of(game_id=game_id, seat=seat)
        if brief["seq"] <= cursor.seq:
            return 0
        account = selectors.mail_account(user_id=user_id)
        preference = preference_of(user_id)
        made = 0
        if account and account["email"] and preference.cadence_for(game_id) != Cadence.NONE:
            seen = selectors.events_seen_by(game_id=game_id, seat=seat, after=cursor.seq, upto=brief["seq"])
            game = selectors.game_get(game_id=game_id)
            fast = too_fast_for_mail(game.time_control)
            forced_last = bool(seen) and seen[-1]["seat"] == seat and selectors.move_was_forced(
                game_id=game_id, seq=seen[-1]["seq"])
            for kind in notices(brief, seen, forced_last=forced_last):
                if kind == YOUR_TURN and fast:
                    continue  # a reply cannot keep up: the deadline warning stands in
                if account["notify"].get(kind, True):
                    made += _notice_make(account, preference, game_id, kind)
        cursor.seq = brief["seq"]
        cursor.save(update_fields=["seq"])
    return made


def notices(brief: dict[str, Any], seen: list[dict[str, Any]], *, forced_last: bool = False) -> list[str]:
    """Which notices news owes the seat: the start, another seat's draw offer or takeback request
    (which shows the moves too, when it is the seat's turn), the turn (not after the seat's own
    move: the answer to it, or the page it played on, already shows what follows; but after a
    forced move the server played for it, `forced_last`, nobody was answered), and the end."""
    found = []
    if any(selectors.starts_game(event) for event in seen):
        found.append(GAME_STARTED)
    own_last = bool(seen) and seen[-1]["seat"] == brief["seat"] and seen[-1]["kind"] == "move" and not forced_last
    proposed = any(event["kind"] == "system" and event["payload"].get("type") in PROPOSED
                   and event["seat"] != brief["seat"] for event in seen)
    if brief["status"] == "active" and proposed:
        found.append(PROPOSAL)
    elif brief["status"] == "active" and brief["seat"] in brief["to_act"] and seen and not own_last:
        found.append(YOUR_TURN)
    if brief["status"] == "finished" and seen and seen[-1]["seq"] == brief["seq"]:
        found.append(GAME_OVER)
    return found


FAST_STEP_SECONDS = 3600


def too_fast_for_mail(time_control: dict | None) -> bool:
    """A step clock under an hour a move: no mail per turn (6 such games once sent 221)."""
    control = time_control or {}
    return control.get("type") == "step" and float(control.get("seconds") or 0) < FAST_STEP_SECONDS


PROPOSED = (selectors.DRAW_OFFERED, selectors.TAKEBACK_REQUESTED)


def _notice_make(account: dict[str, Any], preference: Preference, game_id: int, kind: str) -> int:
    user = account["user"]
    game = selectors.game_get(game_id=game_id)
    context = seat_context(user, game, preference)
    mail = {GAME_STARTED: compose.game_started, YOUR_TURN: compose.your_turn,
            DEADLINE_WARNING: compose.deadline_warning, GAME_OVER: compose.game_over,
            PROPOSAL: compose.proposal}[kind](context)
    return _outgoing_make(user.pk, account["email"], kind, game_id, game.seq, mail, context["reply_to"], preference)


def seat_context(user: Any, game: Any, preference: Preference) -> dict[str, Any]:
    """Everything a mail may show the account's seat: what the API would show it."""
    seat = selectors.seat_of(game=game, user=user)
    legal = selectors.legal_moves_for(game=game, user=user)
    summary = selectors.game_summary(game=game)
    own = [entry["due_at"] for entry in summary["deadlines"] if entry["seat"] == seat and entry["due_at"]]
    return {
        "game": {**summary, **selectors.pending_proposals(game=game)},
        "username": user.username,
        "seat": seat,
        "seq": game.seq,
        "board": selectors.board_text(game=game, user=user),
        "presentation": selectors.game_detail(game=game, user=user)["presentation"],
        "events": selectors.events_since_own_move(game=game, user=user),
        "notation": legal["notation"],
        "deadline": min(own) if own else None,
        "time_zone": preference.time_zone,
        "seed": game.seed if game.status == "finished" else None,
        "reply_to": reply_address(user.pk, game.pk, seat),
        "unsubscribe": unsubscribe_url(user.pk),
    }


def _outgoing_make(user_id: int, to: str, kind: str, game_id: int | None, seq: int | None, mail: compose.Mail,
                   reply_to: str = "", preference: Preference | None = None, key: str = "", held: bool = True) -> int:
    """Store the mail once per key; send it after the commit, or hold it for the digest. Nothing
    goes to an address its owner has not confirmed (a confirmation request goes instead), and
    answers keep to their hourly limit."""
    key = key or f"{user_id}:{game_id}:{seq}:{kind}"
    if kind != VERIFY and not address_verified(user_id, to):
        _verification_request(user_id, to)
        return 0
    if kind in (ANSWER, VERIFY) and not _answers_allowed(user_id, to):
        log.warning("answer limit reached for account %s: %s not made", user_id, kind)
        return 0
    digest = held and preference is not None and preference.cadence_for(game_id) == Cadence.DIGEST
    row = Outgoing(
        user_id=user_id, key=key, kind=kind, game_id=game_id, seq=seq, to=to, subject=mail.subject[:200],
        text=mail.text, html=mail.html, reply_to=reply_to, next_attempt_at=time_controls.now(),
        message_id=f"<{kind}.{game_id or 0}.{seq or 0}.{secrets.token_hex(8)}@{settings.SCRAPYARD_MAIL_DOMAIN}>",
        status=OutgoingStatus.HELD if digest else OutgoingStatus.PENDING,
    )
    made = Outgoing.objects.bulk_create([row], ignore_conflicts=True)
    stored = Outgoing.objects.filter(key=key).values_list("pk", "message_id").first()
    if stored is None or stored[1] != row.message_id:
        return 0  # made before (a repeated fan-out)
    if digest:
        _digest_schedule(preference)
    else:
        transaction.on_commit(lambda pk=stored[0]: dispatch.send(SEND, (pk,)), robust=True)
    return len(made)


def _digest_schedule(preference: Preference) -> None:
    if Preference.objects.filter(pk=preference.pk, next_digest_at__isnull=True).exists():
        Preference.objects.filter(pk=preference.pk).update(next_digest_at=next_digest_time(preference, time_controls.now()))


def next_digest_time(preference: Preference, after: dt.datetime) -> dt.datetime:
    """The next time it is the account's digest hour where it lives."""
    try:
        zone = zoneinfo.ZoneInfo(preference.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo("UTC")
    local = after.astimezone(zone)
    at = local.replace(hour=preference.digest_hour, minute=0, second=0, microsecond=0)
    if at <= local:
        at = (at + dt.timedelta(days=1)).replace(hour=preference.digest_hour)
    return at.astimezone(dt.timezone.utc)


# --- sending -----------------------------------------------------------------------------------


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
    in_reply_to = _answered_message_id(mail)
    if in_reply_to:
        headers["In-Reply-To"] = in_reply_to
        headers["References"] = in_reply_to
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
    inbound_id = mail.key.rsplit(":", 2)[-2].removeprefix("inbound")
    raw = Inbound.objects.filter(pk=int(inbound_id)).values_list("message__raw", flat=True).first() if inbound_id.isdigit() else None
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


# --- forced moves ------------------------------------------------------------------------------


def forced_moves_play(*, game_id: int) -> int:
    """Play, for each seated account with an address that chose it (the default), its seat's
    only legal move, as its own move (`games.services.forced_move_play`, keyed by game, seq and
    seat). The move's commit brings the game here again, so a run of forced moves plays out."""
    game = selectors.game_get(game_id=game_id)
    if game.status != "active":
        return 0
    played = 0
    for user_id, seat in selectors.account_seats(game_id=game_id).items():
        if seat not in game.to_act or not forced_moves_wanted(user_id):
            continue
        if services.forced_move_play(game_id=game_id, seq=game.seq, user=selectors.user_get(user_id=user_id)):
            played += 1
            break  # the game moved on: the next look is the commit's
    return played


def forced_moves_wanted(user_id: int) -> bool:
    account = selectors.mail_account(user_id=user_id)
    return bool(account and account["email"]) and preference_of(user_id).play_forced


def _forced_now(user_id: int, game: Any, seat: int) -> bool:
    """Whether the seat's move is about to be played for it (so no mail asks for it)."""
    if seat not in game.to_act or not forced_moves_wanted(user_id):
        return False
    return len(selectors.legal_moves_for(game=game, user=selectors.user_get(user_id=user_id))["moves"]) == 1


def forced_moves_missed(*, at: dt.datetime | None = None) -> int:
    """Ask again for the forced moves of every game moved in the last minute (a lost request
    is caught within a beat or two; a forced move is due at once, so an older game is not)."""
    at = at or time_controls.now()
    moved = selectors.games_moved_since(user_ids=selectors.accounts_with_any_email(), game_ids=[], since=at - FORCED_LOOK_BACK)
    for game in moved:
        dispatch.send(FORCED, (game["game"],))
    return len(moved)


# --- beat's sweeps -----------------------------------------------------------------------------


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


def digests_send(*, at: dt.datetime | None = None) -> int:
    """One mail per account whose digest hour has come, with every notice held since the last."""
    at = at or time_controls.now()
    sent = 0
    for preference in Preference.objects.filter(next_digest_at__lte=at):
        with transaction.atomic():
            locked = Preference.objects.select_for_update().get(pk=preference.pk)
            if locked.next_digest_at is None or locked.next_digest_at > at:
                continue
            held = list(Outgoing.objects.filter(user_id=locked.user_id, status=OutgoingStatus.HELD).order_by("pk"))
            locked.next_digest_at = None
            locked.save(update_fields=["next_digest_at"])
            if not held:
                continue
            account = selectors.mail_account(user_id=locked.user_id)
            items = [{"subject": item.subject, "text": item.text} for item in held]
            mail = compose.digest(items, account["username"], unsubscribe_url(locked.user_id))
            key = f"{locked.user_id}:digest:{held[0].pk}-{held[-1].pk}"
            _outgoing_make(locked.user_id, account["email"] or held[-1].to, DIGEST, None, None, mail, key=key, held=False)
            digest = Outgoing.objects.get(key=key)
            Outgoing.objects.filter(pk__in=[item.pk for item in held]).update(status=OutgoingStatus.DIGESTED, digest=digest)
            sent += 1
    return sent


def deadline_warnings_note() -> int:
    """A deadline warning for each seat of an account with an address past 80% of its time, once
    per (account, game, seq)."""
    made = 0
    for warning in selectors.deadline_warnings(user_ids=selectors.accounts_with_any_email()):
        account = selectors.mail_account(user_id=warning["account"])
        preference = preference_of(warning["account"])
        if not account["notify"].get(DEADLINE_WARNING, True) or preference.cadence_for(warning["game"]) == Cadence.NONE:
            continue
        key = f"{warning['account']}:{warning['game']}:{warning['seq']}:{DEADLINE_WARNING}"
        if Outgoing.objects.filter(key=key).exists():
            continue
        with transaction.atomic():
            made += _notice_make(account, preference, warning["game"], DEADLINE_WARNING)
    return made


def fan_outs_missed(*, at: dt.datetime | None = None) -> int:
    """Ask again for the fan-out of every game with news past a seated account's cursor."""
    at = at or time_controls.now()
    moved = selectors.games_moved_since(user_ids=selectors.accounts_with_any_email(), game_ids=[], since=at - LOOK_BACK)
    cursors = {
        (user, game): seq
        for user, game, seq in Cursor.objects.filter(game_id__in=[game["game"] for game in moved]).values_list("user_id", "game_id", "seq")
    }
    behind = [game["game"] for game in moved if any(cursors.get((user, game["game"]), 0) < game["seq"] for user in game["accounts"])]
    for game_id in behind:
        dispatch.send(FAN_OUT, (game_id,))
    return len(behind)


def inbound_unread_handle(*, at: dt.datetime | None = None) -> int:
    """Read again every stored reply still unread a while after it came (its request was lost)."""
    at = at or time_controls.now()
    unread = list(Inbound.objects.filter(outcome=InboundOutcome.RECEIVED, received_at__lt=at - dt.timedelta(seconds=30))
                  .values_list("pk", flat=True)[:200])
    for inbound_id in unread:
        dispatch.send(HANDLE_INBOUND, (inbound_id,))
    return len(unread)


# --- in: replies ---------------------------------------------------------------------------------


class MailRefused(Exception):
    """A mail the gateway refuses: `reply` is the SMTP answer (4xx: come back later; 5xx: never)."""

    def __init__(self, reply: str) -> None:
        super().__init__(reply)
        self.reply = reply


def server_address() -> str:
    """The address mails come from; mail to it is read as commands (`mail.commands`)."""
    return email.utils.parseaddr(settings.DEFAULT_FROM_EMAIL)[1].lower()


def recipient_known(address: str) -> bool:
    """Whether the gateway takes mail for this address: a live reply address, a bounce address, or
    the server's own address (commands)."""
    if (address or "").lower() == server_address():
        return True
    play = PLAY_ADDRESS.match(address or "")
    if play:
        return SeatAddress.objects.filter(token=play[1].lower()).exists()
    bounce = BOUNCE_ADDRESS.match(address or "")
    return bool(bounce) and constant_time_compare(bounce[2].lower(), _bounce_mac(int(bounce[1])))


def sender_allowed(sender: str, at: dt.datetime | None = None) -> bool:
    """Whether this envelope sender may send more now. Only a first screen: an envelope sender
    costs nothing to change, so the limits that hold are per account (`recipient_allowed`) and
    per From address and per day in bytes (`inbound_store`)."""
    at = at or time_controls.now()
    recent = Inbound.objects.filter(envelope_sender__iexact=sender, received_at__gte=at - SENDER_WINDOW).count()
    return recent < settings.SCRAPYARD_MAIL_SENDER_LIMIT


def recipient_allowed(address: str, at: dt.datetime | None = None) -> bool:
    """Whether the account this reply address belongs to may get more mail now (the same limit
    as a sender's, counted per account whatever the senders claim)."""
    play = PLAY_ADDRESS.match(address or "")
    if not play:
        return True
    at = at or time_controls.now()
    user_id = SeatAddress.objects.filter(token=play[1].lower()).values_list("user_id", flat=True).first()
    if user_id is None:
        return True
    recent = Inbound.objects.filter(user_id=user_id, received_at__gte=at - SENDER_WINDOW).count()
    return recent < settings.SCRAPYARD_MAIL_SENDER_LIMIT


CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def clean_header(value: Any) -> str:
    """A header's decoded text on one line: CR, LF and other controls a decoded word may carry
    become spaces, so nothing read from it can break a header we write."""
    return CONTROL.sub(" ", str(value or "")).strip()


def _header_text(message: Any, name: str) -> str:
    """A header decoded and on one line; one whose decoded text the parser refuses (a display
    name that decodes to CR/LF) is read as it came, undecoded, which still names its address."""
    try:
        return clean_header(message.get(name, ""))
    except (ValueError, TypeError, LookupError):
        found = next((value for key, value in message.raw_items() if key.lower() == name.lower()), "")
        return clean_header(found)


def _headers_read(raw: bytes) -> tuple[Any, str, str, str]:
    """(message, From address, Subject, fingerprint); a mail whose headers cannot be read at all
    is refused for good (5xx): sending it again would fail again."""
    try:
        message = email.message_from_bytes(raw, policy=email.policy.default)
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
    return message, sender, subject, fingerprint


def inbound_store(*, via: str, envelope_sender: str, recipients: list[str], raw: bytes) -> list[int]:
    """Keep the mail (its bytes once, a row per recipient) and have it read after the commit.
    A mail already kept for a recipient (the same Message-ID, or with none the same sender and
    body) is not kept again: a mail server that sends again after losing our 250 changes nothing.
    Raises `MailRefused` past a daily byte limit or on headers that cannot be read."""
    message, sender, subject, fingerprint = _headers_read(raw)
    recipients = list(dict.fromkeys(address.strip().lower() for address in recipients))[:settings.SCRAPYARD_MAIL_MAX_RECIPIENTS]
    owners = dict(SeatAddress.objects.filter(token__in=[m[1].lower() for m in map(PLAY_ADDRESS.match, recipients) if m])
                  .values_list("token", "user_id"))
    fresh = [address for address in recipients
             if not Inbound.objects.filter(recipient=address[:254], fingerprint=fingerprint).exists()]
    if not fresh:
        return []
    _byte_limits_check(sender, [owners[m[1].lower()] for m in map(PLAY_ADDRESS.match, fresh) if m and m[1].lower() in owners], len(raw))
    ids = []
    with transaction.atomic():
        stored = RawMessage.objects.create(sender=sender[:254], size=len(raw), raw=raw)
        for recipient in fresh:
            play = PLAY_ADDRESS.match(recipient)
            try:
                with transaction.atomic():
                    row = Inbound.objects.create(
                        via=via, sender=sender[:254], envelope_sender=(envelope_sender or "")[:254], recipient=recipient[:254],
                        subject=subject, message=stored, fingerprint=fingerprint,
                        user_id=owners.get(play[1].lower()) if play else None,
                    )
            except IntegrityError:  # the same mail, stored for this recipient a moment ago
                continue
            ids.append(row.pk)
            transaction.on_commit(lambda pk=row.pk: dispatch.send(HANDLE_INBOUND, (pk,)), robust=True)
        if not ids:
            stored.delete()
    return ids


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


def inbound_handle(*, inbound_id: int) -> str:
    """Read one stored mail and do what it asks; returns the outcome's code. Safe to run twice:
    a handled mail is left alone, and a move carries the mail's idempotency key."""
    with transaction.atomic():
        inbound = Inbound.objects.select_for_update().get(pk=inbound_id)
        if inbound.outcome != InboundOutcome.RECEIVED:
            return inbound.code
        message = email.message_from_bytes(inbound.raw, policy=email.policy.default)
        if BOUNCE_ADDRESS.match(inbound.recipient):
            code, detail = _bounce_read(inbound, message)
        elif inbound.recipient.lower() == server_address():
            from mail import commands  # the commands read games through this module's helpers

            code, detail = commands.handle(inbound, message)
        else:
            code, detail = _reply_handle(inbound, message)
        inbound.code, inbound.detail = code, detail[:500]
        inbound.outcome = InboundOutcome.DONE if code in DONE_CODES else InboundOutcome.REFUSED
        inbound.processed_at = time_controls.now()
        inbound.save()
    return code


def _reply_handle(inbound: Inbound, message: Any) -> tuple[str, str]:
    play = PLAY_ADDRESS.match(inbound.recipient)
    address = SeatAddress.objects.filter(token=play[1].lower()).first() if play else None
    if address is None:
        return "unknown_address", "no seat has this reply address (it may have been replaced)"
    inbound.user_id, inbound.game_id, inbound.seat = address.user_id, address.game_id, address.seat
    account = selectors.mail_account(user_id=address.user_id)
    user = account["user"]
    preference = preference_of(user.pk)
    if not account["email"] or inbound.sender.lower() != account["email"].lower():
        said = (f"A mail from {inbound.sender or 'an unknown sender'} to your reply address for game {address.game_id} "
                f"was refused: replies must come from your account's address, {account['email']}.")
        _answer(inbound, account, preference, "forged_from", said, None)
        return "forged_from", f"the From, {inbound.sender!r}, is not the account's address"
    command = first_command(body_text(message))
    inbound.command = command[:300]
    game = selectors.game_get(game_id=address.game_id)
    if selectors.seat_of(game=game, user=user) != address.seat:
        _answer(inbound, account, preference, "not_a_player", "You no longer have this seat.", None)
        return "not_a_player", "the account no longer has this seat"
    return _command_do(inbound, message, account, preference, game, command)


def _command_do(inbound: Inbound, message: Any, account: dict, preference: Preference, game: Any, command: str) -> tuple[str, str]:
    user = account["user"]
    word = command.lower().strip()
    if word in ("", "help", "?"):
        code = "help" if word else "empty"
        mail = compose.help_text({"game_id": game.pk, "unsubscribe": unsubscribe_url(user.pk)})
        _outgoing_make(user.pk, account["email"], ANSWER, game.pk, None, mail, key=_answer_key(inbound), held=False)
        return code, "help sent" if word else "no command found in the reply: help sent"
    if word == "board":
        _answer(inbound, account, preference, "board", f"The board of game {game.pk} as it stands:", game)
        return "board", "board sent"
    if word in ("vacation on", "vacation off"):
        try:
            services.vacation_set(user=user, on=word.endswith("on"))
        except errors.ServiceError as error:
            _answer(inbound, account, preference, error.code, f"Vacation not changed: {error.detail}", game)
            return error.code, error.detail
        said = "Your vacation has started: your clocks are stopped." if word.endswith("on") else "Your vacation is over: your clocks run again."
        _answer(inbound, account, preference, word.replace(" ", "_"), said, game)
        return word.replace(" ", "_"), said
    if word in LIFE_COMMANDS:
        return _life_do(inbound, account, preference, game, word)
    if conditionals.is_conditional(command):  # "if 3 then 5; if 4 then 1"
        return conditionals.queue_by_mail(game=game, user=user, command=command,
                                          answer=lambda code, said: _answer(inbound, account, preference, code, said, game))
    return _move_play(inbound, message, account, preference, game, command)


# A reply's words for the game's life (games.services.life), each with the service call and the
# answer's opening words. Several spellings name the same thing: people write "accept draw" too.
LIFE_ACTIONS = [  # (outcome code, service, its arguments, the answer, the words that ask for it)
    ("resigned", "resign", {}, "You resigned game {game}.", ["resign"]),
    ("aborted", "abort", {}, "You aborted game {game}.", ["abort"]),
    ("draw_offered", "draw", {"action": "offer"}, "You offered a draw in game {game}.", ["draw", "draw offer", "offer draw"]),
    ("draw_accepted", "draw", {"action": "accept"}, "You accepted the draw in game {game}.", ["draw accept", "accept draw"]),
    ("draw_declined", "draw", {"action": "decline"}, "You declined the draw in game {game}.", ["draw decline", "decline draw"]),
    ("takeback_requested", "takeback", {"action": "request"}, "You asked to take back your last move in game {game}.",
     ["takeback", "takeback request", "take back"]),
    ("takeback_accepted", "takeback", {"action": "accept"}, "You accepted the takeback in game {game}.",
     ["takeback accept", "accept takeback"]),
    ("takeback_declined", "takeback", {"action": "decline"}, "You declined the takeback in game {game}.",
     ["takeback decline", "decline takeback"]),
]
LIFE_COMMANDS = {word: (code, call, kwargs, said) for code, call, kwargs, said, words in LIFE_ACTIONS for word in words}
# The outcomes of a reply that did what it asked (any other is a refusal).
DONE_CODES = {"played", "conditional_queued", "board", "help", "vacation_on", "vacation_off", "bounce_hard", "bounce_soft",
              "games", "game_opened", "joined", "seeking", "analysis_queued", "analysis_sent",
              *(code for code, *_ in LIFE_ACTIONS)}


def _life_do(inbound: Inbound, account: dict, preference: Preference, game: Any, word: str) -> tuple[str, str]:
    code, call, kwargs, said = LIFE_COMMANDS[word]
    try:
        getattr(services, call)(game_id=game.pk, user=account["user"], **kwargs)
    except errors.ServiceError as error:
        _answer(inbound, account, preference, error.code, f"Not done ({word}): {error.detail}", game)
        return error.code, error.detail
    fresh = selectors.game_get(game_id=game.pk)
    said = said.format(game=game.pk)
    if fresh.status == "finished" and game.status != "finished":
        said += f" The game is over: {str((fresh.result or {}).get('reason', 'finished')).replace('_', ' ')}."
    _answer(inbound, account, preference, code, said, fresh)
    return code, said


GUARD = re.compile(r"^(?P<move>.*?)\s*(?:#\s*(?P<seq>\d+))?\s*$")


def _move_play(inbound: Inbound, message: Any, account: dict, preference: Preference, game: Any, command: str) -> tuple[str, str]:
    user = account["user"]
    parts = GUARD.match(command)
    spec, guard = parts["move"].strip(), int(parts["seq"]) if parts["seq"] else None
    if guard is None:
        guard = _replied_seq(message, user.pk, game.pk)
    if guard is None:  # no #seq and not a reply to one of our mails: which position it meant is unknown
        said = (f"Your move {spec!r} was not played: reply to the mail that asks for your move, or end "
                f"the line with the guard it names (like {spec} #{game.seq}), so a mail sent twice or "
                f"late is never played in another position.")
        _answer(inbound, account, preference, "no_guard", said, game)
        return "no_guard", "no #seq and no In-Reply-To naming one of our mails"
    try:
        if guard != game.seq:
            if not selectors.moves_unchanged_since(game=game, user=user, since=guard):
                raise errors.StaleSeq(f"your reply is to the position of move {guard}, but the game is at move {game.seq} now")
            guard = game.seq  # only other seats' secret choices came since: the reply means what it meant
        move = _move_named(game, user, spec)
        submitted = services.move_submit(
            game_id=game.pk, user=user, move=move, expected_seq=guard,
            idempotency_key=f"mail-{inbound.pk}",
        )
    except (errors.ServiceError, RulesError) as error:
        code = error.code
        detail = error.detail if isinstance(error, errors.ServiceError) else error.message
        fresh = selectors.game_get(game_id=game.pk)
        _answer(inbound, account, preference, code, f"Your move {spec!r} was not played ({code}): {detail}", fresh)
        return code, detail
    fresh = selectors.game_get(game_id=game.pk)
    played = next((e["text"] for e in selectors.events_visible(game=fresh, user=user, after=submitted.event.seq - 1, notation=True)
                   if e["seq"] == submitted.event.seq), spec)
    _answer(inbound, account, preference, "played", f"Played in game {game.pk}: {played} (move {submitted.event.seq}).", fresh)
    return "played", played


def _move_named(game: Any, user: Any, spec: str) -> dict[str, Any]:
    if spec.isdigit():
        listed = selectors.legal_moves_for(game=game, user=user)
        number = int(spec)
        if not listed["moves"]:
            raise NotYourTurn("it is not your turn: you have no moves now")
        if not 1 <= number <= len(listed["moves"]):
            raise errors.InvalidInput(f"there is no move numbered {number}: the list runs from 1 to {len(listed['moves'])}")
        return listed["moves"][number - 1]
    return selectors.move_read(game=game, user=user, text=spec)


def _replied_seq(message: Any, user_id: int, game_id: int) -> int | None:
    """The seq of our mail this one answers (In-Reply-To, else the last of References that names
    one), if it is one of the account's."""
    try:
        named = clean_header(message.get("In-Reply-To", "")).split() + clean_header(message.get("References", "")).split()[::-1]
    except Exception:  # an unreadable header names nothing
        return None
    if not named:
        return None
    found = dict(Outgoing.objects.filter(message_id__in=named[:50], user_id=user_id, game_id=game_id, seq__isnull=False)
                 .values_list("message_id", "seq"))
    return next((found[name] for name in named if name in found), None)


def _answer_key(inbound: Inbound) -> str:
    return f"{inbound.user_id}:{inbound.game_id}:inbound{inbound.pk}:{ANSWER}"


def _answer(inbound: Inbound, account: dict, preference: Preference, code: str, said: str, game: Any) -> None:
    """The answer to a reply, always sent at once (a digest would hide it), with the game as the
    seat sees it now and, if it is the seat's turn, its legal moves."""
    user = account["user"]
    context = seat_context(user, game, preference) if game is not None else {"unsubscribe": unsubscribe_url(user.pk)}
    subject = clean_header(inbound.subject or f"game {inbound.game_id}")
    context.update(said=said, subject=subject if subject.lower().startswith("re:") else f"Re: {subject}")
    mail = compose.answer(context)
    # The answer carries the seq it shows: a reply to it is played against that position.
    _outgoing_make(user.pk, account["email"], ANSWER, inbound.game_id, game.seq if game is not None else None, mail,
                   context.get("reply_to", ""), key=_answer_key(inbound), held=False)


QUOTE_INTRO = re.compile(r"^(on .+ wrote:|-----original message-----|le .+ a écrit\s?:)$", re.IGNORECASE)


def body_text(message: Any) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        content = part.get_content()
    except (LookupError, UnicodeDecodeError):
        return ""
    if part.get_content_type() == "text/html":
        content = re.sub(r"<(br|/p|/div)[^>]*>", "\n", content, flags=re.IGNORECASE)
        content = re.sub(r"<[^>]+>", "", content)
    return content


def first_command(text: str) -> str:
    """The first line that is not empty, not a quote and not a quote's introduction."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(">"):
            continue
        if QUOTE_INTRO.match(stripped) or stripped == "--":
            return ""
        return stripped
    return ""


# --- bounces ---------------------------------------------------------------------------------------


def _bounce_read(inbound: Inbound, message: Any) -> tuple[str, str]:
    """A delivery status notification to an account's bounce address: a permanent failure (5.x.x)
    turns its mail off; a temporary one is only noted."""
    found = BOUNCE_ADDRESS.match(inbound.recipient)
    user_id = int(found[1])
    inbound.user_id = user_id if selectors.mail_account(user_id=user_id) else None
    statuses = re.findall(r"^Status:\s*([245])\.\d{1,3}\.\d{1,3}", _report_text(message), re.MULTILINE | re.IGNORECASE)
    if "5" in statuses and inbound.user_id:
        bounce_hard(user_id=user_id, reason=f"the mail server said {inbound.subject or 'undeliverable'}")
        return "bounce_hard", "a permanent failure: mail is off for this account"
    return "bounce_soft", "a temporary failure or an unreadable report: nothing changed"


def _report_text(message: Any) -> str:
    texts = []
    for part in message.walk():
        if part.get_content_type() in ("message/delivery-status", "text/plain"):
            payload = part.get_payload()
            if isinstance(payload, list):
                texts.extend(str(item) for item in payload)
            else:
                texts.append(part.get_payload(decode=True).decode("utf-8", "replace") if part.get_payload(decode=True) else str(payload))
    return "\n".join(texts)


def bounce_hard(*, user_id: int, reason: str) -> None:
    preference_of(user_id)
    Preference.objects.filter(user_id=user_id, bounced_at__isnull=True).update(
        bounced_at=time_controls.now(), bounce_reason=reason[:300]
    )


def bounce_by_address(*, address: str, reason: str) -> int:
    """A provider reports a hard bounce by address (anymail's tracking webhook)."""
    ids = selectors.accounts_with_email(email=address)
    for user_id in ids:
        bounce_hard(user_id=user_id, reason=reason)
    return len(ids)


# --- what the account page shows -------------------------------------------------------------------


def settings_of(*, user: Any) -> dict[str, Any]:
    preference = preference_of(user.pk)
    return {
        "cadence": preference.cadence,
        "games": preference.game_cadence,
        "time_zone": preference.time_zone,
        "digest_hour": preference.digest_hour,
        "bounced_at": preference.bounced_at,
        "bounce_reason": preference.bounce_reason,
        "mail_on": preference.bounced_at is None and preference.cadence != Cadence.NONE,
        "play_forced": preference.play_forced,
        "address_confirmed": address_verified(user.pk, user.email),
        "sent_when": SENT_WHEN,
    }


SENT_WHEN = ("A mail when a game starts, when it is your turn, when a deadline nears and when a game "
             "ends (or one digest a day). Games whose step clock gives under an hour a move send no "
             "mail per turn, only the deadline warning. Forced moves are played for you if you chose that.")


def inbound_list(*, user: Any, limit: int = 50) -> list[dict[str, Any]]:
    rows = Inbound.objects.filter(user=user).order_by("-received_at")[:limit]
    return [
        {
            "id": row.pk, "received_at": row.received_at, "via": row.via, "sender": row.sender, "game": row.game_id,
            "subject": row.subject, "command": row.command, "outcome": row.outcome, "code": row.code, "detail": row.detail,
        }
        for row in rows
    ]
