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

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

import bots
import rules
from apikit.errors import InvalidInput
from apikit.text import one_line
from competition import pairing, rating_fold, ratings, selectors, tournament_pairing, trf
from competition.errors import (
    AlreadyEntered,
    ByeNotAsked,
    ByesSwissOnly,
    EntrantNotFound,
    NotEntered,
    NotTheOrganiser,
    RoundAlreadyPaired,
    TooManyByes,
    TournamentClosed,
    TournamentNotFound,
)
from competition.models import Entrant, Table, Tournament, TournamentKind, TournamentStatus
from games import selectors as games_selectors
from games import services as games_services
from games import time_controls
from rules.errors import InvalidOptions
from rules.options import FIRST_PLAYER, SEAT_0
from rules.words import msg

MAX_ENTRANTS = 128
MAX_ROUNDS = 30
MAX_HALF_POINT_BYES = 10
# How far ahead a start may be set: a club's season, not a date typed a millennium wrong.
LATEST_START = dt.timedelta(days=366)


# A tournament's state as a sentence names it ("tournament 3 is running"): words of the reader's
# language, not the database's own word written into a translated sentence.
_STATES = {"registering": msg("registering"), "running": msg("running"), "finished": msg("finished"),
           "cancelled": msg("cancelled")}


def tournament_state_said(status: str) -> Any:
    return _STATES.get(status, status)


def tournament_create(*, user: Any, name: str, kind: str, rules_id: str, players: int, options: dict | None,
                      time_control: Any, rated: bool, starts_at: dt.datetime, rounds: int | None = None,
                      half_point_byes: int = 1) -> Tournament:
    _check_start(starts_at)
    return _new_tournament(user=user, name=name, kind=kind, rules_id=rules_id, players=players, options=options,
                           time_control=time_control, rated=rated, starts_at=starts_at, rounds=rounds,
                           half_point_byes=half_point_byes)


def _check_start(starts_at: dt.datetime) -> None:
    """A start still to come: entries close at it, so a start already past would close them before
    anyone could enter, and the sweep would cancel the tournament for want of entrants."""
    now = timezone.now()
    if starts_at <= now:
        raise InvalidInput(msg("starts_at has passed: entries close at the start, so it must be still to come"),
                           fields={"starts_at": ["still to come"]})
    if starts_at > now + LATEST_START:
        raise InvalidInput(msg("starts_at is at most a year ahead"), fields={"starts_at": ["within a year"]})


def _new_tournament(*, user: Any, name: str, kind: str, rules_id: str, players: int, options: dict | None,
                    time_control: Any, rated: bool, starts_at: dt.datetime, rounds: int | None,
                    half_point_byes: int) -> Tournament:
    name = one_line(name)
    if not name:
        raise InvalidInput(msg("a tournament's name has 1 to 100 characters"), fields={"name": ["1 to 100 characters"]})
    chosen = _table_options(rules.get(rules_id), players, options)
    control = time_controls.normalize_time_control(time_control)
    if not control:
        raise InvalidInput(msg("a tournament needs a time control"), fields={"time_control": ["required"]})
    if kind == TournamentKind.ROUND_ROBIN and players != 2:
        raise InvalidInput(msg("a round robin is for two-player games; tables of three or four play Swiss rounds"),
                           fields={"kind": ["round_robin needs players 2"]})
    if rounds is not None and not 1 <= rounds <= MAX_ROUNDS:
        raise InvalidInput(msg("rounds is from 1 to 30"), fields={"rounds": ["1 to 30"]})
    if not 0 <= half_point_byes <= MAX_HALF_POINT_BYES:
        raise InvalidInput(msg("half_point_byes is from 0 to {most}", most=MAX_HALF_POINT_BYES),
                           fields={"half_point_byes": [f"0 to {MAX_HALF_POINT_BYES}"]})
    return Tournament.objects.create(
        name=name, kind=kind, rules=rules_id, players=players, options=chosen, time_control=control, rated=rated,
        rounds=rounds or 0, half_point_byes=half_point_byes, starts_at=starts_at, created_by=user,
    )


