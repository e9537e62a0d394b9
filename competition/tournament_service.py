"""Tournaments: registration, the start at a time, rounds begun by the workers when the previous
round's games have all ended, and standings (`competition.tournament_pairing` has the rules of
pairing and of the tie-breaks).

Each table's game is an ordinary game, made with every seat named (`game_create_seated`) under
the tournament's time control, so deadlines, vacation and timeouts apply as in any game; a
correspondence tournament runs for weeks. A round moves on when its last game's finish reaches
a worker (`table_finished`), or at the beat sweep if that message was lost; the tournament's row
lock keeps two workers from starting the same round twice.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

import bots
import rules
from competition import dutch, pairing, rating_fold, ratings, tournament_pairing
from competition.errors import AlreadyEntered, NotTheOrganiser, TournamentClosed, TournamentNotFound
from competition.models import Entrant, Table, Tournament, TournamentKind, TournamentStatus
from games import selectors as games_selectors
from games import services as games_services
from games import time_controls
from games.errors import InvalidInput

MAX_ENTRANTS = 128


def tournament_create(*, user: Any, name: str, kind: str, rules_id: str, players: int, options: dict | None,
                      time_control: Any, rated: bool, starts_at: dt.datetime, rounds: int | None = None) -> Tournament:
    game_rules = rules.get(rules_id)
    chosen = game_rules.normalize_options(players, options)
    control = time_controls.normalize_time_control(time_control)
    if not control:
        raise InvalidInput("a tournament needs a time control", fields={"time_control": ["required"]})
    if kind == TournamentKind.ROUND_ROBIN and players != 2:
        raise InvalidInput("a round robin is for two-player games; tables of three or four play Swiss rounds",
                           fields={"kind": ["round_robin needs players 2"]})
    if rounds is not None and not 1 <= rounds <= 30:
        raise InvalidInput("rounds is from 1 to 30", fields={"rounds": ["1 to 30"]})
    return Tournament.objects.create(
        name=name, kind=kind, rules=rules_id, players=players, options=chosen, time_control=control, rated=rated,
        rounds=rounds or 0, starts_at=starts_at, created_by=user,
    )


def _registering(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentNotFound(f"there is no tournament {tournament_id}")
    if tournament.status != TournamentStatus.REGISTERING:
        raise TournamentClosed(f"tournament {tournament_id} is {tournament.status}: entries are closed")
    if tournament.entrants.filter(withdrawn=False).count() >= MAX_ENTRANTS:
        raise TournamentClosed(f"tournament {tournament_id} is full ({MAX_ENTRANTS} entrants)")
    return tournament


@transaction.atomic
def tournament_join(*, user: Any, tournament_id: int) -> Entrant:
    tournament = _registering(tournament_id)
    if tournament.entrants.filter(user=user).exists():
        raise AlreadyEntered(f"you are already entered in tournament {tournament_id}")
    wanted = {"rules": tournament.rules, "players": tournament.players, "time_control": tournament.time_control}
    return Entrant.objects.create(tournament=tournament, user=user, name=user.username,
                                  seed_rating=pairing.rating_in_pool(user=user, **wanted))


@transaction.atomic
def tournament_leave(*, user: Any, tournament_id: int) -> None:
    """Before the start the entry is gone; once running, the entrant plays no further round (a
    game already begun is played out, or resigned, like any game) and keeps its points."""
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentNotFound(f"there is no tournament {tournament_id}")
    if tournament.status == TournamentStatus.REGISTERING:
        left = tournament.entrants.filter(user=user).delete()[0]
    elif tournament.status == TournamentStatus.RUNNING:
        left = tournament.entrants.filter(user=user, withdrawn=False).update(withdrawn=True)
    else:
        raise TournamentClosed(f"tournament {tournament_id} is {tournament.status}")
    if not left:
        raise TournamentNotFound(f"you are not entered in tournament {tournament_id}")


@transaction.atomic
def tournament_bot_add(*, user: Any, tournament_id: int, bot: str, level: int | None = None) -> Entrant:
    """The organiser enters one of the server's bots (several of the same bot may play)."""
    tournament = _registering(tournament_id)
    if tournament.created_by_id != user.pk:
        raise NotTheOrganiser("only the tournament's organiser enters the server's bots")
    spec = bots.get(bot)
    chosen = spec.default_level if level is None else level
    spec.check_level(chosen)
    number = tournament.entrants.filter(bot=spec.name).count() + 1
    seed = pairing.rating_in_pool(player=rating_fold.bot_key(spec.name, chosen), rules=tournament.rules,
                                  players=tournament.players, time_control=tournament.time_control)
    return Entrant.objects.create(tournament=tournament, bot=spec.name, bot_level=chosen, seed_rating=seed,
                                  name=f"{spec.name} #{number} (level {chosen})")


# --- the workers' side ------------------------------------------------------------------------


def tournaments_tick() -> int:
    """Start the tournaments due, and move on those whose round has ended (the sweep)."""
    due = Tournament.objects.filter(Q(status=TournamentStatus.REGISTERING, starts_at__lte=timezone.now())
                                    | Q(status=TournamentStatus.RUNNING))
    return sum(tournament_advance(tournament_id=pk) for pk in list(due.values_list("pk", flat=True)))


def table_finished(*, game_id: int) -> None:
    tournament_id = Table.objects.filter(game_id=game_id).values_list("tournament_id", flat=True).first()
    if tournament_id is not None:
        tournament_advance(tournament_id=tournament_id)


