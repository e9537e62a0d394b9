"""Writing ratings: rating games as they finish, and rebuilding every rating from the log.

Ratings are a fold of finished rated games in the order they finished (`competition.rating_fold`).
A worker rates a game after its finish commits (`game_finished`, then a task); a beat sweep
catches a game whose message was lost. Folds take the one `RatingLedger` row's lock, so they run
one at a time and in order, on any number of workers. A game can commit its finish after a later
game's rating was folded (two games ending in the same instant): its pool is then folded again
from the log, so the stored numbers are always those a rebuild gives.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import connection, transaction
from django.db.models import Max, Q
from django.utils import timezone

from competition import rating_fold, ratings
from competition.models import RatedGame, Rating, RatingChange, RatingLedger
from games import selectors as games_selectors

# How far back the sweep looks before the newest rated finish: a finish commits well within this.
LATE_COMMIT_MARGIN = dt.timedelta(minutes=10)


def _ledger_locked() -> RatingLedger:
    RatingLedger.objects.get_or_create(id=1)
    return RatingLedger.objects.select_for_update().get(id=1)


def ratings_catch_up(*, game_ids: list[int] | None = None) -> int:
    """Rate the finished games not yet rated: these, or (the sweep) all that finished lately.
    Returns how many games counted."""
    with transaction.atomic():
        _ledger_locked()
        if game_ids is None:
            newest = RatedGame.objects.aggregate(newest=Max("finished_at"))["newest"]
            games = games_selectors.finished_games(changed_since=newest - LATE_COMMIT_MARGIN if newest else None)
        else:
            games = games_selectors.finished_games(game_ids=game_ids)
        seen = set(RatedGame.objects.filter(game_id__in=[game["id"] for game in games]).values_list("game_id", flat=True))
        counted = 0
        for game in sorted((game for game in games if game["id"] not in seen), key=rating_fold.order_key):
            counted += _rate(game)
        return counted


def _rate(game: dict[str, Any]) -> int:
    reason = rating_fold.why_not_counted(game)
    RatedGame.objects.create(game_id=game["id"], finished_at=game["finished_at"], counted=not reason, reason=reason)
    if reason:
        return 0
    rules_id, time_class, system = pool = rating_fold.pool_of(game)
    in_pool = RatingChange.objects.filter(rules=rules_id, time_class=time_class, system=system)
    later = in_pool.filter(Q(finished_at__gt=game["finished_at"]) | Q(finished_at=game["finished_at"], game_id__gt=game["id"]))
    if later.exists():
        pool_rebuild(pool)  # it finished before games already folded: fold the pool again, in order
        return 1
    keys = [rating_fold.player_of(seat)[0] for seat in game["seats"]]
    stored = {rating.player: rating for rating in Rating.objects.filter(rules=rules_id, time_class=time_class,
                                                                       system=system, player__in=keys)}
    standings = {key: _standing_of(rating) for key, rating in stored.items()}
    changes = rating_fold.fold_game(game, standings)
    RatingChange.objects.bulk_create([RatingChange(**change) for change in changes])
    for key in keys:
        _rating_save(pool, standings[key], stored.get(key))
    return 1


def _standing_of(rating: Rating) -> rating_fold.Standing:
    return rating_fold.Standing(
        player=rating.player, name=rating.name, is_bot=rating.is_bot, user_id=rating.user_id,
        skill=ratings.Skill(rating.system, rating.mu, rating.sigma, rating.volatility),
        last_played_at=rating.last_played_at, games=rating.games, wins=rating.wins, draws=rating.draws,
        losses=rating.losses,
    )


def _rating_fields(pool: rating_fold.Pool, standing: rating_fold.Standing) -> dict[str, Any]:
    rules_id, time_class, system = pool
    return {
        "player": standing.player, "user_id": standing.user_id, "name": standing.name, "is_bot": standing.is_bot,
        "rules": rules_id, "time_class": time_class, "system": system, "mu": standing.skill.mu,
        "sigma": standing.skill.sigma, "volatility": standing.skill.volatility, "rating": standing.skill.rating,
        "deviation": standing.skill.deviation, "games": standing.games, "wins": standing.wins,
        "draws": standing.draws, "losses": standing.losses, "last_played_at": standing.last_played_at,
    }


def _rating_save(pool: rating_fold.Pool, standing: rating_fold.Standing, stored: Rating | None) -> None:
    fields = _rating_fields(pool, standing)
    if stored is None:
        Rating.objects.create(**fields)
        return
    for name, value in fields.items():
        setattr(stored, name, value)
    stored.save()


@transaction.atomic
def pool_rebuild(pool: rating_fold.Pool) -> None:
    """Fold one pool again from the log (the caller may hold the ledger's lock already)."""
    _ledger_locked()
    rules_id, time_class, system = pool
    games = [game for game in games_selectors.finished_games(rules_id=rules_id) if rating_fold.pool_of(game) == pool]
    _replace(games, Q(rules=rules_id, time_class=time_class, system=system))


@transaction.atomic
def ratings_rebuild() -> dict[str, int]:
    """Every rating from scratch, from the log of finished games; what the worker folded is
    replaced by the same numbers (the rebuild test checks that they are the same)."""
    _ledger_locked()
    games = games_selectors.finished_games()
    _replace(games, Q())
    RatedGame.objects.all().delete()
    now = timezone.now()
    reasons = [rating_fold.why_not_counted(game) for game in games]
    _insert_all(RatedGame, [{"game_id": game["id"], "finished_at": game["finished_at"] or now,
                             "counted": not reason, "reason": reason} for game, reason in zip(games, reasons)])
    return {"games": len(games), "ratings": Rating.objects.count(), "changes": RatingChange.objects.count()}


def _replace(games: list[dict[str, Any]], where: Q) -> None:
    pools, changes = rating_fold.fold_all(games)
    RatingChange.objects.filter(where).delete()
    Rating.objects.filter(where).delete()
    standings = [_rating_fields(pool, standing) for pool, by_player in pools.items() for standing in by_player.values()]
    _insert_all(RatingChange, changes)
    _insert_all(Rating, standings)


def _insert_all(model: type, rows: list[dict[str, Any]]) -> None:
    """Many rows at once: COPY on PostgreSQL (a rebuild writes hundreds of thousands: `bench.competition`),
    `bulk_create` elsewhere."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        model.objects.bulk_create([model(**row) for row in rows], batch_size=2000)
        return
    columns = list(rows[0])
    names = [model._meta.get_field(name).column for name in columns]  # the map knows `user_id` as `user`
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f'COPY {model._meta.db_table} ({", ".join(names)}) FROM STDIN') as copy:
            for row in rows:
                copy.write_row([row[name] for name in columns])
