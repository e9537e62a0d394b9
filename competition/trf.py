"""FIDE Tournament Report Files (TRF16), the text format arbiters' tools read and write
(bbpPairings, JaVaFo, Swiss-Manager).

Pure Python, no Django. A file is a list of lines, each starting with a three-character code;
we read and write:

- `012` the tournament's name, `XXR` the number of rounds (needed to pair the next round), `XXC`
  the first board's colour in round 1 (`white1`);
- `001` one line per player, in fixed columns: the starting rank (pairing number) in 5-8, the name
  in 15-47, the rating in 49-52, the points in 81-84, the rank in 86-89, then one 10-character
  block per round from column 92: the opponent's starting rank (4 digits, `0000` for none), the
  colour (`w`, `b` or `-`) and the result.

Results: `1` `=` `0` a game won, drawn, lost (`W` `D` `L` the same, not rated: kept so on the
way back); `+` `-` a forfeit won or lost (no game); `U` the pairing-allocated bye; `F` `H` `Z` a
full-, half- or zero-point bye that was not the pairing's (`Z` also marks an absence). A round
block for the round still to be paired (`H`, `Z`) says the player will not play it. As
bbpPairings reads them: a forfeit naming an opponent had both players paired in its round, though
no game (no colour to follow, and the two may meet again); `0000 - +` is the pairing-allocated
bye, `0000 - -` and a blank block an absence.

Other lines (federations, dates, arbiters, team data) are ignored on reading.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from apikit.text import one_line
from competition import dutch

POINTS = {"1": 1.0, "=": 0.5, "0": 0.0, "+": 1.0, "-": 0.0, "U": 1.0, "F": 1.0, "H": 0.5, "Z": 0.0,
          "W": 1.0, "D": 0.5, "L": 0.0, " ": 0.0}
PLAYED = {"1", "=", "0", "W", "D", "L"}
NOT_RATED = {"W", "D", "L"}  # played, not rated
ROUNDS_COLUMN = 91  # 0-based start of round 1's block
ROUND_WIDTH = 10


class TrfError(ValueError):
    """A line that is not TRF16: `line` is its 1-based number."""

    def __init__(self, message: str, line: int = 0):
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


@dataclass
class Game:
    opponent: int | None  # the opponent's starting rank, None for a bye or an absence
    colour: str  # "w", "b" or "-"
    result: str  # one of POINTS' keys

    @property
    def points(self) -> float:
        return POINTS[self.result]


@dataclass
class Player:
    number: int  # starting rank, 1 the top seed
    name: str
    rating: int = 0
    games: list[Game] = field(default_factory=list)

    @property
    def points(self) -> float:
        return sum(game.points for game in self.games)


@dataclass
class Report:
    name: str
    rounds: int
    players: list[Player]
    first_colour: str = "w"  # round 1's top board: the top seed's colour
    rounds_stated: bool = field(default=True, compare=False)  # False: no XXR line, `rounds` is those played


def dumps(report: Report) -> str:
    # A name is one line of the file: a line break in it would write lines an arbiter's tool reads.
    lines = [f"012 {one_line(report.name)}"[:250], f"XXR {report.rounds}", f"XXC {'white1' if report.first_colour == 'w' else 'black1'}"]
    ranks = _ranks(report.players)
    for player in sorted(report.players, key=lambda p: p.number):
        head = (f"001 {player.number:4d}      {player.name[:33]:<33} {player.rating or '':>4} {'':3} {'':>11} {'':10} "
                f"{player.points:4.1f} {ranks[player.number]:4d}")
        blocks = "".join(f"  {game.opponent or 0:04d} {game.colour} {game.result}" for game in player.games)
        lines.append((head + blocks).rstrip())
    return "\n".join(lines) + "\n"


def _ranks(players: list[Player]) -> dict[int, int]:
    ordered = sorted(players, key=lambda p: (-p.points, p.number))
    return {player.number: place for place, player in enumerate(ordered, start=1)}


def loads(text: str) -> Report:
    name, rounds, first_colour, players = "", 0, "w", []
    # Windows tools start a UTF-8 file with a byte-order mark: left on, it hid the first line's code.
    for number, line in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        code = line[:3]
        if code == "012":
            name = line[4:].strip()
        elif code == "XXR":
            rounds = _integer(line[4:], number, "XXR needs the number of rounds")
        elif code == "XXC":
            first_colour = "b" if "black" in line[4:].lower() else "w"
        elif code == "001":
            players.append(_player(line, number))
    if not players:
        raise TrfError("no player lines (001)")
    numbers = sorted(p.number for p in players)
    if numbers != list(range(1, len(players) + 1)):
        raise TrfError("starting ranks must run 1, 2, 3... with none missing or repeated")
    played = max(len(p.games) for p in players)
    for player in players:
        for game in player.games:
            if game.opponent is not None and not 1 <= game.opponent <= len(players):
                raise TrfError(f"player {player.number} meets {game.opponent}, who is not in the file")
    _check_meetings(players)
    return Report(name=name, rounds=max(rounds, played), players=players, first_colour=first_colour,
                  rounds_stated=rounds > 0)


def _check_meetings(players: list[Player]) -> None:
    """Both lines of every meeting tell the same story: each names the other in that round, a
    game has one white and one black and its points add up to 1, a forfeit is `+` against `-`
    (or `-` against `-`). A file that disagrees with itself would seat a player at two boards
    of a round, or against itself, so it is refused rather than read one side's way."""
    by_number = {player.number: player for player in players}
    for player in players:
        for index, game in enumerate(player.games):
            if game.opponent is None:
                continue
            where = f"round {index + 1}: player {player.number}"
            if game.opponent == player.number:
                raise TrfError(f"{where} meets itself")
            other = by_number[game.opponent].games
            back = other[index] if index < len(other) else None
            if back is None or back.opponent != player.number:
                raise TrfError(f"{where} meets {game.opponent}, whose line does not name {player.number} back")
            if not _agree(game, back):
                raise TrfError(f"{where} and player {game.opponent} disagree on their colours or result")