def _table_options(game_rules: Any, players: int, options: dict | None) -> dict:
    """Every table's game options. At tables of two the pairing gives out the seats as a chess
    pairing gives out colours, balancing them round by round, so a game whose book draws who
    starts (it has the `first_player` option) lets seat 0 start instead: with the draw, the
    balancing would decide nothing. An explicit wish for the draw there is refused."""
    chosen = game_rules.normalize_options(players, options)
    if players != 2 or FIRST_PLAYER not in chosen:
        return chosen
    if (options or {}).get(FIRST_PLAYER, SEAT_0) != SEAT_0:
        raise InvalidOptions(FIRST_PLAYER, msg("in a two-player tournament the pairing decides who starts: {seat_0!r}",
                                               seat_0=SEAT_0))
    return {**chosen, FIRST_PLAYER: SEAT_0}


def _open_for_entries(tournament_id: int) -> Tournament:
    """The tournament, locked, if it takes entries: before its start, and a Swiss until its last
    round is paired (a late entrant is paired from the next round on, as clubs let a member join
    a running Swiss; the rounds it missed are absences, no points). A round robin's schedule is
    fixed at its start."""
    tournament = _locked(tournament_id)
    if not (tournament.status == TournamentStatus.REGISTERING or _late_entries_open(tournament)):
        raise TournamentClosed(msg("tournament {tournament_id} is {status}: entries are closed", tournament_id=tournament_id, status=tournament_state_said(tournament.status)))
    if tournament.entrants.filter(withdrawn=False).count() >= MAX_ENTRANTS:
        raise TournamentClosed(msg("tournament {tournament_id} is full ({max_entrants} entrants)", tournament_id=tournament_id, max_entrants=MAX_ENTRANTS))
    return tournament


def _late_entries_open(tournament: Tournament) -> bool:
    return (tournament.status == TournamentStatus.RUNNING and tournament.kind == TournamentKind.SWISS
            and tournament.current_round < tournament.rounds)


@transaction.atomic
def tournament_join(*, user: Any, tournament_id: int) -> Entrant:
    """An entry before the start, or a late one into a running Swiss (`_open_for_entries`)."""
    tournament = _open_for_entries(tournament_id)
    if tournament.entrants.filter(user=user).exists():
        raise AlreadyEntered(msg("you are already entered in tournament {tournament_id}", tournament_id=tournament_id))
    wanted = {"rules": tournament.rules, "players": tournament.players, "time_control": tournament.time_control}
    return Entrant.objects.create(tournament=tournament, user=user, name=user.username,
                                  seed_rating=pairing.rating_in_pool(user=user, **wanted))


@transaction.atomic
def tournament_leave(*, user: Any, tournament_id: int) -> None:
    """Before the start the entry is gone; once running, the entrant plays no further round (a
    game already begun is played out, or resigned, like any game) and keeps its points."""
    tournament = _locked(tournament_id)
    if not _withdrawn(tournament, tournament.entrants.filter(user=user)):
        raise TournamentNotFound(msg("you are not entered in tournament {tournament_id}", tournament_id=tournament_id))


@transaction.atomic
def tournament_entrant_remove(*, user: Any, tournament_id: int, entrant_id: int) -> None:
    """The organiser takes an entrant out (a bot entered at the wrong level, a member who said
    they will not play on), as the entrant's own withdrawal would."""
    tournament = _locked(tournament_id)
    if tournament.created_by_id != user.pk:
        raise NotTheOrganiser(msg("only the tournament's organiser takes an entrant out"))
    if not _withdrawn(tournament, tournament.entrants.filter(pk=entrant_id)):
        raise EntrantNotFound(msg("tournament {tournament_id} has no entrant {entrant_id} still in",
                                  tournament_id=tournament_id, entrant_id=entrant_id))


