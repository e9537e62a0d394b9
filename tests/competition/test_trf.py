"""TRF16 files: writing and reading them back, the Dutch pairing of fixed cases against what
bbpPairings paired for the same file (its output recorded here: the tests never run it), and a
tournament exported through the API and imported again to continue its Swiss."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from competition import dutch, selectors, tournament_service, trf
from competition.models import Table, Tournament
from games.models import Event
from tests.api.conftest import register
from tests.competition.test_tournaments import STEP, _finish_current_round, _start_now

# (file, bbpPairings' pairing of its next round: white, black; a bye alone)
BBP_CASES = [
    # round 4 of 5, nine players: the bye to 5, the lowest group's lowest who has not had one
    ("012 case 1\nXXR 5\nXXC white1\n"
     "001    1      Player 1                          2390                             1.5    4  0005 w 1  0007 b =  0006 w 0\n"
     "001    2      Player 2                          2380                             1.5    5  0006 b 1  0009 w =  0008 b 0\n"
     "001    3      Player 3                          2370                             1.5    6  0007 w 0  0004 b 1  0005 w =\n"
     "001    4      Player 4                          2360                             1.0    8  0008 b 0  0003 w 0  0000 - U\n"
     "001    5      Player 5                          2350                             1.0    9  0001 b 0  0008 w =  0003 b =\n"
     "001    6      Player 6                          2340                             2.0    3  0002 w 0  0000 - U  0001 b 1\n"
     "001    7      Player 7                          2330                             1.5    7  0003 b 1  0001 w =  0009 b 0\n"
     "001    8      Player 8                          2320                             2.5    1  0004 w 1  0005 b =  0002 w 1\n"
     "001    9      Player 9                          2310                             2.5    2  0000 - U  0002 b =  0007 w 1\n",
     [(9, 8), (6, 3), (2, 1), (7, 4), (5,)]),
    # the last round, a withdrawal (5, from round 3) and a half-point bye asked for (8)
    ("012 case 2\nXXR 5\nXXC white1\n"
     "001    1      Player 1                          2390                             1.5    8  0007 w 0  0008 b =  0009 w 0  0000 - U\n"
     "001    2      Player 2                          2380                             2.5    5  0008 b 1  0007 w =  0010 b 0  0004 w 1\n"
     "001    3      Player 3                          2370                             1.0   11  0009 w 1  0011 b 0  0006 w 0  0012 b 0\n"
     "001    4      Player 4                          2360                             1.5    9  0010 b 0  0012 w =  0000 - U  0002 b 0\n"
     "001    5      Player 5                          2350                             0.0   12  0011 w 0  0009 b 0  0000 - Z  0000 - Z  0000 - Z\n"
     "001    6      Player 6                          2340                             3.0    1  0012 b 1  0010 w =  0003 b 1  0009 w =\n"
     "001    7      Player 7                          2330                             3.0    2  0001 b 1  0002 b =  0011 w =  0008 w 1\n"
     "001    8      Player 8                          2320                             2.0    7  0002 w 0  0001 w =  0012 b 1  0007 b 0  0000 - H\n"
     "001    9      Player 9                          2310                             2.5    6  0003 b 0  0005 w 1  0001 b 1  0006 b =\n"
     "001   10      Player 10                         2300                             3.0    3  0004 w 1  0006 b =  0002 w 1  0011 b =\n"
     "001   11      Player 11                         2290                             3.0    4  0005 b 1  0003 w 1  0007 b =  0010 w =\n"
     "001   12      Player 12                         2280                             1.5   10  0006 w 0  0004 b =  0008 w 0  0003 w 1\n",
     [(11, 6), (10, 7), (9, 2), (1, 12), (4, 3)]),
    # a late entry (11, a half-point bye in round 1), the bye to the lowest (6) in round 3
    ("012 case 3\nXXR 7\nXXC white1\n"
     "001    1      Player 1                          2390                             1.0    6  0006 w 1  0003 b 0\n"
     "001    2      Player 2                          2380                             1.5    2  0007 b =  0009 w 1\n"
     "001    3      Player 3                          2370                             2.0    1  0008 w 1  0001 w 1\n"
     "001    4      Player 4                          2360                             0.5    8  0009 b =  0007 w 0\n"
     "001    5      Player 5                          2350                             0.5    9  0010 w =  0011 b 0\n"
     "001    6      Player 6                          2340                             0.0   11  0001 b 0  0010 b 0\n"
     "001    7      Player 7                          2330                             1.5    3  0002 w =  0004 b 1\n"
     "001    8      Player 8                          2320                             1.0    7  0003 b 0  0000 - U\n"
     "001    9      Player 9                          2310                             0.5   10  0004 w =  0002 b 0\n"
     "001   10      Player 10                         2300                             1.5    4  0005 b =  0006 w 1\n"
     "001   11      Player 11                         2290                             1.5    5  0000 - H  0005 w 1\n",
     [(7, 3), (10, 11), (8, 2), (1, 4), (5, 9), (6,)]),
    # round 1, seven players: top half against bottom half, colours alternating, the bye to 7
    ("012 t\nXXR 5\nXXC white1\n" + "".join(
        f"001 {n:4d}      {'P' + str(n):<33} {2000 - n:4d}                             0.0 {n:4d}\n" for n in range(1, 8)),
     [(1, 4), (5, 2), (3, 6), (7,)]),
    # every kind of round: games, forfeits (coloured, uncoloured, both lost), a withdrawal (6 from
    # round 3), the pairing's bye (U), byes asked for (H, F), an absence (Z)
    ("012 Every code\nXXR 5\nXXC white1\n"
     "001    1      Player 1                          2390                             2.5    1  0005 w 1  0002 b =  0003 b 1\n"
     "001    2      Player 2                          2380                             2.5    2  0006 w +  0001 w =  0007 - +\n"
     "001    3      Player 3                          2370                             1.0    6  0007 - -  0000 - U  0001 w 0\n"
     "001    4      Player 4                          2360                             1.5    4  0000 - H  0007 w 0  0000 - U\n"
     "001    5      Player 5                          2350                             0.5    7  0001 b 0  0006 w -  0008 b =\n"
     "001    6      Player 6                          2340                             0.0    8  0002 b -  0005 b -  0000 - Z\n"
     "001    7      Player 7                          2330                             2.0    3  0003 - +  0004 b 1  0002 - -\n"
     "001    8      Player 8                          2320                             1.5    5  0000 - Z  0000 - F  0005 w =\n",
     [(7, 2), (1, 8), (3, 4), (5, 6)]),
    # forfeits only, 1 absent next: a forfeit is no game (4 and 5 meet again, nobody has a colour
    # to follow) but its loser was paired (1 keeps its pairing number: 2 and 4 have odd ones, black)
    ("012 Forfeits\nXXR 3\nXXC white1\n"
     "001    1      Player 1                          2390                             0.0    4  0003 - -  0000 - Z\n"
     "001    2      Player 2                          2380                             1.0    1  0006 - +\n"
     "001    3      Player 3                          2370                             1.0    2  0001 - +\n"
     "001    4      Player 4                          2360                             1.0    3  0005 - +\n"
     "001    5      Player 5                          2350                             0.0    5  0004 - -\n"
     "001    6      Player 6                          2340                             0.0    6  0002 - -\n",
     [(3, 2), (5, 4), (6,)]),
]
EVERY_KIND, FORFEITS = BBP_CASES[4][0], BBP_CASES[5][0]


@pytest.mark.parametrize("text,expected", BBP_CASES)
def test_the_dutch_pairing_pairs_as_bbppairings_did(text, expected):
    report = trf.loads(text)
    assert dutch.pair(trf.entrants(report), rounds_total=report.rounds) == expected


@pytest.mark.parametrize("text,expected", BBP_CASES[:3] + BBP_CASES[4:])
def test_a_file_written_again_reads_the_same(text, expected):
    report = trf.loads(text)
    again = trf.loads(trf.dumps(report))
    assert again == report
    assert trf.dumps(again) == text  # our writer lays the columns out as these files do


def test_the_columns_are_where_trf16_puts_them():
    report = trf.Report("Cup", 3, [trf.Player(1, "Ann", 2100, [trf.Game(2, "w", "1")]),
                                   trf.Player(2, "Bob", 2000, [trf.Game(1, "b", "0")])])
    line = trf.dumps(report).splitlines()[3]
    assert line[:3] == "001" and line[4:8] == "   1" and line[14:17] == "Ann" and line[48:52] == "2100"
    assert line[80:84] == " 1.0" and line[85:89] == "   1" and line[91:99] == "0002 w 1"


INJECTED = "Cup\n001    1      Mallory" + " " * 28 + "2900" + " " * 30 + "9.0    1"


def test_a_name_with_a_line_break_writes_no_line_of_its_own():
    """A tournament's name went into the file as it was typed: a line break in it wrote a player
    line of the organiser's making, which an arbiter's pairing tool would read."""
    report = trf.Report(INJECTED, 3, [trf.Player(1, "Ann", 2100, []), trf.Player(2, "Bob", 2000, [])])
    lines = trf.dumps(report).splitlines()
    assert lines[0] == "012 Cup 001 1 Mallory 2900 9.0 1" and [line[:3] for line in lines] == ["012", "XXR", "XXC", "001", "001"]
    assert [player.name for player in trf.loads(trf.dumps(report)).players] == ["Ann", "Bob"]


@pytest.mark.django_db(transaction=True)
def test_a_tournaments_name_is_kept_as_one_line_without_control_characters():
    organiser = register()
    body = {"name": INJECTED + "\u0007\u202e", "kind": "swiss", "rules": "toy_race", "time_control": STEP,
            "starts_at": (timezone.now() + dt.timedelta(hours=1)).isoformat()}
    made = organiser.post("/api/tournaments/", body)
    assert made.status_code == 201 and made.json()["name"] == " ".join(INJECTED.split())
    for blank in ("\u0007", " \n\u202e "):
        answer = organiser.post("/api/tournaments/", {**body, "name": blank})
        assert (answer.status_code, answer.json()["code"], list(answer.json()["fields"])) == (400, "invalid_input", ["name"])
    assert Tournament.objects.count() == 1


@pytest.mark.parametrize("text,message", [
    ("012 x\n", "no player lines"),
    ("001    2      A" + " " * 70 + "\n", "starting ranks"),
    ("001    1      A" + " " * 65 + " 1.0    1  0005 w 1\n", "not in the file"),
    ("001    1      A" + " " * 65 + " 1.0    1  0000 w 1\n", "needs an opponent"),
])
def test_a_broken_file_is_refused_with_its_reason(text, message):
    with pytest.raises(trf.TrfError, match=message):
        trf.loads(text)


def _swiss_started(name: str, entrants: int, rounds: int):
    """An organiser, the entrants' clients and a toy_race Swiss they entered, started."""
    organiser = register()
    players = [register() for _ in range(entrants)]
    body = {"name": name, "kind": "swiss", "rules": "toy_race", "time_control": STEP, "rounds": rounds,
            "starts_at": (timezone.now() + dt.timedelta(hours=1)).isoformat()}
    tournament_id = organiser.post("/api/tournaments/", body).json()["id"]
    for player in players:
        player.post(f"/api/tournaments/{tournament_id}/entry/")
    _start_now(tournament_id)
    return organiser, players, tournament_id