def _agree(one: Game, other: Game) -> bool:
    if one.result in PLAYED or other.result in PLAYED:
        return ({one.colour, other.colour} == {"w", "b"} and one.result in PLAYED and other.result in PLAYED
                and one.points + other.points == 1)
    return {one.result, other.result} <= {"+", "-"} and one.points + other.points <= 1


def _integer(text: str, line: int, message: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise TrfError(message, line) from None


def _player(line: str, number: int) -> Player:
    if len(line) < 84:
        raise TrfError("a 001 line is at least 84 characters", number)
    start = _integer(line[4:8], number, "columns 5-8 hold the starting rank")
    rating_text = line[48:52].strip()
    rating = _integer(rating_text, number, "columns 49-52 hold the rating") if rating_text else 0
    games = []
    line = line.rstrip()
    for column in range(ROUNDS_COLUMN, len(line), ROUND_WIDTH):
        block = line[column:column + 8].ljust(8)
        opponent_text, colour, result = block[:4], block[5], block[7].upper()
        if not block.strip():
            games.append(Game(None, "-", "Z"))
            continue
        if result not in POINTS or colour not in "wb- ":
            raise TrfError(f"round {len(games) + 1}: unknown colour {colour!r} or result {result!r}", number)
        opponent = None if opponent_text.strip() in ("", "0000") else _integer(opponent_text, number, "bad opponent")
        if result in PLAYED and (opponent is None or colour not in "wb"):
            raise TrfError(f"round {len(games) + 1}: a game needs an opponent and a colour", number)
        games.append(Game(opponent, colour if colour != " " else "-", result))
    return Player(number=start, name=line[14:47].strip(), rating=rating, games=games)


def entrants(report: Report) -> list[dutch.Entrant]:
    """The players as the Dutch pairing's entrants (id = starting rank) for the round after the
    last one anybody was paired in; a player with a block for that round already (`H`, `Z`)
    sits it out."""
    played = max(paired_rounds(p) for p in report.players)
    result = []
    for player in report.players:
        history = [_round(game) for game in player.games[:played]]
        present = len(player.games) <= played
        result.append(dutch.Entrant(id=player.number, number=player.number, rounds=history, present=present))
    return result


def paired_rounds(player: Player) -> int:
    """Rounds up to the last one the player took part in the pairing of."""
    taken = [index + 1 for index, game in enumerate(player.games) if _round(game).paired]
    return taken[-1] if taken else 0


def _round(game: Game) -> dutch.Round:
    """A block as the pairing reads it, as bbpPairings does: a forfeit (`+` `-` naming an
    opponent) is no game but both players were paired; `0000 - +` is the pairing's bye."""
    played = game.result in PLAYED
    seat = {"w": 0, "b": 1}.get(game.colour) if game.opponent is not None else None  # a forfeit's unread
    paired = game.opponent is not None or game.result in ("U", "+")
    return dutch.Round(opponent=game.opponent, seat=seat, points=game.points, played=played, paired=paired)


def game_for(round_: dutch.Round) -> Game:
    """The TRF block of one round of history (`dutch.Round`), the other way. A forfeit keeps the
    colour it was paired with, if known (`-` if not)."""
    colour = {0: "w", 1: "b"}.get(round_.seat, "-")
    if round_.played:
        codes = "1=0" if round_.rated else "WDL"
        result = codes[0] if round_.points == 1 else codes[1] if round_.points == 0.5 else codes[2]
        return Game(round_.opponent, colour, result)
    if round_.opponent is not None:
        return Game(round_.opponent, colour, "+" if round_.points >= 1 else "-")
    if round_.paired:
        return Game(None, "-", "U")
    return Game(None, "-", "F" if round_.points >= 1 else "H" if round_.points == 0.5 else "Z")

