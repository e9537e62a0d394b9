"""Reads of competitive play: seeks, tournaments and their standings, leaderboards, profiles."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

import rules
from accounts import selectors as account_selectors
from accounts.errors import PlayerNotFound
from competition import dutch, rating_fold, ratings, tournament_pairing, trf
from competition.errors import SeekNotFound, TournamentNotFound, TrfNotForTables
from competition.models import Rating, RatingChange, Seek, SeekStatus, Table, Tournament, TournamentKind
from games import selectors as games_selectors
from rules.words import msg

LEADERBOARD_SIZE = 50
HISTORY_POINTS = 500


# --- seeks ------------------------------------------------------------------------------------


def seek_info(seek: Seek) -> dict[str, Any]:
    return {
        "id": seek.pk,
        "username": seek.user.username,
        "rules": seek.rules,
        "players": seek.players,
        "options": seek.options,
        "time_control": seek.time_control,
        "rated": seek.rated,
        "rating": round(seek.rating),
        "rating_range": {"min": seek.rating_min, "max": seek.rating_max},
        "status": seek.status,
        "game": seek.game_id,
        "created_at": seek.created_at,
        "expires_at": seek.expires_at,
    }


def seek_get(*, user: Any, seek_id: int) -> dict[str, Any]:
    seek = Seek.objects.select_related("user").filter(pk=seek_id, user=user).first()
    if seek is None:
        raise SeekNotFound(msg("you have no seek {seek_id}", seek_id=seek_id))
    return seek_info(seek)


def seek_list(*, user: Any, mine: bool) -> list[dict[str, Any]]:
    """Open seeks, oldest first (what a lobby shows); `mine`: the caller's, any status, newest first."""
    if mine:
        seeks = Seek.objects.filter(user=user).order_by("-id")[:100]
    else:
        seeks = Seek.objects.filter(status=SeekStatus.OPEN, expires_at__gt=timezone.now()).order_by("created_at", "id")[:200]
    return [seek_info(seek) for seek in seeks.select_related("user")]


# --- tournaments ------------------------------------------------------------------------------


def tournament_summary(tournament: Tournament) -> dict[str, Any]:
    """`tournament` as `_tournaments()` reads it."""
    return {
        "id": tournament.pk,
        "name": tournament.name,
        "kind": tournament.kind,
        "rules": tournament.rules,
        "players": tournament.players,
        "options": tournament.options,
        "time_control": tournament.time_control,
        "rated": tournament.rated,
        "rounds": tournament.rounds or None,
        "half_point_byes": tournament.half_point_byes if tournament.kind == TournamentKind.SWISS else 0,
        "current_round": tournament.current_round,
        "status": tournament.status,
        "starts_at": tournament.starts_at,
        "finished_at": tournament.finished_at,
        "organiser": tournament.created_by.username,
        "entrants": tournament.entrants_in,
    }


def _tournaments() -> QuerySet:
    """With what a summary shows: the organiser, and the entrants still in counted in the query."""
    return Tournament.objects.select_related("created_by").annotate(
        entrants_in=Count("entrants", filter=Q(entrants__withdrawn=False)))


def tournament_list() -> list[dict[str, Any]]:
    return [tournament_summary(t) for t in _tournaments().order_by("-id")[:100]]


def _tournament(tournament_id: int) -> Tournament:
    tournament = _tournaments().filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentNotFound(msg("there is no tournament {tournament_id}", tournament_id=tournament_id))
    return tournament


def tournament_detail(*, tournament_id: int) -> dict[str, Any]:
    """The tournament, its entrants, every round's tables and the standings so far."""
    tournament = _tournament(tournament_id)
    entrants = {entrant.pk: entrant for entrant in tournament.entrants.select_related("user")}
    tables = list(tournament.tables.all())
    names = {pk: entrant.name for pk, entrant in entrants.items()}
    rounds: dict[int, list[dict[str, Any]]] = {}
    for table in tables:
        rounds.setdefault(table.round, []).append({
            "table": table.number,
            "game": table.game_id,
            "bye": len(table.entrants) == 1,
            "asked_for": table.reason in tournament_pairing.BYES_ASKED_FOR,
            "forfeit": tournament_pairing.table_kind(len(table.entrants), table.reason) == tournament_pairing.FORFEIT,
            "seats": [names.get(entrant, "?") for entrant in table.entrants],
            "points": table.points if table.finished else None,
        })
    return {
        **tournament_summary(tournament),
        "entrant_list": [{"id": e.pk, "name": e.name, "username": e.user.username if e.user_id else None, "is_bot": not e.user_id,
                          "rating": round(e.seed_rating), "withdrawn": e.withdrawn, "byes_asked": e.byes_asked}
                         for e in entrants.values()],
        "round_list": [{"round": number, "tables": tables_of} for number, tables_of in sorted(rounds.items())],
        "standings": standings_of(tournament, entrants, tables),
    }