@pytest.mark.django_db(transaction=True)
def test_a_swiss_exported_as_trf_and_imported_continues_as_the_original_would():
    organiser, players, tournament_id = _swiss_started("Winter Swiss", entrants=5, rounds=4)
    strength = [player.username for player in players]
    for _ in range(2):
        _finish_current_round(tournament_id, strength)

    answer = organiser.get(f"/api/tournaments/{tournament_id}/trf/")
    assert answer.status_code == 200 and answer["Content-Type"] == "text/plain; charset=utf-8"
    exported = answer.content.decode()
    report = trf.loads(exported)
    assert report.rounds == 4 and len(report.players) == 5
    assert all(len(player.games) == 2 for player in report.players)
    assert sum(game.result == "U" for player in report.players for game in player.games) == 2  # a bye a round

    copy = tournament_service.tournament_import_trf(user=_account(organiser), text=exported, rules_id="toy_race",
                                                    time_control=STEP)
    assert copy.current_round == 3  # the file's two rounds, then the next one paired at once
    assert trf.loads(selectors.tournament_trf(tournament_id=copy.pk)) == report

    def names(tournament_id: int) -> list[list[str]]:
        tables = Table.objects.filter(tournament_id=tournament_id, round=3).order_by("number")
        by_id = {e.pk: e.name for e in Tournament.objects.get(pk=tournament_id).entrants.all()}
        return [[by_id[e] for e in table.entrants] for table in tables]

    assert names(copy.pk) == names(tournament_id)  # the original's round 3, paired the same