def _locked(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentNotFound(msg("there is no tournament {tournament_id}", tournament_id=tournament_id))
    return tournament


def _withdrawn(tournament: Tournament, entries: Any) -> int:
    """Withdraw `entries` (a query of the tournament's entrants): deleted before the start, marked
    withdrawn while it runs. How many were still in."""
    if tournament.status == TournamentStatus.REGISTERING:
        return entries.delete()[0]
    if tournament.status == TournamentStatus.RUNNING:
        return entries.filter(withdrawn=False).update(withdrawn=True)
    raise TournamentClosed(msg("tournament {tournament_id} is {status}", tournament_id=tournament.pk,
                               status=tournament_state_said(tournament.status)))


@transaction.atomic
def tournament_bye_ask(*, user: Any, tournament_id: int, round_number: int) -> None:
    """The entrant sits out round `round_number` of a Swiss for half a point, as clubs let a player
    who cannot come that evening: asked for before the round is paired, at most the tournament's
    `half_point_byes` times. Such a bye is the entrant's own, not the pairing's: it does not use up
    the entrant's right to the pairing's bye later. Asking again for the same round changes nothing."""
    tournament, entrant = _entrant_asking(user, tournament_id, round_number)
    if round_number in entrant.byes_asked:
        return
    if tournament.rounds and round_number > tournament.rounds:
        raise InvalidInput(msg("tournament {tournament_id} has {rounds} rounds", tournament_id=tournament_id,
                               rounds=tournament.rounds), fields={"round": [f"1 to {tournament.rounds}"]})
    if len(entrant.byes_asked) >= tournament.half_point_byes:
        raise TooManyByes(msg("you have no half-point bye left in tournament {tournament_id} (its limit for each "
                              "entrant: {allowed})", tournament_id=tournament_id, allowed=tournament.half_point_byes))
    entrant.byes_asked = sorted([*entrant.byes_asked, round_number])
    entrant.save(update_fields=["byes_asked"])


@transaction.atomic
def tournament_bye_take_back(*, user: Any, tournament_id: int, round_number: int) -> None:
    """The entrant will play round `round_number` after all (until that round is paired)."""
    _, entrant = _entrant_asking(user, tournament_id, round_number)
    if round_number not in entrant.byes_asked:
        raise ByeNotAsked(msg("you asked for no bye in round {round} of tournament {tournament_id}",
                              round=round_number, tournament_id=tournament_id))
    entrant.byes_asked = [asked for asked in entrant.byes_asked if asked != round_number]
    entrant.save(update_fields=["byes_asked"])


def _entrant_asking(user: Any, tournament_id: int, round_number: int) -> tuple[Tournament, Entrant]:
    """The Swiss and the caller's entry in it, locked as a round's pairing locks them (so a bye is
    asked for either before the round is paired, and counts, or after, and is refused)."""
    tournament = _locked(tournament_id)
    if tournament.kind != TournamentKind.SWISS:
        raise ByesSwissOnly(msg("a round robin's rounds are fixed at its start: byes are asked for in a Swiss"))
    if tournament.status not in (TournamentStatus.REGISTERING, TournamentStatus.RUNNING):
        raise TournamentClosed(msg("tournament {tournament_id} is {status}", tournament_id=tournament_id,
                                   status=tournament_state_said(tournament.status)))
    entrant = tournament.entrants.filter(user=user, withdrawn=False).first()
    if entrant is None:
        raise NotEntered(msg("you are not entered in tournament {tournament_id}", tournament_id=tournament_id))
    if round_number <= tournament.current_round:
        raise RoundAlreadyPaired(msg("round {round} of tournament {tournament_id} is already paired",
                                     round=round_number, tournament_id=tournament_id))
    return tournament, entrant


@transaction.atomic
def tournament_bot_add(*, user: Any, tournament_id: int, bot: str, level: int | None = None) -> Entrant:
    """The organiser enters one of the server's bots (several of the same bot may play)."""
    tournament = _open_for_entries(tournament_id)
    if tournament.created_by_id != user.pk:
        raise NotTheOrganiser(msg("only the tournament's organiser enters the server's bots"))
    spec = bots.get(bot)
    chosen = spec.default_level if level is None else level
    spec.check_level(chosen)
    number = tournament.entrants.filter(bot=spec.name).count() + 1
    seed = pairing.rating_in_pool(player=rating_fold.bot_key(spec.name, chosen), rules=tournament.rules,
                                  players=tournament.players, time_control=tournament.time_control)
    return Entrant.objects.create(tournament=tournament, bot=spec.name, bot_level=chosen, seed_rating=seed,
                                  name=f"{spec.name} #{number} (level {chosen})")


def tournament_start(*, user: Any, tournament_id: int) -> None:
    """The organiser starts the tournament now rather than at its time: entries close and round 1
    is paired. With too few entrants it is refused and nothing changes: started, it would be
    cancelled for good, where waiting for its time lets people still enter (the start at the
    set time does cancel it)."""
    with transaction.atomic():
        tournament = _registering_for_start(tournament_id)
        if tournament.created_by_id != user.pk:
            raise NotTheOrganiser(msg("only the tournament's organiser starts it early"))
        needed, entered = max(2, tournament.players), tournament.entrants.filter(withdrawn=False).count()
        if entered < needed:
            raise InvalidInput(msg("{entered} entered: a tournament starts with {needed} entrants at least",
                                   entered=entered, needed=needed), fields={"entrants": [f"at least {needed}"]})
        tournament.starts_at = timezone.now()
        tournament.save(update_fields=["starts_at"])
    tournament_advance(tournament_id=tournament_id)


def _registering_for_start(tournament_id: int) -> Tournament:
    tournament = _locked(tournament_id)
    if tournament.status != TournamentStatus.REGISTERING:
        raise TournamentClosed(msg("tournament {tournament_id} is {status}: it has started", tournament_id=tournament_id, status=tournament_state_said(tournament.status)))
    return tournament


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
    _byes_past_the_last_round_dropped(tournament, entrants)
    _round_start(tournament, 1)
    return 1


def _byes_past_the_last_round_dropped(tournament: Tournament, entrants: list[Entrant]) -> None:
    """Byes asked for rounds the start did not plan (a Swiss whose rounds follow its field's size
    has no last round before it starts): never played, they would count against the entrant's
    allowance for good, so they are given back."""
    for entrant in entrants:
        kept = [asked for asked in entrant.byes_asked if asked <= tournament.rounds]
        if kept != entrant.byes_asked:
            entrant.byes_asked = kept
            entrant.save(update_fields=["byes_asked"])


def _results_in(tournament: Tournament) -> int:
    """Points for the current round's games that have ended."""
    waiting = {table.game_id: table for table in
               tournament.tables.filter(round=tournament.current_round, finished=False, game_id__isnull=False)}
    if not waiting:
        return 0
    finished = games_selectors.finished_games(game_ids=list(waiting), rated_only=False)
    for game in finished:
        table = waiting[game["id"]]
        result = game["result"] or {}
        if len(result.get("scores") or []) != len(table.entrants):
            result = {"scores": [0] * len(table.entrants), "winners": [], "reason": result.get("reason") or "aborted"}
        table.places = ratings.places(result)
        table.points = tournament_pairing.game_points(table.places, result.get("reason", ""))
        table.scores, table.reason = result.get("scores"), result.get("reason", "")[:40]
        if _lost_by_no_show(table, set(game["absent"])):
            table.reason = tournament_pairing.FORFEITED  # no game: the two may meet again, no colour counts
        table.finished = True
        table.save(update_fields=["points", "scores", "places", "reason", "finished"])
    return 1


def _lost_by_no_show(table: Table, absent: set[int]) -> bool:
    """Whether a two-seat table was lost by a seat whose player never came (only timeouts in the
    log): arbiters score it as a forfeit (`+` against `-`), as if the game had not been played."""
    if len(table.entrants) != 2 or not table.points or sorted(table.points) != [0, 1]:
        return False
    return table.points.index(0) in absent


def _round_start(tournament: Tournament, number: int, sitting_out: set[int] = frozenset()) -> None:
    """Round `number`'s tables and games. `sitting_out`: entrants not paired in it though not
    withdrawn (an imported file's byes asked for and absences)."""
    everyone = {entrant.pk: entrant for entrant in tournament.entrants.select_related("user")}
    asked = _byes_asked_for(tournament, everyone, number)
    entrants = {pk: entrant for pk, entrant in everyone.items()
                if not entrant.withdrawn and pk not in sitting_out and pk not in asked}
    records = selectors.tournament_records(tournament, entrants, everyone)
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
    for index, entrant in enumerate(asked, start=len(seating) + 1):
        Table.objects.create(tournament=tournament, round=number, number=index, entrants=[entrant],
                             points=[tournament_pairing.HALF_POINT_BYE_POINTS], places=[1],
                             reason=tournament_pairing.HALF_POINT_BYE, finished=True)
    tournament.current_round = number
    tournament.save(update_fields=["current_round"])


def _byes_asked_for(tournament: Tournament, everyone: dict[int, Entrant], number: int) -> list[int]:
    """The entrants still in who asked to sit out round `number` (a Swiss), by pairing number."""
    if tournament.kind != TournamentKind.SWISS:
        return []
    asking = [entrant for entrant in everyone.values() if not entrant.withdrawn and number in entrant.byes_asked]
    return [entrant.pk for entrant in sorted(asking, key=lambda entrant: (-entrant.seed_rating, entrant.pk))]


def _game_for(tournament: Tournament, seated: list[Entrant]) -> Any:
    seats = [{"user": entrant.user} if entrant.user_id else {"bot": entrant.bot, "level": entrant.bot_level}
             for entrant in seated]
    return games_services.game_create_seated(
        creator=tournament.created_by, rules_id=tournament.rules, players=tournament.players,
        options=tournament.options, time_control=tournament.time_control, rated=tournament.rated, seats=seats,
    )


# --- a Swiss seeded from a TRF file -----------------------------------------------------------


@transaction.atomic
def tournament_import_trf(*, user: Any, text: str, rules_id: str, time_control: Any, rated: bool = False,
                          options: dict | None = None) -> Tournament:
    """A two-player Swiss continued from a TRF16 file (`competition.trf`): each player line names
    an account (its username), the rounds in the file become finished tables, and the next round
    is paired by our Dutch pairing at once. Starting ranks must follow the ratings (our pairing
    numbers do). A block for that next round (`H`, `Z`: a bye asked for, an absence) keeps its
    player out of the pairing, as bbpPairings reads it. A forfeit becomes a table of two without
    a game, so the tournament's TRF gives back the file's rounds (`selectors.tournament_trf`)."""
    try:
        report = trf.loads(text)
    except trf.TrfError as error:
        raise InvalidInput(msg("not a TRF16 file: {error}", error=error), fields={"trf": [str(error)]}) from None
    players = sorted(report.players, key=lambda p: p.number)
    accounts = _import_accounts(players)
    played = max(trf.paired_rounds(p) for p in players)
    if report.rounds_stated and played >= report.rounds:  # one more would be a round the event does not have
        raise InvalidInput(msg("the file's {rounds} rounds are all played (its XXR line): no round is left to pair",
                               rounds=report.rounds), fields={"trf": ["XXR"]})
    tournament = _new_tournament(user=user, name=report.name or "Imported Swiss", kind=TournamentKind.SWISS,
                                 rules_id=rules_id, players=2, options=options, time_control=time_control,
                                 rated=rated, starts_at=timezone.now(), rounds=max(report.rounds, played + 1),
                                 half_point_byes=1)
    entrants = {p.number: Entrant.objects.create(tournament=tournament, user=accounts[p.name], name=p.name,
                                                 seed_rating=p.rating or 1500) for p in players}
    for number in range(1, played + 1):
        _imported_round(tournament, number, players, entrants)
    tournament.status, tournament.current_round = TournamentStatus.RUNNING, played
    tournament.save(update_fields=["status", "current_round"])
    asked = {entrants[p.number].pk: p.games[played] for p in players if len(p.games) > played}
    _round_start(tournament, played + 1, sitting_out=set(asked))
    _imported_byes(tournament, played + 1, asked)
    tournament.refresh_from_db()
    return tournament


def _import_accounts(players: list[trf.Player]) -> dict[str, Any]:
    """The accounts the player lines name, refused with the file's fault unless every line names
    a different existing account, within our field's size, ranked by rating."""
    if not 2 <= len(players) <= MAX_ENTRANTS:
        raise InvalidInput(msg("a TRF file to continue needs 2 to {max_entrants} players", max_entrants=MAX_ENTRANTS),
                           fields={"trf": ["players"]})
    if any(a.rating < b.rating for a, b in zip(players, players[1:])):
        raise InvalidInput(msg("starting ranks must follow the ratings, highest first"), fields={"trf": ["ranks"]})
    names = [p.name for p in players]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:  # one account is one entrant
        raise InvalidInput(msg("the file names {twice} more than once", twice=", ".join(twice[:10])),
                           fields={"trf": ["duplicate players"]})
    accounts = {u.username: u for u in get_user_model().objects.filter(username__in=names)}
    missing = [name for name in names if name not in accounts]
    if missing:
        raise InvalidInput(msg("no account named {missing}", missing=', '.join(missing[:10])), fields={"trf": ["unknown players"]})
    return accounts


def _imported_byes(tournament: Tournament, number: int, asked: dict[int, trf.Game]) -> None:
    """The byes the file already gives in the round just paired (an `H` or `F` block), after its
    boards; a `Z` is an absence, no table."""
    first = tournament.tables.filter(round=number).count() + 1
    byes = [(entrant, game) for entrant, game in asked.items() if game.points > 0]
    for index, (entrant, game) in enumerate(byes, start=first):
        Table.objects.create(tournament=tournament, round=number, number=index, entrants=[entrant],
                             points=[game.points], places=[1], reason=_lone_reason(game), finished=True)


def _imported_round(tournament: Tournament, number: int, players: list[trf.Player], entrants: dict[int, Entrant]) -> None:
    """Round `number` of the file as finished tables: its meetings (games and forfeits), then its
    byes. A zero-point block without an opponent (`Z`, `0000 - -`, blank) is an absence: no table."""
    by_number = {player.number: player for player in players}
    meetings, byes = [], []
    for player in players:
        game = player.games[number - 1] if number <= len(player.games) else None
        if game is None:
            continue
        if game.opponent is not None:
            meetings.append(_imported_meeting(player, by_number[game.opponent], number, entrants))
        elif game.points > 0:
            byes.append(([entrants[player.number].pk], [game.points], [1], _lone_reason(game)))
    tables = [meeting for meeting in meetings if meeting is not None] + byes
    for index, (seated, points, places, reason) in enumerate(tables, start=1):
        Table.objects.create(tournament=tournament, round=number, number=index, entrants=seated, points=points,
                             places=places, reason=reason, finished=True)


def _imported_meeting(player: trf.Player, other: trf.Player, number: int, entrants: dict[int, Entrant]) -> tuple | None:
    """A meeting of round `number` as a table (entrants, points, places, reason), white first,
    made from its first seat's line (None from the other's). A forfeit is a table of two, as
    bbpPairings reads both players as paired in its round; it keeps its colours when the file
    gives a white and a black, else its first seat is the lower starting rank."""
    game, back = player.games[number - 1], other.games[number - 1]
    coloured = {game.colour, back.colour} == {"w", "b"}
    if (game.colour != "w") if coloured else player.number > other.number:
        return None
    points = [game.points, back.points]
    places = [1 + (points[0] < points[1]), 1 + (points[1] < points[0])]
    if game.result in trf.PLAYED:
        reason = tournament_pairing.NOT_RATED if game.result in trf.NOT_RATED else "trf"
    else:
        reason = tournament_pairing.FORFEITED if coloured else tournament_pairing.FORFEITED_NO_COLOURS
    return [entrants[player.number].pk, entrants[other.number].pk], points, places, reason


def _lone_reason(game: trf.Game) -> str:
    """`U`, and `0000 - +` (the pairing's bye as bbpPairings reads it), are the pairing's bye."""
    return {"H": tournament_pairing.HALF_POINT_BYE, "F": tournament_pairing.FULL_POINT_BYE}.get(
        game.result, tournament_pairing.BYE)
