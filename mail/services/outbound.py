"""Mail out: the notices a game's news owes a seated account (`account_notices_make`, run by the
consumer framework's fan-out under its cursor: `mail.consumer`), each mail made once per key
(account, game, seq, kind) and sent after the commit or held for the digest; the digests and the
deadline warnings. An account whose address is not confirmed has its news held, not dropped: its
cursor waits, and once it confirms, each game's news is told as the game is then
(`preferences.address_confirmed`)."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import secrets
import zoneinfo
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from accounts import selectors as account_selectors
from competition import selectors as competition_selectors
from consumers import framework
from games import selectors, time_controls
from mail import chat_mail, compose
from mail.language import speaking
from mail.models import Cadence, Outgoing, OutgoingStatus, Preference
from mail.services.addresses import reply_address, unsubscribe_url, verify_url
from mail.services.preferences import MAIL, address_verified, preference_of

log = logging.getLogger(__name__)


LOOK_BACK = dt.timedelta(minutes=10)  # how far back the sweep looks for news a lost fan-out missed
GAME_STARTED, YOUR_TURN, DEADLINE_WARNING, GAME_OVER = "game_started", "your_turn", "deadline_warning", "game_over"
ANSWER, DIGEST, BOUNCED, PROPOSAL = "answer", "digest", "bounced", "proposal"
STAND_IN = "stand_in"  # a stand-in bot took the seat after a timeout: how to take it back
# The end of an answer's key when the mail it answers proved its account (`replies.answer_key`).
PROVEN_ANSWER = ":proven"
VERIFY = "verify"
ADDRESSES_REPLACED = "addresses_replaced"  # the owner told its addresses were replaced on the web or by the API
ANSWER_WINDOW = dt.timedelta(hours=1)


def fan_out(*, game_id: int) -> int:
    """The mails owed to each seated account for the game's events since its cursor."""
    return framework.fan_out(framework.get(MAIL), game_id)


def account_ready(user_id: int) -> bool:
    """News is told to an account with an address its owner confirmed; else it is held."""
    account = account_selectors.mail_account(user_id=user_id)
    return bool(account and account["email"]) and address_verified(user_id, account["email"])


def account_held(user_id: int) -> None:
    """News came for an account whose address is not confirmed: the address is asked to confirm
    itself (once a day at most), and the news waits."""
    account = account_selectors.mail_account(user_id=user_id)
    if account and account["email"]:
        _verification_request(user_id, account["email"])


def account_notices_make(user_id: int, seat: int | None, brief: dict[str, Any], after: int) -> int:
    """The mails the game's events after `after` owe the account, as the game is now (`brief`)."""
    game_id = brief["game"]
    account = account_selectors.mail_account(user_id=user_id)
    preference = preference_of(user_id)
    if not account or not account["email"] or preference.cadence_for(game_id) == Cadence.NONE:
        return 0
    seen = selectors.events_seen_by(game_id=game_id, seat=seat, after=after, upto=brief["seq"])
    game = selectors.game_get(game_id=game_id)
    fast = too_fast_for_mail(game.time_control)
    forced_last = bool(seen) and seen[-1]["seat"] == seat and selectors.move_was_forced(game_id=game_id, seq=seen[-1]["seq"])
    stood_in = any(row.index == seat and row.stand_in for row in game.seat_rows())
    made = 0
    for kind in notices(brief, seen, forced_last=forced_last, stood_in=stood_in):
        if kind == GAME_STARTED and not account["notify"].get(kind, True) and brief["seat"] in brief["to_act"]:
            kind = YOUR_TURN  # no start notices wanted, but the first move is still asked for
        if kind == YOUR_TURN and fast:
            continue  # a reply cannot keep up: the deadline warning stands in
        if account["notify"].get(kind, True):
            made += _notice_make(account, preference, game_id, kind)
    return made


def notices(brief: dict[str, Any], seen: list[dict[str, Any]], *, forced_last: bool = False,
            stood_in: bool = False) -> list[str]:
    """Which notices news owes the seat: the start, a stand-in bot taking the seat (how to take it
    back), another seat's draw offer or takeback request (which shows the moves too, when it is
    the seat's turn), the turn (not after the seat's own move: the answer to it, or the page it
    played on, already shows what follows; but after a forced move the server played for it,
    `forced_last`, nobody was answered; nor while a stand-in bot plays the seat, `stood_in`: it
    has played the turn before a reply could), and the end."""
    found = []
    if any(selectors.starts_game(event) for event in seen):
        found.append(GAME_STARTED)
    own_last = bool(seen) and seen[-1]["seat"] == brief["seat"] and seen[-1]["kind"] == "move" and not forced_last
    proposed = any(event["kind"] == "system" and event["payload"].get("type") in PROPOSED
                   and event["seat"] != brief["seat"] for event in seen)
    taken_over = any(event["kind"] == "system" and event["payload"].get("type") == selectors.STAND_IN
                     and event["seat"] == brief["seat"] for event in seen)
    if brief["status"] == "active" and taken_over and stood_in:
        found.append(STAND_IN)
    elif brief["status"] == "active" and proposed:
        found.append(PROPOSAL)
    elif brief["status"] == "active" and brief["seat"] in brief["to_act"] and seen and not own_last and not stood_in \
            and GAME_STARTED not in found:  # the start's mail shows the first mover's moves: one mail, not two
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
    with speaking(account):  # the recipient's language, whoever's move caused the mail
        context = seat_context(user, game, preference)
        mail = {GAME_STARTED: compose.game_started, YOUR_TURN: compose.your_turn,
                DEADLINE_WARNING: compose.deadline_warning, GAME_OVER: compose.game_over,
                PROPOSAL: compose.proposal, STAND_IN: compose.stand_in}[kind](context)
    return outgoing_make(user.pk, account["email"], kind, game_id, game.seq, mail, context["reply_to"], preference)


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
        "words": legal["words"],  # the same moves in the recipient's words
        "deadline": min(own) if own else None,
        "time_zone": preference.time_zone,
        "seed": game.seed if game.status == "finished" else None,
        "finished_at": game.finished_at if game.status == "finished" else None,
        "reply_to": reply_address(user.pk, game.pk, seat),
        "chat": chat_mail.new_chat(user, game),
        "tournament": competition_selectors.tournament_of_game(game_id=game.pk),
        "unsubscribe": unsubscribe_url(user.pk),
    }