@pytest.mark.django_db(transaction=True)
def test_tables_of_three_have_no_trf():
    organiser = register()
    body = {"name": "Triples", "kind": "swiss", "rules": "toy_race", "players": 3, "time_control": STEP,
            "starts_at": (timezone.now() + dt.timedelta(hours=1)).isoformat()}
    tournament_id = organiser.post("/api/tournaments/", body).json()["id"]
    answer = organiser.get(f"/api/tournaments/{tournament_id}/trf/")
    assert answer.status_code == 409 and answer.json()["code"] == "trf_two_player_only"
    assert organiser.get("/api/tournaments/999999/trf/").json()["code"] == "tournament_not_found"


def _account(player):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=player.username)


@pytest.mark.django_db(transaction=True)
def test_an_import_naming_no_account_or_out_of_rating_order_changes_nothing():
    from apikit.errors import InvalidInput

    organiser = _account(register())
    nobody = BBP_CASES[3][0]  # players P1..P7: no such accounts
    with pytest.raises(InvalidInput, match="no account named P1"):
        tournament_service.tournament_import_trf(user=organiser, text=nobody, rules_id="toy_race", time_control=STEP)
    upside_down = nobody.replace(" 1999 ", " 1000 ")
    with pytest.raises(InvalidInput, match="follow the ratings"):
        tournament_service.tournament_import_trf(user=organiser, text=upside_down, rules_id="toy_race", time_control=STEP)
    with pytest.raises(InvalidInput, match="not a TRF16 file"):
        tournament_service.tournament_import_trf(user=organiser, text="012 x\n", rules_id="toy_race", time_control=STEP)
    assert not Tournament.objects.exists()