def tournament_of_game(*, game_id: int) -> dict[str, Any] | None:
    """The tournament round a game is a table of (None for any other game): the tournament's id
    and name, the game's round, the rounds planned (null before the start, if not chosen) and the
    round the tournament is at."""
    table = Table.objects.filter(game_id=game_id).select_related("tournament").first()
    if table is None:
        return None
    tournament = table.tournament
    return {"id": tournament.pk, "name": tournament.name, "round": table.round, "rounds": tournament.rounds or None,
            "current_round": tournament.current_round}


def standings_of(tournament: Tournament, entrants: dict[int, Any], tables: list[Any]) -> list[dict[str, Any]]:
    played = [
        tournament_pairing.Played(
            entrants=tuple(table.entrants), points=tuple(table.points), places=tuple(table.places or ()),
            kind=tournament_pairing.table_kind(len(table.entrants), table.reason),
        )
        for table in tables if table.finished
    ]
    rows = tournament_pairing.standings({pk: e.seed_rating for pk, e in entrants.items()}, played, tournament.kind,
                                        size=tournament.players)
    return [{**row, "name": entrants[row["entrant"]].name, "rating": round(row["rating"]),
             "withdrawn": entrants[row["entrant"]].withdrawn} for row in rows]


# --- ratings ----------------------------------------------------------------------------------


def live_skill(rating: Rating, now: dt.datetime | None = None) -> ratings.Skill:
    """The rating's skill today: its deviation grown with the time since its last game."""
    idle = ((now or timezone.now()) - rating.last_played_at).total_seconds() / 86_400
    return ratings.live(ratings.Skill(rating.system, rating.mu, rating.sigma, rating.volatility), idle)


def rating_info(rating: Rating, now: dt.datetime | None = None) -> dict[str, Any]:
    skill = live_skill(rating, now)
    return {
        "name": rating.name,
        "is_bot": rating.is_bot,
        "rules": rating.rules,
        "time_class": rating.time_class,
        "system": rating.system,
        "rating": round(rating.rating),
        "deviation": round(skill.deviation),
        "provisional": ratings.provisional(skill),
        "conservative": round(ratings.conservative(skill)),
        "games": rating.games,
        "wins": rating.wins,
        "draws": rating.draws,
        "losses": rating.losses,
        "last_played_at": rating.last_played_at,
    }


LEADERBOARD_ACTIVE_DAYS = 30
LEADERBOARD_RULE = {
    ratings.GLICKO2: gettext_noop("ranked by rating minus 2 deviations; only players with a settled rating (deviation 110 "
                                  "or less) who played a rated game in this pool in the last 30 days"),
    ratings.PLACKETT_LUCE: gettext_noop("ranked by the ordinal, (mu - 3 sigma) x 60; only players with a settled rating "
                                        "(sigma 4.5 or less, 270 shown) who played a rated game in this pool in the last 30 days"),
}  # in the reader's language as the leaderboard is read


def leaderboard(*, rules_id: str, time_class: str, system: str | None = None) -> dict[str, Any]:
    """The top players of a pool, people and bots apart, by a conservative rating
    (`ratings.conservative`), only settled players active in the last 30 days (`rule`). Without
    `system`, the two-player pool if it has anyone, else the multiplayer one: pools are never mixed."""
    in_class = Rating.objects.filter(rules=rules_id, time_class=time_class)
    if system is None:
        system = ratings.GLICKO2 if in_class.filter(system=ratings.GLICKO2).exists() else ratings.PLACKETT_LUCE
    now = timezone.now()
    active = in_class.filter(system=system, last_played_at__gte=now - dt.timedelta(days=LEADERBOARD_ACTIVE_DAYS))

    def top(is_bot: bool) -> list[dict[str, Any]]:
        rows = [rating_info(r, now) for r in active.filter(is_bot=is_bot).order_by("player")]
        settled = [row for row in rows if not row["provisional"]]
        return sorted(settled, key=lambda row: -row["conservative"])[:LEADERBOARD_SIZE]

    return {
        "rules": rules_id,
        "time_class": time_class,
        "system": system,
        "rule": gettext(LEADERBOARD_RULE[system]),
        "people": top(False),
        "bots": top(True),
    }