@transaction.atomic
def tournament_advance(*, tournament_id: int) -> int:
    """Whatever is due: the start, the results of ended games, the next round, the end.
    Returns 1 if anything changed."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
    if tournament.status == TournamentStatus.REGISTERING:
        return _start(tournament) if tournament.starts_at <= timezone.now() else 0
    if tournament.status != TournamentStatus.RUNNING:
        return 0
    changed = _results_in(tournament)
    if tournament.tables.filter(round=tournament.current_round, finished=False).exists():
        return changed
    still_in = tournament.entrants.filter(withdrawn=False).count()
    if tournament.current_round >= tournament.rounds or still_in < max(2, tournament.players):
        tournament.status, tournament.finished_at = TournamentStatus.FINISHED, timezone.now()
        tournament.save(update_fields=["status", "finished_at"])
        return 1
    _round_start(tournament, tournament.current_round + 1)
    return 1


def _start(tournament: Tournament) -> int:
    entrants = list(tournament.entrants.filter(withdrawn=False))
    if len(entrants) < max(2, tournament.players):
        tournament.status = TournamentStatus.CANCELLED
        tournament.save(update_fields=["status"])
        return 1
    if tournament.kind == TournamentKind.ROUND_ROBIN:
        tournament.rounds = tournament_pairing.round_robin_rounds(len(entrants))
    elif not tournament.rounds:
        tournament.rounds = tournament_pairing.swiss_rounds(len(entrants)) if tournament.players == 2 else 3
    tournament.status = TournamentStatus.RUNNING
    tournament.save(update_fields=["rounds", "status"])
    _round_start(tournament, 1)
    return 1


def _results_in(tournament: Tournament) -> int:
    """Points for the current round's games that have ended."""
    waiting = {table.game_id: table for table in
               tournament.tables.filter(round=tournament.current_round, finished=False, game_id__isnull=False)}
    if not waiting:
        return 0
    for game in games_selectors.finished_games(game_ids=list(waiting), rated_only=False):
        table = waiting[game["id"]]
        result = game["result"] or {}
        if len(result.get("scores") or []) != len(table.entrants):
            result = {"scores": [0] * len(table.entrants), "winners": [], "reason": result.get("reason") or "aborted"}
        table.places = ratings.places(result)
        table.points = tournament_pairing.game_points(table.places, result.get("reason", ""))
        table.scores, table.reason = result.get("scores"), result.get("reason", "")[:40]
        table.finished = True
        table.save(update_fields=["points", "scores", "places", "reason", "finished"])
    return 1


def _round_start(tournament: Tournament, number: int) -> None:
    everyone = {entrant.pk: entrant for entrant in tournament.entrants.select_related("user")}
    entrants = {pk: entrant for pk, entrant in everyone.items() if not entrant.withdrawn}
    records = _records(tournament, entrants, everyone)
    if tournament.kind == TournamentKind.ROUND_ROBIN:
        # The schedule made at the start stands (Berger tables over everyone who started: nobody
        # is deleted once the tournament runs); a withdrawn entrant's game is a forfeit.
        seating = tournament_pairing.round_robin_round(sorted(everyone), number,
                                                       withdrawn={pk for pk in everyone if pk not in entrants})
    elif tournament.players == 2:
        seating = tournament_pairing.kinds_of(tournament_pairing.swiss(list(records.values()), tournament.rounds))
    else:
        present = [record for record in records.values() if record.present]
        seating = tournament_pairing.kinds_of(tournament_pairing.tables_by_score(present, tournament.players))
    for index, (seated, reason) in enumerate(seating, start=1):
        table = Table(tournament=tournament, round=number, number=index, entrants=list(seated), reason=reason)
        if len(seated) == 1:
            table.points, table.finished = [tournament_pairing.points_without_game(reason, tournament.players)], True
        else:
            table.game_id = _game_for(tournament, [entrants[entrant] for entrant in seated]).pk
        table.save()
    tournament.current_round = number
    tournament.save(update_fields=["current_round"])


def _game_for(tournament: Tournament, seated: list[Entrant]) -> Any:
    seats = [{"user": entrant.user} if entrant.user_id else {"bot": entrant.bot, "level": entrant.bot_level}
             for entrant in seated]
    return games_services.game_create_seated(
        creator=tournament.created_by, rules_id=tournament.rules, players=tournament.players,
        options=tournament.options, time_control=tournament.time_control, rated=tournament.rated, seats=seats,
    )


def _records(tournament: Tournament, entrants: dict[int, Entrant],
             everyone: dict[int, Entrant] | None = None) -> dict[int, tournament_pairing.Record]:
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
            _missed_rounds(record, table.round - 1)
            others = [other for other in table.entrants if other != entrant]
            record.history.append(dutch.Round(opponent=others[0] if len(others) == 1 else None,
                                              seat=seat if kind == tournament_pairing.GAME else None,
                                              points=points, played=kind == tournament_pairing.GAME))
            if kind == tournament_pairing.BYE:
                record.byes += 1
            if kind != tournament_pairing.GAME:
                continue  # a game not played out is no meeting: the two may be paired again
            record.opponents.update(others)
            record.firsts += seat == 0
            record.seats.append(seat)
    return records


def _missed_rounds(record: tournament_pairing.Record, before: int) -> None:
    """Rounds the entrant was in no table of (not yet entered, or withdrawn): absences."""
    while len(record.history) < before:
        record.history.append(dutch.Round(None, None, 0.0, played=False, paired=False))