def _line(number: int, name: str, rating: int, blocks: str = "") -> str:
    return f"001 {number:4d}      {name:<33} {rating:4d}                             0.0 {number:4d}{blocks}"


@pytest.mark.parametrize("blocks,message", [
    (["  0001 w 1", "  0000 - U", "  0000 - U"], "meets itself"),
    (["  0002 w 1", "  0003 b 0", "  0002 w 1"], "does not name 1 back"),  # 2 says it met 3, who says it met 2
    (["  0002 w 1", "  0001 w 0", "  0000 - U"], "disagree"),  # two whites
    (["  0002 w 1", "  0001 b 1", "  0000 - U"], "disagree"),  # both won
    (["  0002 w", "  0001 b 0", "  0000 - U"], "disagree"),  # a block cut short: no result
    (["  0002 - +", "  0001 - +", "  0000 - U"], "disagree"),  # both won by forfeit
])
def test_a_file_whose_two_lines_of_a_meeting_disagree_is_refused(blocks, message):
    """Read one side's way, such a file seated a player at two boards of a round, or against
    itself, and the import went through."""
    text = "\n".join(_line(n, f"p{n}", 2000 - n, block) for n, block in enumerate(blocks, start=1)) + "\n"
    with pytest.raises(trf.TrfError, match=message):
        trf.loads(text)


def test_forfeits_and_double_forfeits_read_as_meetings():
    text = "\n".join([_line(1, "a", 2000, "  0002 - +  0002 - -"), _line(2, "b", 1900, "  0001 - -  0001 - -")]) + "\n"
    assert [g.result for g in trf.loads(text).players[0].games] == ["+", "-"]


