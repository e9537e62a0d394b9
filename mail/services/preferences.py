"""How an account wants its mail (cadence, per game, time zone, digest hour, forced moves), what
its account page shows of it, and whether its address is confirmed."""

from __future__ import annotations

import zoneinfo
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext, gettext_noop

from consumers import framework
from games import errors
from mail.models import Cadence, Preference
from rules.words import msg

MAIL = "mail"  # the consumer (`mail.consumer`)


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
                raise errors.InvalidInput(msg("cadence must be one of {choices}, not {cadence!r}", choices=', '.join(sorted(choices)), cadence=cadence), fields={"cadence": ["unknown cadence"]})
            preference.cadence = cadence
        for game_id, choice in (games or {}).items():
            if not str(game_id).isdigit() or choice not in choices | {"default"}:
                raise errors.InvalidInput(msg("games maps a game id to {choices} or default", choices=', '.join(sorted(choices))), fields={"games": ["bad entry"]})
            if choice == "default":
                preference.game_cadence.pop(str(game_id), None)
            else:
                preference.game_cadence[str(game_id)] = choice
        if time_zone is not None:
            try:
                zoneinfo.ZoneInfo(time_zone)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                raise errors.InvalidInput(msg("{time_zone!r} is not a time zone (like Europe/Paris)", time_zone=time_zone), fields={"time_zone": ["unknown time zone"]}) from None
            preference.time_zone = time_zone
        if digest_hour is not None:
            if not isinstance(digest_hour, int) or not 0 <= digest_hour <= 23:
                raise errors.InvalidInput(msg("digest_hour is an hour from 0 to 23"), fields={"digest_hour": ["0 to 23"]})
            preference.digest_hour = digest_hour
        if play_forced is not None:
            preference.play_forced = bool(play_forced)
        if mail_on:  # after a bounce, the owner says the address works again
            preference.bounced_at, preference.bounce_reason = None, ""
        preference.save()
    return preference


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
        "sent_when": gettext(SENT_WHEN),  # in the reader's language
    }


SENT_WHEN = gettext_noop("A mail when a game starts, when it is your turn, when a deadline nears and when a game "
             "ends (or one digest a day). Games whose step clock gives under an hour a move send no "
             "mail per turn, only the deadline warning. Forced moves are played for you if you chose that.")


def address_verified(user_id: int, address: str) -> bool:
    if not settings.SCRAPYARD_MAIL_VERIFY:
        return True
    return bool(address) and preference_of(user_id).verified_email.lower() == address.lower()


def address_confirmed(user_id: int) -> int:
    """The account's address is confirmed (its link followed, or a sign-up by mail proved it):
    what was held for it goes out, as each game is now: the start of a game begun meanwhile, the
    newest position of each game where it is to act; a game that ended meanwhile is not told."""
    return framework.recipient_ready(framework.get(MAIL), user_id)
