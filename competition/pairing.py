"""Seeks and their pairing.

A seek asks for a game: rules, players, options, time control, rated or casual, and optionally a
rating range the partners' ratings must lie in. Seeks that want the same game share a `bucket`
(a digest of those fields). After each new seek commits, a worker pairs it (`seek_pair`): it
locks the seek and its candidates `FOR UPDATE SKIP LOCKED`, so two workers pairing at once take
different seeks and a seek is never paired twice. Candidates are the bucket's open seeks of
other accounts whose range holds the seek's rating and whose rating lies in its range (asked of
the database, so seeks nobody can pair with do not crowd the window), oldest first; a group is
the seek and the first candidates that also fit each other. The game is made in the transaction
that marks the group's seeks paired. A seek held by another pairing at that moment stays open:
the beat sweep tries every open seek again (`buckets_pair`).

The players learn of the game on the account stream (`game_started`), or by reading the seek.
A seek expires, unpaired, after `expires_in` seconds.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

import rules
from apikit.errors import InvalidInput
from competition import rating_fold, ratings
from competition.errors import SeekNotFound, TooManySeeks
from competition.models import Rating, Seek, SeekStatus
from games import dispatch, time_controls
from games import services as games_services
from rules.values import canonical_json
from rules.words import msg

log = logging.getLogger(__name__)

PAIR = "competition.pair"
MAX_OPEN_SEEKS = 5
DEFAULT_EXPIRES_IN = 600
MAX_EXPIRES_IN = 7 * 86_400
PAIRING_WINDOW = 200  # the oldest acceptable partners a pairing looks at
SWEEP_LIMIT = 2000  # open seeks a sweep tries again


def seek_create(*, user: Any, rules_id: str, players: int, options: dict | None, time_control: Any, rated: bool,
                rating_min: float | None = None, rating_max: float | None = None,
                expires_in: int = DEFAULT_EXPIRES_IN) -> Seek:
    game_rules = rules.get(rules_id)
    chosen = game_rules.normalize_options(players, options)
    control = time_controls.normalize_time_control(time_control)
    if not control:
        raise InvalidInput(msg("a seek needs a time control"), fields={"time_control": ["required"]})
    if rating_min is not None and rating_max is not None and rating_min > rating_max:
        raise InvalidInput(msg("rating_min is above rating_max"), fields={"rating_range": ["min above max"]})
    if not 10 <= expires_in <= MAX_EXPIRES_IN:
        raise InvalidInput(msg("expires_in is from 10 to {max_expires_in} seconds", max_expires_in=MAX_EXPIRES_IN), fields={"expires_in": ["10 to 604800"]})
    with transaction.atomic():
        if Seek.objects.filter(user=user, status=SeekStatus.OPEN, expires_at__gt=timezone.now()).count() >= MAX_OPEN_SEEKS:
            raise TooManySeeks(msg("at most {max_open_seeks} open seeks at once: cancel one first", max_open_seeks=MAX_OPEN_SEEKS))
        wanted = {"rules": rules_id, "players": players, "options": chosen, "time_control": control, "rated": rated}
        seek = Seek.objects.create(
            user=user, rules=rules_id, players=players, options=chosen, time_control=control, rated=rated,
            rating_min=rating_min, rating_max=rating_max, rating=rating_in_pool(user=user, **wanted),
            bucket=hashlib.sha256(canonical_json(wanted).encode()).hexdigest(),
            expires_at=timezone.now() + dt.timedelta(seconds=expires_in),
        )
        seek_id = seek.pk
        transaction.on_commit(lambda: _ask_for_pairing(seek_id), robust=True)
    return seek


def rating_in_pool(*, user: Any = None, rules: str, players: int, time_control: dict, player: str | None = None,
                   **_: Any) -> float:
    """The rating in the pool the game would be rated in (a newcomer's if none) of the account
    `user`, or of the pool key `player` (a server bot's `bot:<name>:<level>`)."""
    system = ratings.system_for(players)
    key = player if player is not None else rating_fold.person(user.pk)
    known = Rating.objects.filter(player=key, rules=rules, system=system,
                                  time_class=rating_fold.time_class_of(time_control) or "").first()
    return known.rating if known else ratings.newcomer(system).rating


def _ask_for_pairing(seek_id: int) -> None:
    try:
        dispatch.send(PAIR, (seek_id,))
    except Exception as error:  # the broker away: the sweep pairs it within seconds
        log.warning("pairing of seek %s not sent (%s)", seek_id, error)


@transaction.atomic
def seek_cancel(*, user: Any, seek_id: int) -> Seek:
    seek = Seek.objects.select_for_update().filter(pk=seek_id, user=user).first()
    if seek is None:
        raise SeekNotFound(msg("you have no seek {seek_id}", seek_id=seek_id))
    if seek.status == SeekStatus.OPEN:
        seek.status = SeekStatus.CANCELLED
        seek.save(update_fields=["status"])
    return seek


def seeks_expire() -> int:
    return Seek.objects.filter(status=SeekStatus.OPEN, expires_at__lte=timezone.now()).update(status=SeekStatus.EXPIRED)


def buckets_pair() -> int:
    """Try again every open seek, oldest first (the sweep's catch-all for a pairing message lost,
    or a partner that was held by another pairing at the time)."""
    waiting = (Seek.objects.filter(status=SeekStatus.OPEN, expires_at__gt=timezone.now())
               .order_by("created_at", "id").values_list("pk", flat=True)[:SWEEP_LIMIT])
    return sum(seek_pair(seek_id=seek_id) for seek_id in list(waiting))


def seek_pair(*, seek_id: int) -> int:
    """Pair this seek if partners can be found now: the oldest open seeks of its bucket that it
    accepts and that accept it, each also fitting the others. Returns 1 if a game was made."""
    with transaction.atomic():
        seek = (Seek.objects.select_for_update(skip_locked=True).select_related("user")
                .filter(pk=seek_id, status=SeekStatus.OPEN, expires_at__gt=timezone.now()).first())
        if seek is None:  # paired, cancelled, expired, or being paired by another worker now
            return 0
        candidates = list(
            _accepting(seek, Seek.objects.select_for_update(skip_locked=True).select_related("user")
                       .filter(status=SeekStatus.OPEN, bucket=seek.bucket, expires_at__gt=timezone.now())
                       .exclude(user_id=seek.user_id)).order_by("created_at", "id")[:PAIRING_WINDOW]
        )
        group = group_for(seek, candidates)
        if group is None:
            return 0
        _game_for(group)
        return 1


def _accepting(seek: Seek, seeks: QuerySet) -> QuerySet:
    """Seeks whose range holds this seek's rating and whose rating lies in this seek's range."""
    seeks = seeks.filter(Q(rating_min__isnull=True) | Q(rating_min__lte=seek.rating),
                         Q(rating_max__isnull=True) | Q(rating_max__gte=seek.rating))
    if seek.rating_min is not None:
        seeks = seeks.filter(rating__gte=seek.rating_min)
    if seek.rating_max is not None:
        seeks = seeks.filter(rating__lte=seek.rating_max)
    return seeks


def group_for(seek: Seek, candidates: list[Seek]) -> list[Seek] | None:
    """The seek and the oldest candidates that fit it and each other, enough for a game; seat
    order is the order they sought in."""
    group = [seek]
    for candidate in candidates:
        if all(_fit(candidate, member) for member in group):
            group.append(candidate)
            if len(group) == seek.players:
                return sorted(group, key=lambda s: (s.created_at, s.pk))
    return None


def _fit(one: Seek, other: Seek) -> bool:
    return one.user_id != other.user_id and _accepts(one, other.rating) and _accepts(other, one.rating)


def _accepts(seek: Seek, rating: float) -> bool:
    return (seek.rating_min is None or rating >= seek.rating_min) and (seek.rating_max is None or rating <= seek.rating_max)


def _game_for(group: list[Seek]) -> None:
    first = group[0]
    game = games_services.game_create_seated(
        creator=first.user, rules_id=first.rules, players=first.players, options=first.options,
        time_control=first.time_control, rated=first.rated, seats=[{"user": seek.user} for seek in group],
    )
    Seek.objects.filter(pk__in=[seek.pk for seek in group]).update(
        status=SeekStatus.PAIRED, game_id=game.pk, paired_at=timezone.now())