@pytest.mark.django_db(transaction=True)
def test_a_file_giving_byes_in_the_next_round_is_continued_as_bbppairings_pairs_it():
    """The file's last blocks may be for the round still to be paired (an `H` asked for, a `Z`
    absence): that round was imported as if played, by nobody but those players, everyone else
    absent with 0, and a further round was paired with them all."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    organiser = User.objects.create_user("arbiter")
    for number in range(1, 13):
        User.objects.create_user(f"Player {number}")
    text, expected = BBP_CASES[1]  # round 5 of 5: 5 absent (Z), 8 a half-point bye asked for (H)
    tournament = tournament_service.tournament_import_trf(user=organiser, text=text, rules_id="toy_race",
                                                          time_control=STEP)
    assert (tournament.current_round, tournament.rounds) == (5, 5)
    names = {e.pk: e.name for e in tournament.entrants.all()}
    tables = Table.objects.filter(tournament=tournament, round=5).order_by("number")
    boards = [tuple(int(names[e].split()[1]) for e in table.entrants) for table in tables]
    assert boards == [*expected, (8,)]
    assert tables.last().points == [0.5] and tables.last().finished
    assert not Table.objects.filter(tournament=tournament, round__gt=5).exists()


@pytest.mark.django_db(transaction=True)
def test_an_import_naming_an_account_twice_or_a_lone_player_is_refused_and_changes_nothing():
    from django.contrib.auth import get_user_model

    from apikit.errors import InvalidInput

    User = get_user_model()
    organiser = User.objects.create_user("arbiter")
    User.objects.create_user("ann")
    User.objects.create_user("bob")
    twice = "\n".join([_line(1, "ann", 2000), _line(2, "bob", 1900), _line(3, "ann", 1800)]) + "\n"
    with pytest.raises(InvalidInput, match="names ann more than once"):  # was an IntegrityError
        tournament_service.tournament_import_trf(user=organiser, text=twice, rules_id="toy_race", time_control=STEP)
    with pytest.raises(InvalidInput, match="2 to 128 players"):  # was a tournament finished at once
        tournament_service.tournament_import_trf(user=organiser, text=_line(1, "ann", 2000) + "\n",
                                                 rules_id="toy_race", time_control=STEP)
    assert not Tournament.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_import_command_says_what_is_wrong_with_a_file_it_cannot_use(tmp_path):
    """A file not in UTF-8 (Swiss-Manager writes Latin-1) and unknown rules ended in a traceback."""
    from django.contrib.auth import get_user_model
    from django.core.management import CommandError, call_command

    User = get_user_model()
    User.objects.create_user("arbiter")
    for name in ("ann", "bob"):
        User.objects.create_user(name)
    latin = tmp_path / "latin.trf"
    text = "012 Caf\xe9 cup\n" + _line(1, "ann", 2000) + "\n" + _line(2, "bob", 1900) + "\n"
    latin.write_bytes(text.encode("latin-1"))
    options = {"organiser": "arbiter", "rules": "toy_race", "time_control": '{"type": "step", "seconds": 60}'}
    with pytest.raises(CommandError, match="not UTF-8"):
        call_command("trf_import", str(latin), **options)
    good = tmp_path / "good.trf"
    good.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError, match="no game 'nope'"):
        call_command("trf_import", str(good), **{**options, "rules": "nope"})
    with pytest.raises(CommandError, match="cannot read"):
        call_command("trf_import", str(tmp_path / "missing.trf"), **options)
    assert not Tournament.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_round_robin_withdrawal_is_written_as_forfeits_between_the_two():
    """A withdrawn entrant's scheduled game was written as the opponent's pairing bye (`U`) and
    the withdrawn entrant's absence (`Z`): an arbiter's file should say `+` and `-`, each naming
    the other."""
    from tests.competition.test_tournaments import _organise

    organiser = register()
    players = [register() for _ in range(4)]
    tournament_id = _organise(organiser)
    for player in players:
        player.post(f"/api/tournaments/{tournament_id}/entry/")
    _start_now(tournament_id)
    leaver = players[3]
    leaver.client.delete(f"/api/tournaments/{tournament_id}/entry/")  # during round 1, played out
    strength = [player.username for player in players]
    for _ in range(2):
        _finish_current_round(tournament_id, strength)
    report = trf.loads(organiser.get(f"/api/tournaments/{tournament_id}/trf/").content.decode())
    by_name = {player.name: player for player in report.players}
    gone = by_name[leaver.username]
    assert gone.games[0].result in trf.PLAYED and len(gone.games) == 2  # round 1 played, round 2 not
    forfeit = gone.games[1]
    assert (forfeit.colour, forfeit.result) == ("-", "-") and forfeit.opponent is not None
    winner = next(player for player in report.players if player.number == forfeit.opponent)
    assert (winner.games[1].opponent, winner.games[1].result) == (gone.number, "+")
    assert not any(game.result in ("U", "Z") for player in report.players for game in player.games)  # four: no byes


@pytest.mark.django_db(transaction=True)
def test_an_import_of_a_file_whose_rounds_are_all_played_is_refused():
    """A file of five rounds out of five (its XXR) was continued with a sixth round."""
    from django.contrib.auth import get_user_model

    from apikit.errors import InvalidInput

    User = get_user_model()
    organiser = User.objects.create_user("arbiter")
    for name in ("ann", "bob"):
        User.objects.create_user(name)
    done = "XXR 1\n" + _line(1, "ann", 2000, "  0002 w 1") + "\n" + _line(2, "bob", 1900, "  0001 b 0") + "\n"
    with pytest.raises(InvalidInput, match="1 rounds are all played"):
        tournament_service.tournament_import_trf(user=organiser, text=done, rules_id="toy_race", time_control=STEP)
    assert not Tournament.objects.exists()
    going = done.replace("XXR 1", "XXR 2")
    tournament = tournament_service.tournament_import_trf(user=organiser, text=going, rules_id="toy_race",
                                                          time_control=STEP)
    assert (tournament.rounds, tournament.current_round) == (2, 2)


def test_a_file_starting_with_a_byte_order_mark_reads_its_first_line():
    """Notepad and Windows tools write UTF-8 with a BOM: the first line's code was not recognised,
    so its name (or, first in the file, a player) was silently dropped."""
    text = ("\ufeff001    1      A" + " " * 65 + " 1.0    1  0002 w 1\n"
            "001    2      B" + " " * 65 + " 0.0    2  0001 b 0\n")
    assert [player.name for player in trf.loads(text).players] == ["A", "B"]
    assert trf.loads("\ufeff012 Cup\n" + text[1:]).name == "Cup"


def _import(text: str):
    """`text` imported by an organiser, with an account for each of its players."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    organiser, _ = User.objects.get_or_create(username="arbiter")
    for player in trf.loads(text).players:
        User.objects.get_or_create(username=player.name)
    return tournament_service.tournament_import_trf(user=organiser, text=text, rules_id="toy_race", time_control=STEP)