def leaderboard_pools() -> list[dict[str, Any]]:
    pools = Rating.objects.values_list("rules", "time_class", "system").distinct().order_by("rules", "time_class", "system")
    return [{"rules": r, "time_class": c, "system": s} for r, c, s in pools]


def pools_offered() -> list[dict[str, Any]]:
    """Every rating pool a game of the catalogue can be rated in: the game, the time class and
    the system (two players: Glicko-2; three or four: Plackett-Luce); those with rated players
    first, each marked `has_players`."""
    rated = {(p["rules"], p["time_class"], p["system"]) for p in leaderboard_pools()}
    pools = []
    for rules_id, game in rules.catalog().items():
        systems = sorted({ratings.system_for(n) for n in range(max(game.min_players, 2), game.max_players + 1)})
        for time_class in rating_fold.TIME_CLASSES:
            for system in systems:
                pools.append({"rules": rules_id, "title": game.title, "time_class": time_class, "system": system,
                              "has_players": (rules_id, time_class, system) in rated})
    return sorted(pools, key=lambda pool: not pool["has_players"])


def player_profile(*, username: str, viewer: Any = None) -> dict[str, Any]:
    """An account's ratings in every pool with their history, its tally and its current games.
    A private game is in the history only for a `viewer` who may see it (its players)."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise PlayerNotFound(msg("there is no player {username!r}", username=username))
    key = rating_fold.person(user.pk)
    pools = []
    hidden = games_selectors.games_hidden_from(
        user=viewer or AnonymousUser(), game_ids=RatingChange.objects.filter(player=key).values("game_id"))
    for rating in Rating.objects.filter(player=key).order_by("rules", "time_class", "system"):
        history = (RatingChange.objects.filter(player=key, rules=rating.rules, time_class=rating.time_class,
                                               system=rating.system).exclude(game_id__in=hidden)
                   .order_by("-finished_at", "-game_id")
                   .values("game_id", "finished_at", "rating_after", "deviation_after", "outcome")[:HISTORY_POINTS])
        pools.append({**rating_info(rating), "history": [
            {"game": h["game_id"], "at": h["finished_at"], "rating": round(h["rating_after"]),
             "deviation": round(h["deviation_after"]), "outcome": h["outcome"]} for h in reversed(history)]})
    totals = {name: sum(p[name] for p in pools) for name in ("games", "wins", "draws", "losses")}
    return {
        "username": user.username,
        "is_bot": account_selectors.is_bot_account(user=user),
        **totals,
        "ratings": pools,
        "current_games": games_selectors.games_current(user=user),
    }


# --- tournament histories and their TRF ---------------------------------------------------


def tournament_records(tournament: Tournament, entrants: dict[int, Any],
             everyone: dict[int, Any] | None = None) -> dict[int, tournament_pairing.Record]:
    """Each entrant's record so far, with its round-by-round history. `everyone` adds the
    withdrawn as records not present (the pairing reads their scores for their past opponents'
    floats); without it only `entrants` are returned."""
    known = everyone or entrants
    records = {pk: tournament_pairing.Record(entrant=pk, rating=entrant.seed_rating, history=[],
                                             present=pk in entrants) for pk, entrant in known.items()}
    for table in tournament.tables.all().order_by("round", "number"):
        for seat, entrant in enumerate(table.entrants):
            record = records.get(entrant)
            if record is None:
                continue
            points = (table.points or [0] * len(table.entrants))[seat]
            record.points += points
            kind = tournament_pairing.table_kind(len(table.entrants), table.reason)
            missed_rounds(record, table.round - 1)
            others = [other for other in table.entrants if other != entrant]
            # a forfeit keeps its colours for the TRF (the pairing reads no seat of a round not played)
            coloured = kind == tournament_pairing.GAME or table.reason == tournament_pairing.FORFEITED
            record.history.append(dutch.Round(opponent=others[0] if len(others) == 1 else None,
                                              seat=seat if coloured else None,
                                              points=points, played=kind == tournament_pairing.GAME,
                                              paired=table.reason not in tournament_pairing.BYES_ASKED_FOR,
                                              rated=table.reason != tournament_pairing.NOT_RATED))
            if kind == tournament_pairing.BYE and table.reason not in tournament_pairing.BYES_ASKED_FOR:
                record.byes += 1  # the pairing's own byes (a bye asked for is no turn at sitting out)
            if kind != tournament_pairing.GAME:
                continue  # a game not played out, or forfeited, is no meeting: the two may be paired again
            record.opponents.update(others)
            record.firsts += seat == 0
            record.seats.append(seat)
    return records


def missed_rounds(record: tournament_pairing.Record, before: int) -> None:
    """Rounds the entrant was in no table of (not yet entered, or withdrawn): absences."""
    while len(record.history) < before:
        record.history.append(dutch.Round(None, None, 0.0, played=False, paired=False))


def _forfeits_named(records: dict[int, tournament_pairing.Record], last: int) -> None:
    """A round robin forfeit's table holds only the entrant present, which a TRF would write as
    a pairing bye (`U`) and the withdrawn opponent as absent (`Z`). The schedule, the Berger
    tables over everyone who started as `tournament_service` made them, names the opponent: the
    two become `+` and `-` against each other, as an arbiter records a withdrawal's games."""
    for number in range(1, last + 1):
        for seated in tournament_pairing.round_robin(sorted(records), number):
            if len(seated) != 2:
                continue
            for winner_id, loser_id in (seated, seated[::-1]):
                winner, loser = records[winner_id].history[number - 1], records[loser_id].history[number - 1]
                if not winner.played and winner.paired and winner.opponent is None and not loser.paired:
                    winner.opponent, loser.opponent, loser.paired = loser_id, winner_id, True