def outgoing_make(user_id: int, to: str, kind: str, game_id: int | None, seq: int | None, mail: compose.Mail,
                   reply_to: str = "", preference: Preference | None = None, key: str = "", held: bool = True) -> int:
    """Store the mail once per key; send it after the commit, or hold it for the digest. Nothing
    goes to an address its owner has not confirmed (a confirmation request goes instead), and
    answers keep to their hourly limit."""
    key = key or f"{user_id}:{game_id}:{seq}:{kind}"
    if kind != VERIFY and not address_verified(user_id, to):
        _verification_request(user_id, to)
        return 0
    if kind in (ANSWER, VERIFY, ADDRESSES_REPLACED) and not _answers_allowed(user_id, to, proven=key.endswith(PROVEN_ANSWER)):
        log.warning("answer limit reached for account %s: %s not made", user_id, kind)
        return 0
    digest = held and preference is not None and preference.cadence_for(game_id) == Cadence.DIGEST
    row = {
        "key": key, "user_id": user_id, "kind": kind, "game_id": game_id, "seq": seq, "to": to,
        "subject": mail.subject[:200], "text": mail.text, "html": mail.html, "reply_to": reply_to, "language": mail.language,
        "message_id": f"<{kind}.{game_id or 0}.{seq or 0}.{secrets.token_hex(8)}@{settings.SCRAPYARD_MAIL_DOMAIN}>",
        "status": OutgoingStatus.HELD if digest else OutgoingStatus.PENDING,
    }
    made = framework.rows_make(framework.get(MAIL), [row])  # sent after the commit, unless held
    if made and digest:
        _digest_schedule(preference)
    return made


def _verification_request(user_id: int, address: str) -> int:
    """Ask the address to confirm itself: one mail a day per (account, address), no more."""
    account = account_selectors.mail_account(user_id=user_id)
    if not account or not address:
        return 0
    with speaking(account):
        mail = compose.verify_address({"to": address, "username": account["username"], "link": verify_url(user_id, address)})
    day = time_controls.now().date().isoformat()
    key = f"{user_id}:{VERIFY}:{hashlib.sha256(address.lower().encode()).hexdigest()[:16]}:{day}"
    return outgoing_make(user_id, address, VERIFY, None, None, mail, key=key, held=False)


def _answers_allowed(user_id: int, to: str, proven: bool = False) -> bool:
    """Answers and verification mails are made on a stranger's say-so (a mail in, a sign-up):
    the consumer's quota (SCRAPYARD_MAIL_ANSWER_LIMIT an hour) per account and per address,
    whoever asks. Answers to mail that proved its account (`PROVEN_ANSWER`) are counted apart,
    against a quota of the same size: a flood forging a player's From would otherwise spend the
    answers to the player's own replies and commands."""
    consumer = framework.get(MAIL)
    proof = Q(key__endswith=PROVEN_ANSWER)
    counted = proof if proven else ~proof
    return (framework.within_quota(consumer, user_id, where=counted)
            and framework.within_quota(consumer, where=counted, to__iexact=to))


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
            account = account_selectors.mail_account(user_id=locked.user_id)
            items = [{"subject": item.subject, "text": item.text, "game": item.game_id, "reply_to": item.reply_to} for item in held]
            with speaking(account):
                mail = compose.digest(items, account["username"], unsubscribe_url(locked.user_id))
            key = f"{locked.user_id}:digest:{held[0].pk}-{held[-1].pk}"
            outgoing_make(locked.user_id, account["email"] or held[-1].to, DIGEST, None, None, mail, key=key, held=False)
            digest = Outgoing.objects.get(key=key)
            Outgoing.objects.filter(pk__in=[item.pk for item in held]).update(status=OutgoingStatus.DIGESTED, digest=digest)
            sent += 1
    return sent


def deadline_warnings_note() -> int:
    """A deadline warning for each seat of an account with an address past 80% of its time, once
    per (account, game, seq)."""
    made = 0
    for warning in selectors.deadline_warnings(user_ids=account_selectors.accounts_with_any_email()):
        account = account_selectors.mail_account(user_id=warning["account"])
        preference = preference_of(warning["account"])
        if not account["notify"].get(DEADLINE_WARNING, True) or preference.cadence_for(warning["game"]) == Cadence.NONE:
            continue
        key = f"{warning['account']}:{warning['game']}:{warning['seq']}:{DEADLINE_WARNING}"
        if Outgoing.objects.filter(key=key).exists():
            continue
        with transaction.atomic():
            made += _notice_make(account, preference, warning["game"], DEADLINE_WARNING)
    return made