def _boards(tournament, number: int) -> list[tuple[int, ...]]:
    """Round `number`'s tables as the file's starting ranks (players are named `Player <rank>`)."""
    names = {e.pk: e.name for e in tournament.entrants.all()}
    tables = Table.objects.filter(tournament=tournament, round=number).order_by("number")
    return [tuple(int(names[e].split()[1]) for e in table.entrants) for table in tables]


@pytest.mark.django_db(transaction=True)
def test_a_file_with_every_kind_of_round_is_exported_as_it_was_imported():
    """A forfeit (`+` against `-`, with colours or without, or both lost) was imported as the
    winner's lone table and exported as the pairing's bye (`U`) against an absence (`Z`); a
    full-point bye asked for (`F`) came back as the pairing's (`U`). An arbiter checking our next
    pairing from our file read another tournament than the one imported."""
    tournament = _import(EVERY_KIND)
    assert selectors.tournament_trf(tournament_id=tournament.pk) == EVERY_KIND
    assert _boards(tournament, 4) == BBP_CASES[4][1]  # as bbpPairings paired the file
    detail = selectors.tournament_detail(tournament_id=tournament.pk)
    rows = {row["name"]: row for row in detail["standings"]}
    counts = {name: (row["points"], row["games"], row["forfeits"], row["byes"]) for name, row in rows.items()}
    assert counts["Player 2"] == (2.5, 1, 2, 0) and counts["Player 7"] == (2.0, 1, 1, 0)
    assert counts["Player 6"] == (0.0, 0, 0, 0) and counts["Player 8"] == (1.5, 1, 0, 1)  # a forfeit lost: nothing
    round_1 = detail["round_list"][0]["tables"]
    assert [(table["seats"], table["forfeit"]) for table in round_1 if table["forfeit"]] == [
        (["Player 2", "Player 6"], True), (["Player 3", "Player 7"], True)]