def _last_complete_round(tournament: Tournament) -> int:
    """The last round whose every table has finished (a round under way is not in a TRF)."""
    unfinished = tournament.tables.filter(finished=False).values_list("round", flat=True)
    if unfinished:
        return min(unfinished) - 1
    return max(tournament.tables.values_list("round", flat=True), default=0)


def pairing_numbers(entrants: dict[int, Any]) -> dict[int, int]:
    """Entrant id -> pairing number: by the rating entered with, highest first, then entry order
    (the Swiss pairing numbers the same way, `tournament_pairing.swiss`)."""
    ordered = sorted(entrants.values(), key=lambda e: (-e.seed_rating, e.pk))
    return {entrant.pk: number for number, entrant in enumerate(ordered, start=1)}


def tournament_trf(*, tournament_id: int) -> str:
    """The tournament as a FIDE Tournament Report File (TRF16, `competition.trf`), to check our
    pairings with an arbiter's own tools: every entrant by pairing number, every round played."""
    tournament = _tournament(tournament_id)
    if tournament.players != 2:
        raise TrfNotForTables(msg("a TRF holds two-player games only: this tournament seats tables of {players}", players=tournament.players))
    everyone = {entrant.pk: entrant for entrant in tournament.entrants.all()}
    numbers = pairing_numbers(everyone)
    records = tournament_records(tournament, {pk: e for pk, e in everyone.items() if not e.withdrawn}, everyone)
    last = _last_complete_round(tournament)
    for record in records.values():
        missed_rounds(record, last)
    if tournament.kind == TournamentKind.ROUND_ROBIN:
        _forfeits_named(records, last)
    players = []
    for pk, entrant in everyone.items():
        games = [trf.game_for(dutch.Round(numbers.get(r.opponent) if r.opponent else None, r.seat, r.points,
                                          r.played, r.paired, r.rated)) for r in records[pk].history[:last]]
        players.append(trf.Player(number=numbers[pk], name=entrant.name, rating=round(entrant.seed_rating),
                                  games=games))
    rounds = tournament.rounds or max(last, 1)
    return trf.dumps(trf.Report(name=tournament.name, rounds=rounds, players=players))