@pytest.mark.django_db(transaction=True)
def test_a_pairing_bye_written_as_a_forfeit_won_against_nobody_is_exported_as_bbppairings_writes_it():
    """`0000 - +` is read by bbpPairings as the pairing-allocated bye, which it writes `0000 - U`."""
    old_style = EVERY_KIND.replace("0000 - U  0001 w 0", "0000 - +  0001 w 0")  # player 3's round 2
    assert old_style != EVERY_KIND
    tournament = _import(old_style)
    assert selectors.tournament_trf(tournament_id=tournament.pk) == EVERY_KIND
    assert _boards(tournament, 4) == BBP_CASES[4][1]


@pytest.mark.django_db(transaction=True)
def test_an_imported_forfeit_is_paired_on_as_bbppairings_pairs_the_file():
    """bbpPairings counts a forfeit as no game (the two may meet again; no colour to follow) with
    both players paired in its round. The loser's side was dropped on import: absent in a round it
    was paired in, a loser who sat the next round out no longer counted in the pairing numbers, and
    the boards below it got the other colours."""
    tournament = _import(FORFEITS)
    assert _boards(tournament, 2) == BBP_CASES[5][1]
    records = selectors.tournament_records(tournament, {e.pk: e for e in tournament.entrants.all()})
    numbers = {e.pk: int(e.name.split()[1]) for e in tournament.entrants.all()}
    file_rounds = {entrant.id: entrant.rounds for entrant in trf.entrants(trf.loads(FORFEITS))}
    for pk, record in records.items():  # the pairing reads the imported rounds as the file's
        round_1 = record.history[0]
        mapped = dutch.Round(numbers.get(round_1.opponent), round_1.seat, round_1.points, round_1.played,
                             round_1.paired)
        assert mapped == file_rounds[numbers[pk]][0]


@pytest.mark.django_db(transaction=True)
def test_a_player_who_never_came_loses_by_forfeit_and_the_two_may_meet_again(monkeypatch):
    """A seat whose every turn timed out until the timeouts resigned it: arbiters score that as a
    forfeit, not a game. It was a played `0` and `1` in the TRF, a meeting the pairing would not
    repeat, and its colours counted."""
    from django.contrib.auth import get_user_model

    from games import services, store, time_controls, timeouts
    from games.models import Game

    at = [timezone.now()]
    monkeypatch.setattr(time_controls, "now", lambda: at[0])
    organiser, _, tournament_id = _swiss_started("Club Swiss", entrants=4, rounds=3)
    users = {user.pk: user for user in get_user_model().objects.all()}
    first, second = Table.objects.filter(tournament_id=tournament_id, round=1).order_by("number")
    game = Game.objects.get(pk=first.game_id)
    absent = game.to_act[0]  # never comes; the other seat plays every turn it has
    while game.status == "active":
        seat = game.to_act[0]
        if seat == absent:
            at[0] += dt.timedelta(seconds=61)
            timeouts.timeout_apply(game_id=game.pk, seq=game.seq, seat=seat)
        else:
            move = store.rules_of(game).legal_moves(store.state_at(game), seat)[0]
            user = users[game.seats.get(index=seat).user_id]
            services.move_submit(game_id=game.pk, user=user, move=move, expected_seq=game.seq)
        game.refresh_from_db()
    other = Game.objects.get(pk=second.game_id)
    services.resign(game_id=other.pk, user=users[other.seats.get(index=0).user_id])  # a player who came and lost
    tournament_service.tournaments_tick()

    first.refresh_from_db()
    second.refresh_from_db()
    assert first.reason == "forfeited" and second.reason != "forfeited"
    detail = organiser.get(f"/api/tournaments/{tournament_id}/").json()
    assert [table["forfeit"] for table in detail["round_list"][0]["tables"]] == [True, False]
    rows = {row["entrant"]: row for row in detail["standings"]}
    came_row, gone_row = rows[first.entrants[1 - absent]], rows[first.entrants[absent]]
    assert (came_row["points"], came_row["forfeits"], came_row["games"]) == (1.0, 1, 0)
    assert (gone_row["points"], gone_row["losses"], gone_row["games"]) == (0.0, 0, 0)
    report = trf.loads(organiser.get(f"/api/tournaments/{tournament_id}/trf/").content.decode())
    by_name = {player.name: player for player in report.players}
    entrants = {entrant.pk: entrant.name for entrant in Tournament.objects.get(pk=tournament_id).entrants.all()}
    gone, came = (by_name[entrants[first.entrants[seat]]] for seat in (absent, 1 - absent))
    assert (gone.games[0].opponent, gone.games[0].result) == (came.number, "-")
    assert (came.games[0].opponent, came.games[0].result) == (gone.number, "+")
    assert {gone.games[0].colour, came.games[0].colour} == {"w", "b"}  # the colours they were paired with
    assert all(game.result in trf.PLAYED for name in (entrants[e] for e in second.entrants) for game in by_name[name].games)
    records = selectors.tournament_records(Tournament.objects.get(pk=tournament_id),
                                           {pk: entrant for pk, entrant in
                                            ((e.pk, e) for e in Tournament.objects.get(pk=tournament_id).entrants.all())})
    assert first.entrants[1 - absent] not in records[first.entrants[absent]].opponents  # they may be paired again
    assert not records[first.entrants[absent]].history[0].played and records[first.entrants[absent]].history[0].paired


@pytest.mark.django_db(transaction=True)
def test_a_seat_a_stand_in_bot_played_for_is_still_a_player_who_never_came(monkeypatch):
    """Under the `bot` policy the stand-in's moves are the seat's moves in the log: they are not
    its player coming. The player's own return is."""
    from django.contrib.auth import get_user_model

    from games import selectors as games_selectors
    from games import services, store, time_controls, timeouts
    from games.models import Game

    at = [timezone.now()]
    monkeypatch.setattr(time_controls, "now", lambda: at[0])
    one, two = (get_user_model().objects.create_user(username=name) for name in ("nia", "ola"))
    game = services.game_create(creator=one, rules_id="toy_race", players=2, options={}, timeout_policy="bot",
                                time_control={"type": "step", "seconds": 60})
    services.game_join(game_id=game.pk, user=two)
    game = Game.objects.get(pk=game.pk)
    users, late = {0: one, 1: two}, game.to_act[0]
    at[0] += dt.timedelta(seconds=61)
    timeouts.timeout_apply(game_id=game.pk, seq=game.seq, seat=late)
    for _ in range(2):  # the other seat moves, the stand-in answers for the late one
        game.refresh_from_db()
        if game.status != "active" or late in game.to_act:
            break
        move = store.rules_of(game).legal_moves(store.state_at(game), 1 - late)[0]
        services.move_submit(game_id=game.pk, user=users[1 - late], move=move, expected_seq=game.seq)
        game.refresh_from_db()
        if late in game.to_act:
            services.bot_seat_play(game_id=game.pk, seq=game.seq)
    assert Event.objects.filter(game=game, seat=late, kind="move").exists()  # the stand-in played
    assert games_selectors.seats_absent(game_ids=[game.pk]) == {game.pk: {late}}
    game.refresh_from_db()
    if game.status == "active":
        services.seat_return(game_id=game.pk, user=users[late])
        assert games_selectors.seats_absent(game_ids=[game.pk]) == {game.pk: set()}


@pytest.mark.django_db(transaction=True)
def test_games_a_file_says_were_not_rated_are_given_back_so():
    """`W` `D` `L`: played, not rated. They pair as any game, and the file we write keeps them so:
    written back as `1` `=` `0`, an arbiter's tool would have rated them."""
    unrated = (EVERY_KIND.replace("0005 w 1  0002 b =", "0005 w W  0002 b D")  # player 1's rounds 1 and 2
               .replace("0001 b 0  0006 w -", "0001 b L  0006 w -")  # player 5 lost round 1 to 1
               .replace("0006 w +  0001 w =", "0006 w +  0001 w D"))  # player 2 drew round 2 with 1
    assert unrated.count("W") == 1 and unrated.count(" D ") == 2 and unrated.count(" L\n") + unrated.count(" L ") == 1
    tournament = _import(unrated)
    assert selectors.tournament_trf(tournament_id=tournament.pk) == unrated
    assert _boards(tournament, 4) == BBP_CASES[4][1]  # paired as the file with rated games was
